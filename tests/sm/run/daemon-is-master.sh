#!/usr/bin/env bash
# `ibsm run` as a daemon: once `ibsm status` says the subnet is up, `sminfo`
# asked from another node (through the LFTs ibsm wrote) names ibsm's port
# GUID and LID as the master, in state SMINFO_MASTER. Then the cable at
# SWITCH[PORT] is pulled: the switches' Trap 128 must bring a new sweep at
# once (well before the 10 s sweep interval), which reports the cable lost
# (its status's last change) and reprograms the tables as the dry run of the
# fabric without that cable plans them, nothing forwarding into the dead
# ports (the dry run from the tables held, `--previous`, as the live SM
# routes under change). SIGTERM then ends ibsm with exit 0 within a few seconds, and its
# --stats file says why.
#
#   run-with-ibsim.sh NETFILE -- daemon-is-master.sh path/to/ibsm SWITCH PORT
set -u
IBSM=${1:?usage: $0 path/to/ibsm SWITCH PORT}
node=${2:?SWITCH}
port=${3:?PORT}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS

# The SM runs on the net file's first node (umad2sim's default); sminfo asks
# from its last node.
mapfile -t nodes < <(net_nodes "$net")
asker=${nodes[-1]}

# Default settings but for a control socket and a metrics file of its own.
mkdir -p metrics
printf '[sm]\ncontrol_socket = "%s"\n[health]\nmetrics_file = "%s"\n' "$PWD/control.sock" \
  "$PWD/metrics/ibsm.prom" >ibsm.toml
sock=control.sock
"$IBSM" run -F ibsm.toml --state-dir state --log-file ibsm.log --stats stats.json 2>stderr.txt &
pid=$!
if wait_for_status $sock .up 60; then
  sm_guid=$(quiet smpquery nodeinfo -D 0 | sed -n 's/^PortGuid:\.*//p')
  sm_lid=$(quiet smpquery portinfo -D 0 | sed -n 's/^Lid:\.*//p')
  answer=$(SIM_HOST=$asker quiet sminfo)
  echo "sminfo from \"$asker\": $answer"
  # sminfo: sm lid 1 sm guid 0x..., activity count 5 priority 0 state 3 SMINFO_MASTER
  [[ $answer =~ sm\ lid\ ([0-9]+)\ sm\ guid\ (0x[0-9a-f]+),.*state\ 3\ SMINFO_MASTER ]] ||
    fail "sminfo does not name a master: '$answer'"
  [[ -n ${BASH_REMATCH[2]:-} && $((BASH_REMATCH[2])) -eq $((sm_guid)) ]] ||
    fail "sminfo names GUID ${BASH_REMATCH[2]:-?}, ibsm runs on port $sm_guid"
  [[ ${BASH_REMATCH[1]:-} == "$sm_lid" && $sm_lid != 0 ]] ||
    fail "sminfo names LID ${BASH_REMATCH[1]:-?}, ibsm's port has LID $sm_lid"
  [[ $(($(ibsm_status $sock .port_guid))) -eq $((sm_guid)) ]] ||
    fail "ibsm's status does not name its port GUID $sm_guid: $(ibsm_status $sock .port_guid)"
  # The metrics file for node_exporter follows the sweep that brought the
  # subnet up; `ibsm health` and `ibsm metrics` answer from the socket.
  wait_until 10 grep -qx 'ibsm_subnet_up 1' metrics/ibsm.prom ||
    fail "metrics/ibsm.prom does not say the subnet is up: $(head -c 300 metrics/ibsm.prom 2>&1)"
  grep -qx 'ibsm_sm_state{state="MASTER"} 1' metrics/ibsm.prom ||
    fail "metrics/ibsm.prom does not say MASTER"
  health=$("$IBSM" health --socket $sock) || fail "ibsm health failed: $health"
  [[ $health == "health: "* ]] || fail "ibsm health does not start with its summary: $health"
  "$IBSM" metrics --socket $sock | grep -qx '# TYPE ibsm_unhealthy gauge' ||
    fail "ibsm metrics has no ibsm_unhealthy family"
else
  fail "the subnet is not up within 60 s"
fi

net_without_cable "$net" "$node" "$port" >cut.net
read -r far_node far_port < <(net_far_end "$net" "$node" "$port")
pulled=$SECONDS
console "Unlink \"$node\"[$port]"
lost='.last_change.changes | any(startswith("cable lost"))'
if wait_for_status $sock "$lost" 3 && wait_for_status $sock "($lost) and .up" 10; then
  changes=$(ibsm_status $sock '.last_change.changes[]')
  echo "after the unlink, within $((SECONDS - pulled)) s: $changes"
  grep -qE "\"$node\" \(0x[0-9a-f]+\)\[$port\]" <<<"$changes" ||
    fail "the lost cable reported is not \"$node\"[$port]"
  check_links_active "$net" 2
  # Routes under change (routing.stable_routes): the dry run from the tables
  # the fabric held, those of the whole fabric.
  route_dry_run "$net" dry-whole --guid2lid state/guid2lid
  route_dry_run cut.net dry --guid2lid state/guid2lid --previous dry-whole/opensm-lfts.dump \
    --previous-topology "$net"
  check_lfts_as_planned dry
  check_every_lid_routed state/guid2lid
  check_nothing_forwards_into "$node" "$port"
  check_nothing_forwards_into "$far_node" "$far_port"
else
  fail "no new sweep reported the cable lost within 3 s of the unlink (traps not acted on?)"
fi

kill -TERM "$pid"
stopped=$SECONDS
for _ in $(seq 1 100); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
if kill -0 "$pid" 2>/dev/null; then
  fail "ibsm still runs 5 s after SIGTERM"
  kill -KILL "$pid"
fi
wait "$pid"
rc=$?
echo "ibsm exited $rc, $((SECONDS - stopped)) s after SIGTERM"
[[ $rc -eq 0 ]] || fail "ibsm exited $rc after SIGTERM:"$'\n'"$(cat stderr.txt)"
stats_hold stats.json '.exit.reason == "stopped" and .exit.signal == 15' ||
  fail "ibsm's --stats does not say it stopped on SIGTERM: $(stats stats.json .exit)"

finish "$(basename "$net" .net): daemon, sminfo, SIGTERM, $((SECONDS - start)) s" ibsm.log
