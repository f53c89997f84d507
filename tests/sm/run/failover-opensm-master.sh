#!/usr/bin/env bash
# OpenSM master, ibsm standby, then OpenSM dies and ibsm takes over without
# disturbing the fabric. OpenSM (priority 10) brings the fabric up from the
# net file's first CA; ibsm (priority 5, polling every second, 2 retries)
# starts on the last CA and must settle in STANDBY: `ibsm status` says so
# and names OpenSM's port as the master, sminfo (asked from a third CA)
# names OpenSM, and nothing on the fabric changes. OpenSM is then killed
# (SIGKILL, by PID: a dead host); within 20 s ibsm's status must count the
# master's polls missed, a takeover, a turn as MASTER, and say the subnet is
# up, with every LID as OpenSM gave it (ibnetdiscover
# before and after), every link Active, every switch reaching every LID (a
# walk through dump_fts) and ibtracert arriving. SIGTERM ends ibsm with 0.
#
#   run-with-ibsim.sh NETFILE -- failover-opensm-master.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
mapfile -t cas < <(net_cas "$net")
node_a=${cas[0]} node_b=${cas[-1]} asker=${cas[${#cas[@]} / 2]}
guid_a=$(node_port_guid "$node_a")
guid_b=$(node_port_guid "$node_b")

mkdir -p osm b
opensm_conf osm/opensm.conf 1000 2 10
ibsm_conf b/ibsm.toml "$PWD/b" 1000 2 10
start_opensm osm "$node_a" 10
wait_for_line osm/log 'SUBNET UP' 30 || fail "OpenSM: no SUBNET UP within 30 s"
quiet ibnetdiscover | ibnetdiscover_lids >before.lids
quiet dump_fts | lft_entries >before.lft

start_ibsm b "$node_b" 5
sock=b/control.sock
if wait_for_status $sock '.state == "STANDBY"' 30; then
  sleep 3 # a few polls of the master
  state=$(ibsm_state $sock)
  master=$(ibsm_status $sock .master)
  echo "ibsm standby: status says '$state', master $master"
  [[ $state == STANDBY* ]] || fail "ibsm status says '$state', expected STANDBY"
  [[ $master != null && $((master)) -eq $((guid_a)) ]] ||
    fail "ibsm does not name OpenSM's port $guid_a as the master: $master"
  status_holds $sock '.times_master == 0' && status_holds $sock '.sweeps_by_kind | .heavy + .takeover == 0' ||
    fail "ibsm was MASTER while OpenSM ran: $(ibsm_status_json $sock | stats_summary)"
  # Issue 27: the standby shows OpenSM's subnet as it sees it, never a bare "up: no".
  view='.master_view | .state == "MASTER" and .priority == 10 and .fabric_up and .ports_active > 0'
  status_holds $sock "$view" || fail "the standby's master_view is not OpenSM's up subnet: $(ibsm_status_json $sock | jq -c .master_view)"
  echo "ibsm standby: $(env -u LD_PRELOAD "$IBSM" status --socket $sock | grep '^up:')"
else
  fail "ibsm did not turn STANDBY within 30 s"
fi
read -r g l s < <(sminfo_from "$asker")
[[ -n ${g:-} && $((g)) -eq $((guid_a)) && $s == SMINFO_MASTER ]] ||
  fail "sminfo from \"$asker\" does not name OpenSM ($guid_a) master: ${g:-nothing} ${s:-}"
quiet ibnetdiscover | ibnetdiscover_lids >standby.lids
quiet dump_fts | lft_entries >standby.lft
diff -q before.lids standby.lids >/dev/null || fail "LIDs changed with ibsm standby:"$'\n'"$(diff before.lids standby.lids | head)"
diff -q before.lft standby.lft >/dev/null || fail "LFTs changed with ibsm standby:"$'\n'"$(diff before.lft standby.lft | head)"

killed=$SECONDS
stop_pid "$opensm_pid" KILL 5
if wait_for_status $sock '.state == "MASTER" and .up' 20; then
  echo "ibsm up as master $((SECONDS - killed)) s after OpenSM was killed:"
  ibsm_status $sock '"  \(.missed_polls) polls missed, \(.sweeps_by_kind.takeover) takeover, \(.times_master) times master, first up after \(.first_up_ms) ms"'
  for counted in '.missed_polls >= 1' '.sweeps_by_kind.takeover >= 1' '.times_master >= 1'; do
    status_holds $sock "$counted" || fail "ibsm's status does not say '$counted' after OpenSM died"
  done
  wait_sminfo_master "$asker" "$guid_b" 5 || fail "sminfo does not name ibsm ($guid_b): $(sminfo_from "$asker")"
  quiet ibnetdiscover | ibnetdiscover_lids >after.lids
  diff -q before.lids after.lids >/dev/null ||
    fail "LIDs changed in the take-over:"$'\n'"$(diff before.lids after.lids | head)"
  cp after.lids ibnetdiscover.lids
  check_links_active "$net"
  check_all_pairs_walk
  check_traces
  [[ $(ibsm_state b/control.sock) == MASTER* ]] || fail "ibsm status does not say MASTER: $(ibsm_state b/control.sock)"
else
  fail "ibsm did not take over (MASTER, subnet up) within 20 s of OpenSM's death"
fi
stop_pid "$ibsm_pid" TERM 5
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm exited $rc after SIGTERM"

finish "$(basename "$net" .net): OpenSM master, ibsm standby, take-over, $((SECONDS - start)) s" b/ibsm.log osm/log
