#!/usr/bin/env bash
# The running SM benchmark: ibsm and OpenSM side by side, each as a master
# with a standby of its own kind on a freshly started ibsim 3-level fat tree,
# through the same scenario (bench/bringup/sm-scenario.sh):
#   (a) light sweeps with nothing changed: the master's MADs per interval
#   (b) one spine cable pulled (Unlink): time from the Unlink to the master's
#       "up" (ibsm: its status's last_up_unix_ms; OpenSM: its SUBNET UP log
#       line) and the SMPs sent in between, then the tables checked (every
#       switch reaches every LID, no entry into the dead ports)
#   (c) the master killed (SIGKILL): time from the standby's detection (its
#       leaving STANDBY: ibsm's status recent_states, OpenSM's log) to its
#       "up" and to sminfo naming it, then links Active and every route checked
# MADs are counted for both SMs by one umad_send() wrapper (MadCount.cpp,
# with its per-MAD time-stamped trace). OpenSM gets max_wire_smps 64.
#
#   scripts/bench-sm.sh [--radix N] [--interval S] [--poll-ms MS] [--retries R]
#                       [--only ibsm|opensm] [--ibsm BINARY] [--keep DIR]
#
#   --radix N      fat-tree radix (default 24: 720 switches, 3456 CAs)
#   --interval S   light-sweep interval of both SMs, seconds (default 10)
#   --poll-ms MS   SM-to-SM polling timeout of both (default 1000)
#   --retries R    polls missed before the standby acts (default 2)
#   --only SM      run one side only (the other column shows "-")
#   --ibsm BINARY  measure this ibsm instead of building one
#   --keep DIR     keep logs, traces and results in DIR
#
# Builds ibsm (Release) in BUILD_DIR (default build-bench/) unless --ibsm.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
harness=$root/tests/sm/ibsim/run-with-ibsim.sh
scenario=$root/bench/bringup/sm-scenario.sh

radix=24 interval=10 poll_ms=1000 retries=2 only="" ibsm="" keep=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --radix) radix=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --poll-ms) poll_ms=$2; shift 2 ;;
    --retries) retries=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --ibsm) ibsm=$(realpath "$2"); shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
    *) echo "$0: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $radix =~ ^[0-9]+$ && $((radix % 2)) -eq 0 && $radix -ge 4 ]] ||
  { echo "$0: --radix $radix: expected an even number >= 4" >&2; exit 2; }
for n in "$interval" "$poll_ms" "$retries"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$0: '$n': expected a positive number" >&2; exit 2; }
done
[[ -z $only || $only == ibsm || $only == opensm ]] || { echo "$0: --only ibsm|opensm" >&2; exit 2; }
command -v opensm >/dev/null || { echo "$0: opensm is not installed" >&2; exit 2; }

if [[ -z $ibsm ]]; then
  echo "== building ibsm (Release) in $build" >&2
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_BENCH=OFF >/dev/null
  ninja -C "$build" -j"$(nproc)" ibsm >&2
  ibsm=$build/sm/cli/ibsm
fi
[[ -x $ibsm ]] || { echo "$0: $ibsm is not an executable" >&2; exit 2; }
madcount=$build/bench-sm/madcount.so
mkdir -p "$(dirname "$madcount")"
if [[ ! $madcount -nt $root/bench/bringup/MadCount.cpp ]]; then
  g++ -std=c++20 -O2 -fPIC -shared -Wall -Wextra -Werror \
    "$root/bench/bringup/MadCount.cpp" -o "$madcount" -ldl -libumad
fi

if [[ -n $keep ]]; then
  mkdir -p "$keep"
  work=$(realpath "$keep")
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bench-sm.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

net=$work/ft3-k$radix.net
"$ibsm" topo generate fat-tree --levels 3 --radix "$radix" -o "$net" >/dev/null
read -r switches cas < <(awk '/^Switch/ { s++ } /^(Hca|Ca)[ \t]/ { c++ } END { print s, c }' "$net")
# ibsim's default limits hold 256 switches; raise them with room to spare.
read -r -a limits < <(awk '/^(Switch|Hca|Ca|Rt)[ \t]/ {n++; p+=$2; if ($1=="Switch") {s++; p++}}
                           END {printf "-N %d -S %d -P %d\n", n*2+64, s*2+64, p*2+256}' "$net")
spine=core0 port=1 # a core-to-aggregation cable

sms=(ibsm opensm)
[[ -z $only ]] || sms=("$only")
for sm in "${sms[@]}"; do
  echo "== $sm on radix $radix (results as they come):" >&2
  rm -rf "${work:?}/$sm" && mkdir -p "$work/$sm" # OpenSM appends to an old log
  "$harness" "${limits[@]}" "$net" -- "$scenario" "$work/$sm" "$sm" "$madcount" "$ibsm" \
    "$interval" "$poll_ms" "$retries" "$spine" "$port" 2>"$work/$sm/scenario.err" ||
    { echo "$0: the $sm scenario failed; see $work/$sm (use --keep)" >&2; tail -20 "$work/$sm/scenario.err" >&2; }
  grep -E '^  [a-z_]+ ' "$work/$sm/scenario.err" >&2 || true
done

get() { # SM key -> value ("" when that SM did not run)
  [[ -r $work/$1/results ]] || return 0
  awk -v k="$2" '$1 == k { print $2; exit }' "$work/$1/results"
}
row() { # label key [ratio]
  local a b
  a=$(get ibsm "$2") b=$(get opensm "$2")
  printf '  %-56s %10s %10s' "$1" "${a:--}" "${b:--}"
  if [[ ${3:-} == ratio && $a =~ ^[0-9.]+$ && $b =~ ^[0-9.]+$ ]] && awk -v b="$b" 'BEGIN { exit !(b > 0) }'; then
    awk -v a="$a" -v b="$b" 'BEGIN { printf " %7.2f %s", a / b, a <= b / 2 ? "met" : "NOT met" }'
  fi
  echo
}
echo
echo "Running SM, 3-level fat tree radix $radix ($switches switches, $cas CAs), fresh ibsim per SM;"
echo "light sweeps every $interval s, SM-to-SM polling $poll_ms ms x $retries retries, OpenSM max_wire_smps 64"
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs)"
printf '  %-56s %10s %10s %7s %s\n' "" ibsm OpenSM ratio "(target <= 0.50)"
row "bring-up of the master, ms" bringup_ms
row "(a) light sweep, no change: MADs per interval" quiet_per_interval ratio
row "(b) Unlink $spine[$port] to up line, ms" reroute_ms ratio
row "    SMPs sent in between" reroute_mads ratio
row "    CPU s of the SM and the simulator" reroute_cpu_s ratio
row "    of which LFT blocks written" reroute_lft_blocks
row "    routes verified (walk, nothing into dead ports)" reroute_verified
row "(c) failover: detection to the new master's up line, ms" failover_up_ms ratio
row "    detection to sminfo naming it (tool latency in), ms" failover_sminfo_ms ratio
row "    SMPs sent in between" failover_mads ratio
row "    CPU s of the SM and the simulator (from the kill)" failover_cpu_s ratio
row "    (master killed to detection, ms)" failover_detect_ms
row "    links Active, routes verified" failover_verified
echo
echo "MADs by method:attribute (hex):"
for key in quiet_detail reroute_detail failover_detail; do
  for sm in ibsm opensm; do
    d=$(get "$sm" "$key")
    [[ -z $d ]] || echo "  $key $sm: ${d//,/ }"
  done
done
[[ -z $keep ]] || echo "logs, traces and results kept in $work"
