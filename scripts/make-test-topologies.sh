#!/usr/bin/env bash
# Makes the sample fabrics of tests/data/topologies, the files the tests read:
#
#   1. the net files, with `ibsm topo generate` (the parameters are in the
#      table below); two-switch-dual-port-hcas.net is written by hand and
#      only read here;
#   2. one ibnetdiscover capture of each net file, recorded on ibsim after
#      OpenSM (`opensm -o`, its defaults, fresh cache) brought the fabric up,
#      so a capture carries LIDs as a capture of a real cluster does. OpenSM,
#      not ibsm, so the captures do not depend on the code they test; some
#      expectations name the LIDs OpenSM gave. The line with the date
#      (`# Topology file: generated on ...`) is left out, so that two runs
#      write the same bytes.
#
# The generator has no way to make one cable narrower than the others, so the
# slow link of fat-tree-2level-k12-trunk2-slowlink is made here: the script
# marks the cable leaf0 port 10 - spine1 port 2 of the generated trunk tree
# 1x wide (`w=1` at both ends, which ibsim trains to 1x).
#
#   scripts/make-test-topologies.sh [--ibsm PATH] [--out DIR]
#
# --ibsm: the ibsm binary (default: build/sm/cli/ibsm, or $IBSM).
# --out: write into DIR instead of tests/data/topologies (then compare with
#        `diff -r`; two runs write the same bytes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ibsm=${IBSM:-$root/build/sm/cli/ibsm}
out=$root/tests/data/topologies
while [[ $# -gt 0 ]]; do
  case $1 in
    --ibsm) ibsm=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--ibsm PATH] [--out DIR]" >&2; exit 2 ;;
  esac
done
[[ -x $ibsm ]] || { echo "$0: no ibsm at $ibsm (build it, or pass --ibsm)" >&2; exit 2; }
for tool in ibsim opensm ibnetdiscover; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed" >&2; exit 2; }
done
out=$(mkdir -p "$out" && cd "$out" && pwd)
harness=$root/tests/sm/ibsim/run-with-ibsim.sh
handmade=$root/tests/data/topologies/two-switch-dual-port-hcas.net

# name: arguments of `ibsm topo generate`. degraded6 uses seed 7, the first
# seed whose cut has the shape of the earlier hand-made sample: 3 edge-agg and
# 3 agg-core cables, no switch losing two.
generated=(
  "fat-tree-3level-k8: fat-tree --levels 3 --radix 8"
  "fat-tree-3level-k8-degraded6: fat-tree --levels 3 --radix 8 --degrade 6 --seed 7"
  "fat-tree-2level-k12-trunk2-slowlink: fat-tree --levels 2 --radix 12 --trunk 2"
  "fat-tree-3level-k8-rails4-an-io: fat-tree --levels 3 --radix 8 --rails 4 --aggregation-nodes --io-hosts 2:4"
  "fat-tree-3level-k8-director1: fat-tree --levels 3 --radix 8 --director-pods 1"
  "dragonfly-a4-p2-h2: dragonfly -a 4 -p 2 -H 2"
  "dragonfly-plus-5groups: dragonfly-plus --groups 5 --leaves 2 --spines 2 --hosts-per-leaf 2 --global-per-spine 2"
)

echo "== net files"
for entry in "${generated[@]}"; do
  name=${entry%%:*}
  read -r -a args <<<"${entry#*:}"
  "$ibsm" topo generate "${args[@]}" -o "$out/$name.net"
  echo "$name.net: ibsm topo generate ${args[*]}"
done
# The slow link: both ends of one cable of the first trunk pair.
slow=$out/fat-tree-2level-k12-trunk2-slowlink.net
awk '/^(Switch|Hca)/ {node = $NF}
     (node == "\"spine1\"" && $1 == "[2]") || (node == "\"leaf0\"" && $1 == "[10]") {
       $0 = $0 "\tw=1"; marked++
     }
     {print}
     END {if (marked != 2) exit 1}' "$slow" >"$slow.tmp" ||
  { echo "$0: the slow cable leaf0[10] - spine1[2] is not in $slow" >&2; exit 1; }
mv "$slow.tmp" "$slow"
echo "fat-tree-2level-k12-trunk2-slowlink.net: leaf0[10] - spine1[2] marked w=1"
[[ $handmade -ef $out/two-switch-dual-port-hcas.net ]] || cp "$handmade" "$out/"

echo "== captures (OpenSM brings each fabric up, then ibnetdiscover)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/capture.sh" <<'CAPTURE'
#!/usr/bin/env bash
# Runs under run-with-ibsim.sh: OpenSM once, then ibnetdiscover from the
# first node; both print to files in a scratch directory, shown on failure.
set -euo pipefail
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
OSM_TMP_DIR=$state OSM_CACHE_DIR=$state opensm -o -f "$state/log" >"$state/stdout" 2>&1 ||
  { tail -20 "$state/log" >&2; exit 1; }
grep -q 'SUBNET UP' "$state/log" || { echo "OpenSM did not bring the subnet up" >&2; exit 1; }
ibnetdiscover >"$state/capture" 2>"$state/stderr" || { cat "$state/stderr" >&2; exit 1; }
grep -v '^# Topology file: generated on ' "$state/capture" >"$1"
CAPTURE
chmod +x "$work/capture.sh"
for net in "$out"/*.net; do
  capture=${net%.net}.ibnetdiscover
  "$harness" "$net" -- "$work/capture.sh" "$capture.tmp"
  mv "$capture.tmp" "$capture"
  echo "$(basename "$capture"): $(grep -c '^Switch' "$capture") switches," \
    "$(grep -c '^Ca' "$capture") CAs"
done

echo "== written by script"
# A director as ibdiagnet writes its chips: no net file, ibsim would give
# every chip the chassis' GUID.
"$root/scripts/make-director-capture.py" >"$out/director-ibdiagnet.ibnetdiscover"
echo "director-ibdiagnet.ibnetdiscover: scripts/make-director-capture.py"
