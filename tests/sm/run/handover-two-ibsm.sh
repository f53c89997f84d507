#!/usr/bin/env bash
# Two ibsm instances: a better one started later takes the fabric over by
# handover, without moving a LID. ibsm A (priority 5, first CA of the net
# file) brings the fabric up as master; ibsm B (priority 10, last CA) starts
# after. Within 30 s: A logs the handover to B's port (SM-0104) and turns
# STANDBY (SM-0101), B logs MASTER (SM-0101) and subnet up; `ibsm status`
# agrees for both, sminfo (asked from a third CA) names B, every LID is as
# A gave it, every link Active and every switch reaches every LID. Both stop
# with exit 0 on SIGTERM.
#
#   run-with-ibsim.sh NETFILE -- handover-two-ibsm.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
mapfile -t cas < <(net_cas "$net")
node_a=${cas[0]} node_b=${cas[-1]} asker=${cas[${#cas[@]} / 2]}
guid_a=$(node_port_guid "$node_a")
guid_b=$(node_port_guid "$node_b")

mkdir -p a b
ibsm_conf a/ibsm.toml "$PWD/a" 1000 2 10
ibsm_conf b/ibsm.toml "$PWD/b" 1000 2 10
start_ibsm a "$node_a" 5
pid_a=$ibsm_pid
wait_for_line a/ibsm.log 'SM-0001 subnet up' 60 || fail "ibsm A: no SM-0001 subnet up within 60 s"
wait_sminfo_master "$asker" "$guid_a" 5 || fail "sminfo does not name A ($guid_a): $(sminfo_from "$asker")"
quiet ibnetdiscover | ibnetdiscover_lids >before.lids

mark_a=$(wc -l <a/ibsm.log)
started_b=$SECONDS
start_ibsm b "$node_b" 10
pid_b=$ibsm_pid
if wait_sminfo_master "$asker" "$guid_b" 30 &&
  wait_for_line_since a/ibsm.log "$mark_a" 'SM-0101 state STANDBY' 10; then
  echo "handed over $((SECONDS - started_b)) s after B started:"
  { log_since a/ibsm.log "$mark_a" | grep -oE 'SM-010[0-9] .*' | sed 's/^/  A: /'
    grep -oE 'SM-010[0-9] .*|SM-0001 .*' b/ibsm.log | sed 's/^/  B: /'; } | head -20
  log_since a/ibsm.log "$mark_a" | grep -qE "SM-0104 handing over to (0x)?0*${guid_b#0x}" ||
    fail "A's log does not say SM-0104 handing over to $guid_b"
  grep -q 'SM-0101 state MASTER' b/ibsm.log || fail "B's log does not say SM-0101 state MASTER"
  wait_for_line b/ibsm.log 'SM-0001 subnet up' 20 || fail "B: no SM-0001 subnet up after the handover"
  [[ $(ibsm_state b/control.sock) == MASTER* ]] || fail "B's status: '$(ibsm_state b/control.sock)', expected MASTER"
  [[ $(ibsm_state a/control.sock) == STANDBY* ]] || fail "A's status: '$(ibsm_state a/control.sock)', expected STANDBY"
  quiet ibnetdiscover | ibnetdiscover_lids >after.lids
  diff -q before.lids after.lids >/dev/null ||
    fail "LIDs changed in the handover:"$'\n'"$(diff before.lids after.lids | head)"
  check_links_active "$net"
  check_all_pairs_walk
else
  fail "no handover to B ($guid_b) within 30 s; sminfo: $(sminfo_from "$asker")"
fi
for who in a b; do
  pid=pid_$who
  stop_pid "${!pid}" TERM 5
  rc=$?
  [[ $rc -eq 0 ]] || fail "ibsm ${who^^} exited $rc after SIGTERM"
done

finish "$(basename "$net" .net): handover from ibsm A to B, $((SECONDS - start)) s" a/ibsm.log b/ibsm.log
