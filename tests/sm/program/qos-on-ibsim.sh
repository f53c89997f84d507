#!/usr/bin/env bash
# Brings up the ibsim fabric with QoS tables on every port (ProgramOnIbsim
# --qos: SL s -> VL s % 4, SL 15 -> VL 15; low-priority VLArbitration VL 0-3
# weights 1-4 repeated; high-priority VL 1 weight 9) and reads them back the
# way an operator would, with smpquery: the SL2VL table of a CA port, of
# switch port 0 and of a switch external port, and the VLArbitration tables
# (IBA 14.2.5.9) of the CA port and the external port (smpquery shows none
# for a base switch port 0). ProgramOnIbsim itself fails when the second
# sweep sends any SMP: ibsim keeps what was written.
#
#   run-with-ibsim.sh NETFILE -- qos-on-ibsim.sh path/to/ProgramOnIbsim [ENGINE]
set -u
program=${1:?usage: $0 ProgramOnIbsim [ENGINE]}
engine=${2:-updn}
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

"$program" --engine "$engine" --qos || fail "ProgramOnIbsim --qos did not bring the fabric up"

topology=$(ibnetdiscover 2>/dev/null)
ca_lid=$(grep -E '^\[[0-9]+\]\(' <<<"$topology" | grep -oE '# lid [0-9]+' | grep -oE '[0-9]+$' | head -1)
sw_lid=$(grep -oE '^Switch.*base port 0 lid [0-9]+' <<<"$topology" | grep -oE '[0-9]+$' | head -1)
# The first cabled port of the first switch: the line after its "Switch" line.
sw_port=$(awk '/^Switch/ {s=1; next} s && /^\[[0-9]+\]/ {gsub(/[\[\]]/, "", $1); print $1; exit}' <<<"$topology")
[[ -n $ca_lid && -n $sw_lid && -n $sw_port ]] || fail "ibnetdiscover shows no LIDs:"$'\n'"$topology"

sl2vl_row='\| 0\| 1\| 2\| 3\| 0\| 1\| 2\| 3\| 0\| 1\| 2\| 3\| 0\| 1\| 2\|15\|'
check_sl2vl() {  # LID [PORT] ROWLABEL
  local out
  out=$(smpquery sl2vl "$1" ${2:+"$2"} 2>/dev/null)
  grep -qE "$3 *: *$sl2vl_row" <<<"$out" || fail "SL2VL of LID $1 ${2:-} ($3):"$'\n'"$out"
}
check_sl2vl "$ca_lid" "" 'ports: in  0, out  0'
check_sl2vl "$sw_lid" 0 'ports: in  0, out  0'
check_sl2vl "$sw_lid" "$sw_port" "ports: in  0, out +$sw_port"

check_vlarb() {  # LID [PORT]
  local out
  out=$(smpquery vlarb "$1" ${2:+"$2"} 2>/dev/null)
  grep -A2 'Low priority' <<<"$out" | grep -qE '^VL *: *\|0x0 \|0x1 \|0x2 \|0x3 \|0x0 ' &&
    grep -A2 'Low priority' <<<"$out" | grep -qE '^WEIGHT: *\|0x1 \|0x2 \|0x3 \|0x4 \|0x1 ' &&
    grep -A2 'High priority' <<<"$out" | grep -qE '^VL *: *\|0x1 \|0x0 ' &&
    grep -A2 'High priority' <<<"$out" | grep -qE '^WEIGHT: *\|0x9 \|0x0 ' ||
    fail "VLArbitration of LID $1 ${2:-}:"$'\n'"$out"
}
check_vlarb "$ca_lid"
check_vlarb "$sw_lid" "$sw_port"

echo "checked SL2VL and VLArbitration of CA LID $ca_lid, switch LID $sw_lid ports 0 and $sw_port; $failures failures"
[[ $failures -eq 0 ]]
