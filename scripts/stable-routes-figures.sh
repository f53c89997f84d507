#!/usr/bin/env bash
# Routes under change (issue 15), one line per fabric, engine and lost cable:
# what the dry run moves when it routes from the tables held (`ibsm route
# --previous`, as the live SM does) against the minimum and a fresh run.
#   moved     LFT blocks that differ from the tables before (what the live SM writes)
#   crossing  blocks holding an entry whose path crossed the lost cable (only
#             those can need a change: the bound `moved` must stay within)
#   fresh     blocks a fresh computation would move (--rebalance, OpenSM's way)
#   busiest   busiest link after, routes: kept tables / fresh tables
#   how       kept, or fresh-fallback (why in report.json)
#
#   scripts/stable-routes-figures.sh [--ibsm BIN] [--radix24]
# --radix24 adds the 3-level radix-24 tree (720 switches; ~10 s per engine).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ibsm=${BUILD_DIR:-$root/build}/sm/cli/ibsm
big=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --ibsm) ibsm=$2; shift 2 ;;
    --radix24) big=1; shift ;;
    *) echo "usage: $0 [--ibsm BIN] [--radix24]" >&2; exit 2 ;;
  esac
done
[[ -x $ibsm ]] || { echo "$0: $ibsm is not built (scripts/build.sh)" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }
# shellcheck source=tests/sm/run/run-checks.sh
source "$root/tests/sm/run/run-checks.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
topo=$root/tests/data/topologies
"$ibsm" topo generate fat-tree --levels 3 --radix 12 -o "$work/ft-r12.net" >/dev/null
# NAME|NET|SWITCH|PORT|ENGINES
cases=(
  "fat tree k8, core cable|$topo/fat-tree-3level-k8.net|core0|1|ftree updn minhop"
  "fat tree k8, edge cable|$topo/fat-tree-3level-k8.net|edge3_1|5|ftree updn minhop"
  "fat tree k8 6 cut, core cable|$topo/fat-tree-3level-k8-degraded6.net|core0|2|ftree updn minhop"
  "fat tree r12, core cable|$work/ft-r12.net|core0|1|ftree updn minhop"
  "dragonfly a4 p2 h2, global|$topo/dragonfly-a4-p2-h2.net|g0r0|6|dragonfly updn minhop"
  "dragonfly a4 p2 h2, local|$topo/dragonfly-a4-p2-h2.net|g0r0|3|dragonfly updn minhop"
)
if [[ -n $big ]]; then
  "$ibsm" topo generate fat-tree --levels 3 --radix 24 -o "$work/ft-r24.net" >/dev/null
  cases+=("fat tree r24, core cable|$work/ft-r24.net|core0|1|ftree updn minhop")
fi
printf '%-32s %-10s %7s %9s %7s %15s  %s\n' "fabric, lost cable" engine moved crossing fresh "busiest kept/fr" how
n=0
for c in "${cases[@]}"; do
  IFS='|' read -r name net sw port engines <<<"$c"
  n=$((n + 1))
  net_without_cable "$net" "$sw" "$port" >"$work/cut$n.net"
  for e in $engines; do
    d=$work/$n-$e
    "$ibsm" route -t "$net" -R "$e" -o "$d-before" >/dev/null 2>&1
    for how in kept fresh; do
      extra=()
      [[ $how == fresh ]] && extra=(--rebalance)
      "$ibsm" route -t "$work/cut$n.net" -R "$e" --guid2lid "$d-before/guid2lid" \
        --previous "$d-before/opensm-lfts.dump" --previous-topology "$net" "${extra[@]}" \
        -o "$d-$how" >/dev/null 2>&1
    done
    k=$d-kept/report.json f=$d-fresh/report.json
    printf '%-32s %-10s %7s %9s %7s %15s  %s\n' "$name" "$(jq -r .engine "$k")" \
      "$(jq .previous.blocks.differ "$k")" "$(jq .previous.blocksRerouted "$k")" \
      "$(jq .previous.blocks.differ "$f")" "$(jq .linkLoad.max "$k")/$(jq .linkLoad.max "$f")" \
      "$(jq -r .previous.routedAs "$k")"
  done
done
