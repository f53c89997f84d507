#!/usr/bin/env bash
# ibsm beside an OpenSM that runs with its defaults elects one master, in
# either order, with no configuration: neither is given an SM_Key or a
# priority (ibsm's config only moves its control socket and state out of
# the system paths). Migrating from OpenSM must be safe like this, because
# two masters in one subnet is the worst state an operator can be in.
# Both have priority 0, so the lower port GUID ranks first; the SM that
# starts first is put on the lower GUID, so the one that joins never
# outranks it and no handover follows (that is RunFailover's business).
#  1. ibsm starts first (CA A) and brings the fabric up; OpenSM starts on CA
#     B and must enter STANDBY, never MASTER. Asked from a third CA, each
#     SM's own SMInfo (sminfo LID) shows exactly one MASTER: ibsm.
#  2. Both stop; OpenSM starts first (CA A), then ibsm (CA B), which must
#     settle in STANDBY (`ibsm status`) and report no foreign SM; exactly
#     one MASTER: OpenSM.
#  3. With OpenSM still master, ibsm stops and another ibsm on a third CA is
#     given another SM_Key: it cannot authenticate OpenSM, so it reports it
#     (SM-0115, counted in its status as foreign_sm_reports) once, and at
#     most once more, and `ibsm status` lists OpenSM under foreign_sm with
#     its state (MASTER) and the key it shows, which is not ours.
#
#   run-with-ibsim.sh NETFILE -- interop-opensm-defaults.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
mapfile -t cas < <(net_cas "$net")
node_a=${cas[0]} node_b=${cas[-1]} node_c=${cas[1]} asker=${cas[${#cas[@]} / 2]}
guid_a=$(node_port_guid "$node_a")
guid_b=$(node_port_guid "$node_b")

# An ibsm config with nothing but where its socket and state go.
plain_ibsm_conf() { printf '%s\n' '[sm]' "control_socket = \"$2/control.sock\"" >"$1"; }

# OpenSM with no -p and a config that only flushes its log line by line (it
# is read while OpenSM runs): every SM setting at its default, SM_Key included.
start_plain_opensm() {
  local dir=$1 node=$2
  mkdir -p "$dir"
  echo 'force_log_flush TRUE' >"$dir/opensm.conf"
  SIM_HOST=$node OSM_TMP_DIR=$dir OSM_CACHE_DIR=$dir \
    opensm -F "$dir/opensm.conf" -f "$dir/log" >"$dir/stdout" 2>&1 &
  opensm_pid=$!
}

start_plain_ibsm() {
  local dir=$1 node=$2
  mkdir -p "$dir"
  SIM_HOST=$node "$IBSM" run -F "$dir/ibsm.toml" --state-dir "$dir/state" \
    --log-file "$dir/ibsm.log" >"$dir/stdout" 2>"$dir/stderr" &
  ibsm_pid=$!
}

# The state each SM's own port shows (sminfo asked from ASKER at its LID).
sm_state_of() {
  local guid=$1 lid
  lid=$(quiet ibnetdiscover | ibnetdiscover_lids | awk -v g="$(printf '0x%016x' "$guid")" '$1 == g { print $2 }')
  [[ -n $lid && $lid != none ]] || { echo "no-lid"; return; }
  SIM_HOST=$asker quiet sminfo "$((lid))" | sed -nE 's/.* (SMINFO_[A-Z]+).*/\1/p'
}

# Exactly one of the SMs on CAs A and B says MASTER, and it is the one on WANT.
check_one_master() {
  local what=$1 want=$2 sa sb
  sa=$(sm_state_of "$guid_a") sb=$(sm_state_of "$guid_b")
  echo "$what: SM on $node_a says ${sa:-nothing}, SM on $node_b says ${sb:-nothing}"
  local masters=0
  [[ $sa == SMINFO_MASTER ]] && masters=$((masters + 1))
  [[ $sb == SMINFO_MASTER ]] && masters=$((masters + 1))
  [[ $masters -eq 1 ]] || fail "$what: $masters SMs say MASTER ($node_a: $sa, $node_b: $sb)"
  local master_guid=$guid_a
  [[ $sb == SMINFO_MASTER ]] && master_guid=$guid_b
  [[ $((master_guid)) -eq $((want)) ]] || fail "$what: the master is $master_guid, expected $want"
}

# 1. ibsm first, OpenSM second.
plain_ibsm_conf a.toml "$PWD/a"
mkdir -p a && mv a.toml a/ibsm.toml
start_plain_ibsm a "$node_a"
wait_until 60 eval '[[ $(ibsm_state a/control.sock) == MASTER* ]]' || fail "ibsm did not become MASTER alone"
wait_for_status a/control.sock .up 60 || fail "ibsm: the subnet did not come up"
start_plain_opensm osm1 "$node_b"
wait_for_line osm1/log 'Entering STANDBY|Entering MASTER' 60 || fail "OpenSM settled in no state within 60 s"
sleep 2
grep -q 'Entering MASTER' osm1/log && fail "OpenSM (defaults) entered MASTER beside ibsm (defaults):"$'\n'"$(grep -E 'ERR 2F18|Entering' osm1/log)"
check_one_master "ibsm first (on $node_a)" "$guid_a"
[[ $(ibsm_state a/control.sock) == MASTER* ]] || fail "ibsm status: $(ibsm_state a/control.sock), expected MASTER"
stop_pid "$opensm_pid" TERM 30 || fail "OpenSM did not stop on SIGTERM within 30 s"
stop_pid "$ibsm_pid" TERM 5 || fail "ibsm did not exit 0 on SIGTERM"

# 2. OpenSM first, ibsm second.
start_plain_opensm osm2 "$node_a"
wait_for_line osm2/log 'Entering MASTER' 60 || fail "OpenSM did not become MASTER alone"
wait_for_line osm2/log 'SUBNET UP' 60 || fail "OpenSM: no SUBNET UP"
mkdir -p b
plain_ibsm_conf b/ibsm.toml "$PWD/b"
start_plain_ibsm b "$node_b"
wait_until 60 eval '[[ $(ibsm_state b/control.sock) == STANDBY* ]]' ||
  fail "ibsm (defaults) did not settle in STANDBY beside OpenSM (defaults): status says '$(ibsm_state b/control.sock)'"
sleep 2
check_one_master "OpenSM first (on $node_a)" "$guid_a"
grep -q 'Entering STANDBY\|ERR 2F18' osm2/log && fail "OpenSM stepped down or refused ibsm: $(grep -E 'Entering|2F18' osm2/log)"
status_holds b/control.sock '.foreign_sm_reports == 0' ||
  fail "ibsm took OpenSM's default key for another: $(ibsm_status b/control.sock .foreign_sms)"
"$IBSM" status --socket b/control.sock 2>/dev/null | grep -qx 'foreign_sms: 0' ||
  fail "ibsm status lists a foreign SM beside OpenSM at its defaults"
stop_pid "$ibsm_pid" TERM 5 || fail "ibsm did not exit 0 on SIGTERM"

# 3. Another key: OpenSM cannot be authenticated, and ibsm says so.
mkdir -p c
printf '%s\n' '[sm]' "control_socket = \"$PWD/c/control.sock\"" 'sm_key = "0x2"' >c/ibsm.toml
keyed_pid=
SIM_HOST=$node_c "$IBSM" run -F c/ibsm.toml --state-dir c/state --log-file c/ibsm.log \
  >c/stdout 2>c/stderr &
keyed_pid=$!
osm_guid16=$(printf '%016x' "$guid_a")
osm="(.foreign_sms[] | select(.guid == \"0x$osm_guid16\"))"
if wait_for_status c/control.sock ".foreign_sm_reports >= 1 and $osm" 30; then
  line=$(ibsm_status c/control.sock "$osm | \"\\(.guid) is \\(.state), shows SM_Key \\(.sm_key)\"")
  echo "keyed ibsm: $line (reported $(ibsm_status c/control.sock .foreign_sm_reports) times)"
  # Of OpenSM's key only its kind is shown (issue 29: no key is printed):
  # OpenSM's default 0x1, or zero if OpenSM hides it from a stranger.
  status_holds c/control.sock "$osm | .state == \"MASTER\" and (.sm_key == \"default\" or .sm_key == \"zero\")" ||
    fail "ibsm does not give OpenSM's state and the kind of key it shows: $line"
  sleep 12 # later sweeps read OpenSM again: told once more at most, when we became master too
  told=$(ibsm_status c/control.sock .foreign_sm_reports)
  [[ $told -le 2 ]] || fail "SM-0115 told $told times about one SM"
  "$IBSM" status --socket c/control.sock 2>/dev/null | grep -qi "^foreign_sm: 0x$osm_guid16 MASTER " ||
    fail "ibsm status does not list OpenSM as a foreign SM:"$'\n'"$("$IBSM" status --socket c/control.sock 2>&1)"
else
  fail "ibsm with another SM_Key reported no foreign SM OpenSM ($guid_a) within 30 s"
fi
stop_pid "$keyed_pid" TERM 5
stop_pid "$opensm_pid" TERM 30 || fail "OpenSM did not stop on SIGTERM within 30 s"

finish "$(basename "$net" .net): ibsm and OpenSM at their defaults, both orders, one master; another key reported, $((SECONDS - start)) s" \
  a/ibsm.log b/ibsm.log c/ibsm.log osm1/log osm2/log
