#!/usr/bin/env bash
# PKey SMPs of ibsm and OpenSM, side by side, given the same partitions.conf
# on a generated 3-level fat tree: on the first sweep (start to subnet up)
# and after a one-partition change (the file edited, then SIGHUP, both SMs).
#
#   scripts/bench-partitions.sh [--radix N] [--ibsm BINARY] [--keep DIR]
#
#   --radix N       fat-tree radix (default 24: 720 switches, 3456 CAs)
#   --ibsm BINARY   measure this ibsm instead of building one
#   --keep DIR      keep logs, traces and the net file in DIR
#
# The partitions: 'Default' (ALL limited, SELF full), 'mix' (two CAs full,
# two limited, by GUID), 'storage' (ALL_CAS=limited), 'mgmt' (two CAs by
# GUID). The change swaps one 'mgmt' member for another CA. Each SM runs as a
# daemon on its own fresh ibsim (OpenSM: `opensm -P FILE`, fresh cache dir,
# max_wire_smps 64); MADs are counted by bench/bringup/MadCount.cpp's trace
# (every umad_send(): method and attribute), PKeyTable is attribute 0x16.
# "Blocks changed" is what the change needs at least: the ports whose
# planned table differs (`ibsm partitions` before and after), one 32-entry
# block each here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
self=$(realpath "$0") # the harness runs it again from another directory
harness=$root/tests/sm/ibsim/run-with-ibsim.sh

# --- inside the simulator: one SM, one scenario ----------------------------
if [[ ${1:-} == --inner ]]; then
  kind=$2 d=$3 madcount=$4 IBSM=$5
  source "$root/tests/sm/run/run-checks.sh"
  cd "$d"
  mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
  g=()
  for i in 1 2 9 17 33 34 50; do g+=("$(node_port_guid "${cas[$i]}")"); done
  cat >parts.conf <<CONF
Default=0x7fff : ALL, SELF=full ;
mix=0x0a0a, ipoib, mtu=5 : ${g[0]}=full, ${g[1]}=limited, ${g[2]}=full, ${g[3]}=limited ;
storage=0x0b0b : ALL_CAS=limited ;
mgmt=0x0c0c : ${g[4]}, ${g[5]} ;
CONF
  quiet ibnetdiscover >fabric.topo
  smguid=$(node_port_guid "${cas[0]}")
  "$IBSM" partitions --topology fabric.topo --partitions parts.conf --sm-guid "$smguid" \
    | sed -nE 's/^  ("[^"]+"\[[0-9]+\]) .*: (0x.*)$/\1 \2/p' | sort >before.tables
  : >trace
  export MADCOUNT_TRACE=$d/trace MADCOUNT_OUT=$d/mads
  if [[ $kind == ibsm ]]; then
    printf '[sm]\nsweep_interval = 0\ncontrol_socket = "%s/control.sock"\n' "$d" >ibsm.toml
    SIM_HOST=${cas[0]} LD_PRELOAD="$madcount:$LD_PRELOAD" "$IBSM" run -F ibsm.toml \
      --partitions parts.conf --state-dir state -f log >stdout 2>stderr &
  else
    printf 'max_wire_smps 64\nmax_wire_smps2 64\nsweep_interval 0\nforce_log_flush TRUE\n' >opensm.conf
    SIM_HOST=${cas[0]} OSM_TMP_DIR=$d/state OSM_CACHE_DIR=$d/state LD_PRELOAD="$madcount:$LD_PRELOAD" \
      opensm -F opensm.conf -f log -P parts.conf >stdout 2>&1 &
  fi
  pid=$!
  mkdir -p state
  # ibsm: its status says up; OpenSM: its log's SUBNET UP.
  is_up() { if [[ $kind == ibsm ]]; then status_holds "$d/control.sock" .up; else grep -q 'SUBNET UP' log; fi; }
  wait_until 600 is_up || { echo "$kind: not up within 600 s" >&2; kill "$pid"; exit 1; }
  # Quiet: no MAD for 3 s (OpenSM keeps configuring after SUBNET UP).
  settle() {
    local n=-1 m
    while m=$(wc -l <trace) && [[ $m != "$n" ]]; do n=$m; sleep 3; done
  }
  settle
  pkeys() { tail -n +$(($1 + 1)) trace | awk -v m="$2" '$2 == m && $3 == "0x0016"' | wc -l; }
  echo "first $(pkeys 0 0x01) $(pkeys 0 0x02) $(wc -l <trace)" >counts
  sed -i "s/${g[5]}/${g[6]}/" parts.conf
  "$IBSM" partitions --topology fabric.topo --partitions parts.conf --sm-guid "$smguid" \
    | sed -nE 's/^  ("[^"]+"\[[0-9]+\]) .*: (0x.*)$/\1 \2/p' | sort >after.tables
  echo "changed $(comm -13 before.tables after.tables | wc -l)" >>counts
  mark=$(wc -l <trace)
  kill -HUP "$pid"
  sleep 2
  settle
  echo "change $(pkeys "$mark" 0x01) $(pkeys "$mark" 0x02) $(($(wc -l <trace) - mark))" >>counts
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  exit 0
fi

