#!/usr/bin/env bash
# ibsm master, OpenSM standby, then ibsm stops and OpenSM takes over. ibsm
# (priority 10) brings the fabric up from the net file's first CA; OpenSM
# (priority 5, polling every second, 2 retries) starts on the last CA. It
# must settle in STANDBY and program nothing: its log never says MASTER or
# SUBNET UP, sminfo (asked from a third CA) keeps naming ibsm, and the LIDs
# and LFTs stay as ibsm wrote them. SIGTERM stops ibsm with exit 0; within
# 20 s sminfo names OpenSM's port as the master, OpenSM says SUBNET UP, every
# LID is the one ibsm gave, every link Active and every switch reaches every
# LID (a walk through dump_fts).
#
#   run-with-ibsim.sh NETFILE -- failover-opensm-standby.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
mapfile -t cas < <(net_cas "$net")
node_a=${cas[0]} node_b=${cas[-1]} asker=${cas[${#cas[@]} / 2]}
guid_a=$(node_port_guid "$node_a")
guid_b=$(node_port_guid "$node_b")

mkdir -p a osm
ibsm_conf a/ibsm.toml "$PWD/a" 1000 2 10
opensm_conf osm/opensm.conf 1000 2 10
start_ibsm a "$node_a" 10
ibsm_pid_a=$ibsm_pid
wait_for_status a/control.sock .up 60 || fail "ibsm: the subnet is not up within 60 s"
wait_sminfo_master "$asker" "$guid_a" 5 || fail "sminfo does not name ibsm ($guid_a): $(sminfo_from "$asker")"
quiet ibnetdiscover | ibnetdiscover_lids >before.lids
quiet dump_fts | lft_entries >before.lft

start_opensm osm "$node_b" 5
wait_for_line osm/log 'Entering STANDBY' 20 || fail "OpenSM did not enter STANDBY within 20 s"
sleep 4 # several polls of the master by the standby
read -r g l s < <(sminfo_from "$asker")
echo "with OpenSM standby, sminfo from \"$asker\": $g lid $l $s"
[[ -n ${g:-} && $((g)) -eq $((guid_a)) && $s == SMINFO_MASTER ]] ||
  fail "sminfo no longer names ibsm ($guid_a) master: ${g:-nothing} $s"
grep -qE 'Entering MASTER|SUBNET UP' osm/log && fail "the standby OpenSM acted as master:"$'\n'"$(grep -E 'Entering|SUBNET' osm/log)"
seen=$(ibsm_status a/control.sock '.sms[] | select(.state == "STANDBY") | "\(.guid) priority \(.priority) \(.state)"')
[[ -n $seen ]] && echo "ibsm saw it: $seen"
quiet ibnetdiscover | ibnetdiscover_lids >standby.lids
quiet dump_fts | lft_entries >standby.lft
diff -q before.lids standby.lids >/dev/null || fail "LIDs changed with OpenSM standby:"$'\n'"$(diff before.lids standby.lids | head)"
diff -q before.lft standby.lft >/dev/null || fail "LFTs changed with OpenSM standby:"$'\n'"$(diff before.lft standby.lft | head)"

stopped=$SECONDS
stop_pid "$ibsm_pid_a" TERM 5
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm exited $rc after SIGTERM"
if wait_sminfo_master "$asker" "$guid_b" 20; then
  echo "sminfo names OpenSM ($guid_b) master $((SECONDS - stopped)) s after ibsm stopped"
  wait_for_line_since osm/log 0 'Entering MASTER' 1 || fail "OpenSM's log does not say it became MASTER"
  wait_until 20 eval "awk '/Entering MASTER/ { m = 1 } m && /SUBNET UP/ { up = 1 } END { exit !up }' osm/log" ||
    fail "OpenSM did not report SUBNET UP after taking over"
  quiet ibnetdiscover | ibnetdiscover_lids >after.lids
  diff -q before.lids after.lids >/dev/null ||
    fail "LIDs changed in the failover:"$'\n'"$(diff before.lids after.lids | head)"
  check_links_active "$net"
  check_all_pairs_walk
else
  fail "sminfo does not name OpenSM ($guid_b) master 20 s after ibsm stopped: $(sminfo_from "$asker")"
fi
stop_pid "$opensm_pid" TERM 30 || fail "OpenSM did not stop on SIGTERM within 30 s"

finish "$(basename "$net" .net): ibsm master, OpenSM standby, failover, $((SECONDS - start)) s" a/ibsm.log osm/log
