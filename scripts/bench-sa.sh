#!/usr/bin/env bash
# The SA load benchmark (issue 12): OpenSM, then ibsm, as master on a freshly
# started ibsim 3-level fat tree; from another CA, tests/tools/sa-client sends
# PathRecord Gets to random CA port GIDs with the same window of outstanding
# queries to each (bench/sa/sa-scenario.sh). Prints answers per second and
# p50/p99 latency of both and the ratios, and the SM's peak resident memory
# (VmHWM) before and after the load: the growth is what answering cost (the
# whole process, routing tables included, is the "before"). An SM that does not answer (ibsm before
# its SA lands) is shown as not answering: no figure is made up for it.
#
#   scripts/bench-sa.sh [--radix N] [--window W] [--count N] [--seed S]
#                       [--only ibsm|opensm] [--ibsm BINARY] [--client BINARY] [--keep DIR]
#
#   --radix N        fat-tree radix (default 16: 320 switches, 1024 CAs)
#   --window W       PathRecord Gets outstanding (default 16)
#   --count N        PathRecord Gets sent (default 20000)
#   --seed S         seed of the random destinations (default 1)
#   --only SM        run one side only (the other column shows "-")
#   --ibsm BINARY    measure this ibsm instead of building one
#   --client BINARY  use this sa-client instead of building one
#   --keep DIR       keep logs and results in DIR
#
# Builds ibsm and sa-client (Release) in BUILD_DIR (default build-bench/) unless given.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
harness=$root/tests/sm/ibsim/run-with-ibsim.sh
scenario=$root/bench/sa/sa-scenario.sh

radix=16 window=16 count=20000 seed=1 only="" ibsm="" client="" keep=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --radix) radix=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --ibsm) ibsm=$(realpath "$2"); shift 2 ;;
    --client) client=$(realpath "$2"); shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
    *) echo "$0: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $radix =~ ^[0-9]+$ && $((radix % 2)) -eq 0 && $radix -ge 4 ]] ||
  { echo "$0: --radix $radix: expected an even number >= 4" >&2; exit 2; }
for n in "$window" "$count" "$seed"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$0: '$n': expected a positive number" >&2; exit 2; }
done
[[ -z $only || $only == ibsm || $only == opensm ]] || { echo "$0: --only ibsm|opensm" >&2; exit 2; }
command -v opensm >/dev/null || { echo "$0: opensm is not installed" >&2; exit 2; }

if [[ -z $ibsm || -z $client ]]; then
  echo "== building ibsm and sa-client (Release) in $build" >&2
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_BENCH=OFF >/dev/null
  ninja -C "$build" -j"$(nproc)" ibsm sa-client >&2
  [[ -n $ibsm ]] || ibsm=$build/sm/cli/ibsm
  [[ -n $client ]] || client=$build/tests/tools/sa-client
fi
[[ -x $ibsm && -x $client ]] || { echo "$0: $ibsm or $client is not an executable" >&2; exit 2; }

if [[ -n $keep ]]; then
  mkdir -p "$keep"
  work=$(realpath "$keep")
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bench-sa.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

net=$work/ft3-k$radix.net
"$ibsm" topo generate fat-tree --levels 3 --radix "$radix" -o "$net" >/dev/null
read -r switches cas < <(awk '/^Switch/ { s++ } /^(Hca|Ca)[ \t]/ { c++ } END { print s, c }' "$net")
read -r -a limits < <(awk '/^(Switch|Hca|Ca|Rt)[ \t]/ {n++; p+=$2; if ($1=="Switch") {s++; p++}}
                           END {printf "-N %d -S %d -P %d\n", n*2+64, s*2+64, p*2+256}' "$net")

sms=(opensm ibsm)
[[ -z $only ]] || sms=("$only")
for sm in "${sms[@]}"; do
  echo "== $sm on radix $radix (results as they come):" >&2
  rm -rf "${work:?}/$sm" && mkdir -p "$work/$sm"
  "$harness" "${limits[@]}" "$net" -- "$scenario" "$work/$sm" "$sm" "$ibsm" "$client" \
    "$window" "$count" "$seed" 2>"$work/$sm/scenario.err" ||
    { echo "$0: the $sm scenario failed; see $work/$sm (use --keep)" >&2; tail -5 "$work/$sm/scenario.err" >&2; }
  grep -E '^  [a-z_0-9]+ ' "$work/$sm/scenario.err" >&2 || true
done

get() { # SM key -> value ("" when that SM did not run)
  [[ -r $work/$1/results ]] || return 0
  awk -v k="$2" '$1 == k { print $2; exit }' "$work/$1/results"
}
shown() { # SM key: the value, "no answer" when the SM answered nothing, "-" when not run
  local v
  v=$(get "$1" "$2")
  if [[ $(get "$1" answers) == none && $2 != up_s && $2 != targets && $2 != hwm_before_kib ]]; then
    echo "no answer"
  else echo "${v:--}"; fi
}
row() { # label key [higher|lower]: ratio ibsm/OpenSM and the issue's target
  local a b
  a=$(shown ibsm "$2") b=$(shown opensm "$2")
  printf '  %-40s %12s %12s' "$1" "$a" "$b"
  if [[ -n ${3:-} && $a =~ ^[0-9.]+$ && $b =~ ^[0-9.]+$ ]] && awk -v b="$b" 'BEGIN { exit !(b > 0) }'; then
    awk -v a="$a" -v b="$b" -v w="$3" 'BEGIN { r = a / b; printf " %7.2f %s", r,
      (w == "higher" ? r >= 2 : r <= 0.5) ? "met" : "NOT met" }'
  fi
  echo
}
echo
echo "SA load, 3-level fat tree radix $radix ($switches switches, $cas CAs), fresh ibsim per SM;"
echo "PathRecord Gets (SGID, DGID, NumbPath 1) to random CA ports, $count sent, window $window, seed $seed"
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs)"
printf '  %-40s %12s %12s %7s %s\n' "" ibsm OpenSM ratio "(target: rate >= 2, p99 <= 0.50)"
row "subnet up after, s" up_s
row "answers per second" answers_per_s higher
row "latency p50, us" p50_us lower
row "latency p99, us" p99_us lower
row "answered" answers
row "  timeouts" timeouts
row "  errors" errors
row "SM VmHWM before the load, KiB" hwm_before_kib
row "SM VmHWM after the load, KiB" hwm_after_kib
row "  growth during the load (the SA's), KiB" hwm_growth_kib
if [[ $(get ibsm answers) == none ]]; then
  echo "ibsm does not answer PathRecord queries (ibsm has no SA yet; after the probe it $(get ibsm sm_after_probe))."
fi
[[ -z $keep ]] || echo "logs and results kept in $work"
