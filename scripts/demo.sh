#!/usr/bin/env bash
# The main job on an embedded default: install what is missing, build, start
# ibsim on a bundled fabric (a 3-level radix-8 fat tree: 80 switches, 128
# hosts), bring it up with `ibsm run --once`, show what infiniband-diags see
# afterwards, and stop the simulator. On a host with a real HCA, run
# `ibsm run` directly instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=Release -DIBSM_TESTS=OFF -DIBSM_BENCH=OFF
export IBSM="${BUILD_DIR:-$root/build}/sm/cli/ibsm"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$IBSM" topo generate fat-tree --levels 3 --radix 8 -o "$work/fabric.net"

cat >"$work/main-job.sh" <<'JOB'
#!/usr/bin/env bash
set -u
state=$(mktemp -d)
echo "== ibsm run --once"
"$IBSM" run --once --state-dir "$state" --log-level warn
rc=$?
echo "== what the fabric looks like now (infiniband-diags)"
ibnetdiscover >"$state/topology" 2>/dev/null
echo "nodes: $(grep -cE '^(Switch|Ca)' "$state/topology")" \
  "(switches: $(grep -c '^Switch' "$state/topology"), CAs: $(grep -c '^Ca' "$state/topology"))"
echo "CA ports with a LID: $(grep -cE '^\[[0-9]+\]\([0-9a-f]+\).*# lid [1-9]' "$state/topology")"
links=$(iblinkinfo 2>/dev/null | grep -c '==(')
active=$(iblinkinfo 2>/dev/null | grep '==(' | grep -c 'Active')
echo "switch ports with a link: $links, Active: $active"
echo "switch LIDs: $(grep -oE 'base port 0 lid [0-9]+' "$state/topology" | awk '{print $5}' | sort -n | tr '\n' ' ' | cut -c1-80)..."
rm -rf "$state"
exit $rc
JOB
chmod +x "$work/main-job.sh"
"$root/tests/sm/ibsim/run-with-ibsim.sh" "$work/fabric.net" -- "$work/main-job.sh"