radix=24
ibsm=""
keep=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --radix) radix=$2; shift 2 ;;
    --ibsm) ibsm=$(realpath "$2"); shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
    *) echo "$0: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $radix =~ ^[0-9]+$ && $((radix % 2)) -eq 0 && $radix -ge 4 ]] ||
  { echo "$0: --radix $radix: expected an even number >= 4" >&2; exit 2; }
command -v opensm >/dev/null || { echo "$0: opensm is not installed" >&2; exit 2; }

build=${BUILD_DIR:-$root/build-bench}
if [[ -z $ibsm ]]; then
  echo "== building ibsm (Release) in $build" >&2
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_BENCH=OFF >/dev/null
  ninja -C "$build" -j1 ibsm >&2
  ibsm=$build/sm/cli/ibsm
fi
madcount=$build/bench-bringup/madcount.so
mkdir -p "$(dirname "$madcount")"
if [[ ! $madcount -nt $root/bench/bringup/MadCount.cpp ]]; then
  g++ -std=c++20 -O2 -fPIC -shared -Wall -Wextra -Werror \
    "$root/bench/bringup/MadCount.cpp" -o "$madcount" -ldl -libumad
fi
if [[ -n $keep ]]; then
  mkdir -p "$keep"
  work=$(realpath "$keep")
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bench-partitions.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

net=$work/ft3-k$radix.net
"$ibsm" topo generate fat-tree --levels 3 --radix "$radix" -o "$net" >/dev/null
limits=$(awk '/^(Switch|Hca|Ca|Rt)[ \t]/ {n++; p+=$2; if ($1=="Switch") {s++; p++}}
              END {printf "-N %d -S %d -P %d", n*2+64, s*2+64, p*2+256}' "$net")
for kind in ibsm opensm; do
  d=$work/$kind
  rm -rf "$d"
  mkdir -p "$d"
  echo "== $kind on the radix-$radix fat tree" >&2
  # shellcheck disable=SC2086
  "$harness" $limits "$net" -- "$self" --inner "$kind" "$d" "$madcount" "$ibsm" >"$d/harness.out" 2>&1 ||
    { echo "$0: $kind failed; see $d (use --keep)" >&2; tail -5 "$d/harness.out" >&2; exit 1; }
done

read -r _ ig is it < <(grep '^first' "$work/ibsm/counts")
read -r _ og os ot < <(grep '^first' "$work/opensm/counts")
read -r _ changed < <(grep '^changed' "$work/ibsm/counts")
read -r _ icg ics ict < <(grep '^change ' "$work/ibsm/counts")
read -r _ ocg ocs oct < <(grep '^change ' "$work/opensm/counts")
printf '\nPKey SMPs (PKeyTable 0x16) on the radix-%s 3-level fat tree\n' "$radix"
printf '  %-34s %12s %12s\n' "" ibsm OpenSM
printf '  %-34s %12s %12s\n' "first sweep: Get PKeyTable" "$ig" "$og"
printf '  %-34s %12s %12s\n' "first sweep: Set PKeyTable" "$is" "$os"
printf '  %-34s %12s %12s\n' "first sweep: all MADs" "$it" "$ot"
printf '  %-34s %12s %12s\n' "one-partition change: Get" "$icg" "$ocg"
printf '  %-34s %12s %12s\n' "one-partition change: Set" "$ics" "$ocs"
printf '  %-34s %12s %12s\n' "one-partition change: all MADs" "$ict" "$oct"
printf '  blocks the change needs (planned tables that differ): %s\n' "$changed"
