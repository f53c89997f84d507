#!/usr/bin/env bash
# The fat trees as they are built (issue 14), one line each: what `ibsm route
# --engine auto` makes of every generated kind. Run it with the ibsm of
# another commit (--route-with) to compare engines on the same fabrics; the
# fabrics always come from this tree's generator.
#   scripts/ftree-kinds.sh [--ibsm BIN] [--route-with BIN] [--radix K] [--list]
# --list: the kinds, one "name|generator options" line each (without
# --radix), as scripts/apart-figures.sh reads them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ibsm=${BUILD_DIR:-$root/build}/sm/cli/ibsm
route_with=""
radix=12
list=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --ibsm) ibsm=$2; shift 2 ;;
    --route-with) route_with=$2; shift 2 ;;
    --radix) radix=$2; shift 2 ;;
    --list) list=1; shift ;;
    *) echo "usage: $0 [--ibsm BIN] [--route-with BIN] [--radix K] [--list]" >&2; exit 2 ;;
  esac
done
route_with=${route_with:-$ibsm}
half=$((radix / 2))
kinds=(
  "plain|--levels 3"
  "aggregation nodes, 3 levels|--levels 3 --aggregation-nodes"
  "aggregation nodes, 2 levels|--levels 2 --aggregation-nodes"
  "I/O hosts on the spines, 2 levels|--levels 2 --io-hosts 1:$half"
  "I/O hosts on the cores|--levels 3 --io-hosts 2:$half"
  "director pods 2|--levels 3 --director-pods 2"
  "rails $half|--levels 3 --rails $half"
  "rails + aggregation nodes + I/O on cores|--levels 3 --rails $half --aggregation-nodes --io-hosts 2:$half"
  "the same, 8 cables cut|--levels 3 --rails $half --aggregation-nodes --io-hosts 2:$half --degrade 8"
  "director pods 2 + rails + AN + I/O|--levels 3 --director-pods 2 --rails $half --aggregation-nodes --io-hosts 2:$half"
)
if ((list)); then printf '%s\n' "${kinds[@]}"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-45s %-7s %9s %24s %22s\n' "kind (radix $radix)" engine max/mean "CA->CA longer (stretch)" "apart: longer/pairs"
for k in "${kinds[@]}"; do
  name=${k%%|*}
  # shellcheck disable=SC2086
  "$ibsm" topo generate fat-tree --radix "$radix" ${k#*|} -o "$work/net" >/dev/null
  "$route_with" route --topology "$work/net" --engine auto --out "$work/out" >/dev/null 2>&1
  python3 - "$work/out/report.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
h, l = r["switchHops"], r["linkLoad"]
a = r.get("apartSwitchHops")
apart = f'{a["longerThanShortest"]}/{a["pairs"]}' if a and r.get("apartPorts") else "-"
longer = f'{h["longerThanShortest"]}/{h["pairs"]} ({h["meanStretch"]:.3f})'
print(f'{sys.argv[2]:<45} {r["engine"]:<7} {l["maxOverMean"]:>9.2f} {longer:>24} {apart:>22}')
PY
done
