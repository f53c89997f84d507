#!/usr/bin/env bash
# Brings up the ibsim fabric this runs against with ProgramOnIbsim, then
# checks it the way an operator would, with infiniband-diags:
#   - every cabled link is Active (iblinkinfo);
#   - every port that carries a LID has one, and names the SM's LID as its
#     SM LID (ibnetdiscover, smpquery portinfo by LID);
#   - every LID answers a LID-routed SMP, which only works once every
#     switch on the way forwards it: the LFTs are right (smpquery nodeinfo);
#   - a restarted SM (a new process, empty table cache) reads the tables
#     and writes nothing.
# Run under run-with-ibsim.sh (it sets LD_PRELOAD for umad2sim):
#
#   run-with-ibsim.sh NETFILE -- program-on-ibsim.sh path/to/ProgramOnIbsim [ENGINE]
set -u
program=${1:?usage: $0 ProgramOnIbsim [ENGINE]}
engine=${2:-auto}
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

"$program" --engine "$engine" || fail "ProgramOnIbsim did not bring the fabric up"

links=$(iblinkinfo 2>/dev/null | grep '==(' | grep -v 'Down/ *Polling')
[[ -n $links ]] || fail "iblinkinfo shows no cabled link"
not_active=$(grep -v 'Active/' <<<"$links")
[[ -z $not_active ]] || fail "links not Active:"$'\n'"$not_active"

topology=$(ibnetdiscover 2>/dev/null)
# "Switch ... # "Switch1" base port 0 lid 1 lmc 0" and CA port lines "# lid 3 lmc 0 ...".
switch_lids=$(grep -oE '^Switch.*base port 0 lid [0-9]+' <<<"$topology" | grep -oE '[0-9]+$')
ca_lids=$(grep -E '^\[[0-9]+\]\(' <<<"$topology" | grep -oE '# lid [0-9]+' | grep -oE '[0-9]+$')
[[ -n $switch_lids && -n $ca_lids ]] || fail "ibnetdiscover shows no LIDs:"$'\n'"$topology"
grep -qE '(# lid 0 |base port 0 lid 0 )' <<<"$topology" && fail "a port still has LID 0"

sm_lid=$(smpquery portinfo -D 0 0 2>/dev/null | sed -n 's/^Lid:\.*\([0-9]*\)$/\1/p')
[[ -n $sm_lid && $sm_lid != 0 ]] || fail "the SM's port has no LID"
for lid in $switch_lids $ca_lids; do
  smpquery nodeinfo "$lid" >/dev/null 2>&1 || fail "LID $lid does not answer a LID-routed SMP"
  got=$(smpquery portinfo "$lid" 2>/dev/null | sed -n 's/^SMLid:\.*\([0-9]*\)$/\1/p')
  [[ $got == "$sm_lid" ]] || fail "LID $lid names SM LID '$got', not $sm_lid"
done

restart=$("$program" --engine "$engine" 2>&1)
grep -qE '^first sweep: .* [1-9][0-9]* blocks read, 0 written, 0 tops, 0 ports configured, 0 armed, 0 activated, 0 failed' \
  <<<"$restart" || fail "a restarted SM rewrote something:"$'\n'"$restart"

echo "checked $(wc -w <<<"$switch_lids $ca_lids") LIDs and $(wc -l <<<"$links") link ends; SM LID $sm_lid; $failures failures"
[[ $failures -eq 0 ]]
