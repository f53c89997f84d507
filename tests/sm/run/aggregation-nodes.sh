#!/usr/bin/env bash
# A furnished fat tree (`ibsm topo generate fat-tree ... --aggregation-nodes
# --io-hosts 2:4 --rails 4`) brought up by `ibsm run --once` as the master,
# then judged by infiniband-diags as a real Switch-IB 2 / Quantum fabric:
#   - ibnetdiscover shows on the last port of every switch a 1-port CA named
#     "Mellanox Technologies Aggregation Node <switch>", and the I/O hosts
#     io2_<n> on port 9 of core<n>;
#   - smpquery nodeinfo, asked by LID, gives each aggregation node the
#     SystemImageGUID of its switch, which is the net file's sysimgguid= for
#     that switch and not the switch's node GUID.
#
#   run-with-ibsim.sh fat-tree-3level-k8-rails4-an-io.net -- aggregation-nodes.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
an="Mellanox Technologies Aggregation Node"

"$IBSM" run --once --state-dir state --log-file ibsm.log --stats stats.json >verdict.txt 2>stderr.txt ||
  fail "ibsm run --once exited $?:"$'\n'"$(cat stderr.txt)"
stats_hold stats.json '.exit.reason == "up" and .up' ||
  fail "ibsm did not end with the subnet up: $(stats stats.json .exit)"

# ibnetdiscover -> tab-separated lines: "switch NAME PORTS LID IMAGE" per
# switch, "port NAME PORT FAR FAR_PORT FAR_LID" per cabled switch port, "ca
# NAME IMAGE" per CA (IMAGE: the SystemImageGUID ibnetdiscover read).
quiet ibnetdiscover >ibnetdiscover.txt
awk -F'"' -v OFS='\t' '
  function lid(s) { sub(/.* lid /, "", s); sub(/ .*/, "", s); return s }
  /^sysimgguid=/ { image = $0; sub(/^sysimgguid=/, "", image); next }
  /^Switch/ { split($1, h, /[ \t]+/); name = $4; print "switch", name, h[2], lid($5), image; next }
  /^Ca/ { name = ""; print "ca", $4, image; next }
  name != "" && /^\[[0-9]+\]/ { p = $1; gsub(/[^0-9]/, "", p); fp = $3; sub(/^\[/, "", fp); sub(/\].*/, "", fp)
                              print "port", name, p, $4, fp, lid($5) }' ibnetdiscover.txt >fabric.txt

# The system image GUID the net file gives the switch NAME.
net_image() { awk -v n="\"$1\"" '/^sysimgguid=/ { g = $0; sub(/^sysimgguid=/, "", g) }
  /^Switch/ && $NF == n { print g }' "$net"; }
# "FAR FAR_PORT FAR_LID" at the end of the cable from switch NAME port PORT (tab-separated).
far_end() { awk -F'\t' -v n="$1" -v p="$2" -v OFS='\t' '$1 == "port" && $2 == n && $3 == p { print $4, $5, $6 }' fabric.txt; }
system_guid() { quiet smpquery nodeinfo "$1" | sed -n 's/^SystemGuid:\.*//p'; }

switches=0
while IFS=$'\t' read -r kind name ports lid image; do
  [[ $kind == switch ]] || continue
  switches=$((switches + 1))
  IFS=$'\t' read -r far far_port far_lid < <(far_end "$name" "$ports")
  [[ ${far:-} == "$an $name" && ${far_port:-} == 1 ]] ||
    { fail "${name}[$ports] (its last port) leads to \"${far:-}\"[${far_port:-}], not to \"$an $name\"[1]"; continue; }
  expected=$(net_image "$name")
  sw_image=$(system_guid "$lid")
  an_image=$(system_guid "$far_lid")
  [[ -n $expected && -n $sw_image && -n $an_image && $((sw_image)) -eq $((expected)) &&
    $((an_image)) -eq $((expected)) ]] ||
    fail "SystemImageGUID of $name (LID $lid) is '$sw_image', of its aggregation node (LID $far_lid) '$an_image'; the net file says '$expected'"
  [[ $((image)) -eq $((expected)) ]] || fail "ibnetdiscover gives $name sysimgguid=$image, not $expected"
  grep -qiF "switchguid=$expected(" ibnetdiscover.txt && fail "$name's image GUID $expected is a node GUID"
done <fabric.txt
[[ $switches -gt 0 && $switches -eq $(grep -c '^Switch' "$net") ]] ||
  fail "ibnetdiscover shows $switches switches, the net file has $(grep -c '^Switch' "$net")"
ans=$(grep -c "^ca"$'\t'"$an " fabric.txt)
[[ $ans -eq $switches ]] || fail "ibnetdiscover shows $ans aggregation nodes for $switches switches"
echo "$switches switches, each with its aggregation node on its last port, sharing its SystemImageGUID"

for n in 0 1 2 3; do
  IFS=$'\t' read -r far far_port _ < <(far_end "core$n" 9)
  [[ ${far:-} == "io2_$n" && ${far_port:-} == 1 ]] ||
    fail "core${n}[9] leads to \"${far:-}\"[${far_port:-}], not to \"io2_$n\"[1]"
done

finish "aggregation nodes and I/O hosts on $(basename "$net")" ibsm.log
