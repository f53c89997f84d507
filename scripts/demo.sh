#!/usr/bin/env bash
# The main job on an embedded default: install what is missing, build, and
# route a bundled fabric (a 3-level radix-8 fat tree with 6 cables cut)
# offline, printing the quality report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=Release -DIBSM_TESTS=OFF -DIBSM_BENCH=OFF
ibsm="${BUILD_DIR:-$root/build}/sm/cli/ibsm"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$ibsm" topo generate fat-tree --levels 3 --radix 8 --degrade 6 --seed 1 -o "$work/fabric.net"
"$ibsm" route --topology "$work/fabric.net" --engine auto --out "$work/out"
echo
echo "dumps written by the dry run:"
ls -l "$work/out"
