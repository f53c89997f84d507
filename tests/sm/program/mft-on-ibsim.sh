#!/usr/bin/env bash
# Programs multicast forwarding tables on the ibsim fabric this runs against
# with MftOnIbsim (bring-up, a moved tree, a quiet sweep), then reads every
# switch's MFT back with infiniband-diags (`ibroute -M`) and compares it
# with what MftOnIbsim planned, entry by entry: no entry missing, none extra.
# Run under run-with-ibsim.sh (it sets LD_PRELOAD for umad2sim):
#
#   run-with-ibsim.sh NETFILE -- mft-on-ibsim.sh path/to/MftOnIbsim [ENGINE]
set -u
program=${1:?usage: $0 MftOnIbsim [ENGINE]}
engine=${2:-auto}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

"$program" --engine "$engine" --expect "$work/expected" || fail "MftOnIbsim failed"
[[ -s $work/expected ]] || fail "MftOnIbsim planned no entry"

# "0xc000      x   x   " : after the MLID and six blanks, two characters per
# port from port 0, 'x' where the port is in the mask.
for lid in $(cut -d' ' -f1 "$work/expected" | sort -un); do
  ibroute -M "$lid" 2>/dev/null | awk -v lid="$lid" '/^0x[cC]/ {
      s = substr($0, 13); ports = ""
      for (i = 0; 2 * i < length(s); i++)
        if (substr(s, 2 * i + 1, 1) == "x") ports = ports (ports == "" ? "" : ",") i
      print lid, tolower($1), ports
    }' >>"$work/read" || fail "ibroute -M $lid failed"
done
sort "$work/expected" >"$work/expected.sorted"
sort "$work/read" >"$work/read.sorted"
diff "$work/expected.sorted" "$work/read.sorted" >"$work/diff" ||
  fail "MFTs read back differ from the plan (< planned, > read):"$'\n'"$(cat "$work/diff")"

echo "compared $(wc -l <"$work/expected") MFT entries; $failures failures"
[[ $failures -eq 0 ]]
