#!/usr/bin/env bash
# Issue 33, live: on a fat tree with aggregation nodes and I/O hosts on the
# cores (fat-tree-3level-k8-rails4-an-io.net) ftree takes its second VL, whose
# SL2VL drops SL 0 at a down->up turn. The IPoIB broadcast group's tree must
# turn to reach an I/O host on a core, so the SA answers the group the SL
# every turn carries (SL 4): saquery -g reads it back. An I/O host, an
# aggregation node and compute hosts join by proxy (sa-client) and the MFTs,
# read with ibroute -M, pass mft-check.py.
#   mcast-tree-sl.sh path/to/ibsm path/to/sa-client (under run-with-ibsim.sh)
set -u
IBSM=${1:?usage: $0 path/to/ibsm path/to/sa-client}
CLIENT=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/run-checks.sh"
source "$here/mcast-lib.sh"
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
node_sm=${cas[0]} asker=${cas[1]}
sm_guid=$(node_port_guid "$node_sm")
dir=$PWD/ibsm
mkdir -p "$dir"
echo 'Default=0x7fff, ipoib : ALL=full;' >"$dir/partitions.conf"
printf '%s\n' '[sm]' "control_socket = \"$dir/control.sock\"" \
  "partitions_file = \"$dir/partitions.conf\"" 'sweep_interval = 5' >"$dir/ibsm.toml"
start_ibsm "$dir" "$node_sm" 0
stop_sm() { stop_pid "$ibsm_pid" TERM 10; }
wait_sminfo_master "$asker" "$sm_guid" 60 || fail "ibsm is not master after 60 s"
wait_until 60 lids_ready || fail "ports without a LID after 60 s"
bcast=ff12:401b:ffff::ffff:ffff

# The broadcast group's SL as the SA answers it.
sl_ok() {
  SIM_HOST=$asker quiet saquery -g >saquery-g.raw &&
    grep -qE '^[[:space:]]*SL\.+0x4$' saquery-g.raw
}
wait_until 30 sl_ok ||
  fail "saquery -g does not give the broadcast group SL 0x4:"$'\n'"$(grep -E 'MGID|SL' saquery-g.raw)"
echo "saquery -g: $(grep -E 'SL\.+' saquery-g.raw | tr -s ' .' ' ' | head -n 1) (the SL every turn carries)"

# The port GUID of CA NAME, from ibnetdiscover ("Ca ... # "NAME"", then "[1](guid)").
quiet ibnetdiscover >ibnet.txt
guid_of() {
  awk -v n="# \"$1\"" '/^Ca/ { hit = index($0, n) > 0; next }
    hit && /^\[1\]\(/ { g = $0; sub(/^\[1\]\(/, "", g); sub(/\).*/, "", g); print "0x" g; exit }' ibnet.txt
}
io=$(guid_of io2_0)
an=$(guid_of "Mellanox Technologies Aggregation Node core1")
members=("$io" "$an" "$(guid_of "${cas[2]}")" "$(guid_of "${cas[$((${#cas[@]} / 2))]}")")
mcast_join members.rec "$bcast" 0x1 "${members[@]}"

mft_ok() {
  read_mfts && python3 "$here/mft-check.py" --fabric fabric.txt --mfts mfts.txt \
    --members members.rec >check.out
}
if wait_until 30 mft_ok; then
  echo "an I/O host on a core, an aggregation node and 2 hosts in $bcast: $(tail -n 1 check.out)"
else
  fail "the MFTs are wrong after 30 s:"$'\n'"$(head -n 12 check.out)"
fi
stop_sm
finish "multicast on the SL every turn carries" "$dir/ibsm.log"
