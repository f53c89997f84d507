#!/usr/bin/env bash
# Bring-up benchmark: time from start to "subnet up" of `ibsm run --once`
# and of `opensm -o`, side by side, each on a freshly started ibsim with an
# empty state directory, on 3-level fat trees of the given radices.
#
#   scripts/bench-bringup.sh [--radix N...] [--repeat R] [--ibsm-config FILE] [--ibsm BINARY]
#                            [--bare-count N] [--keep DIR]
#
#   --radix N...        fat-tree radices (default: 8 16 24); the last is the headline
#   --repeat R          runs of each SM per radix, alternating (default 3); medians shown
#   --ibsm-config FILE  TOML for ibsm (default: none, i.e. built-in defaults)
#   --ibsm BINARY       measure this ibsm instead of building one (e.g. a branch's build)
#   --bare-count N      SMPs the bare client sends per run (default 200000)
#   --keep DIR          keep logs and net files in DIR (default: a temporary directory)
#
# Time to up, less the wall clock taken just before the SM was started: for
# ibsm from its --stats file (the wall clock it started at plus first_up_ms,
# the time from its start to the subnet up), for OpenSM from the time stamp
# of its "SUBNET UP" log line. MADs are counted by one LD_PRELOAD wrapper of
# umad_send() (bench/bringup/MadCount.cpp) for both SMs, so both are
# counted the same way; ibsm's own count (mads_sent) is shown beside it.
# ibsm's per-phase table comes from the counters of its last heavy sweep.
# CPU seconds (the SM's user + system time, plus the simulator's while the
# SM ran) are printed too: on a shared machine wall time moves with the
# load (2x between runs is common), CPU time much less.
# CPU microseconds per SMP: the SM's CPU seconds of the whole run over the
# SMPs it sent, beside the same for a bare libibumad client
# (bench/bringup/BareSmpClient.cpp: N one-hop directed-route
# SubnGet(NodeInfo), window 64, nothing else) run on the same fabric, under
# the same umad2sim, counted by the same wrapper, alternating with the SMs:
# the floor any SM could reach on this transport. The simulator's CPU per
# SMP during each is shown beside it.
# OpenSM gets `max_wire_smps 64` and `max_wire_smps2 64` (its default of 4
# is ~2.5x slower) and its default routing engine (minhop).
#
# Builds ibsm (Release) in BUILD_DIR (default build-bench/) first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
harness=$root/tests/sm/ibsim/run-with-ibsim.sh
runner=$root/bench/bringup/run-sm.sh

radices=()
repeat=3
ibsm_config=""
ibsm=""
keep=""
bare_count=200000
while [[ $# -gt 0 ]]; do
  case $1 in
    --radix)
      shift
      while [[ $# -gt 0 && $1 != --* ]]; do
        IFS=, read -ra more <<<"$1"
        radices+=("${more[@]}")
        shift
      done
      ;;
    --repeat) repeat=$2; shift 2 ;;
    --ibsm-config) ibsm_config=$(realpath "$2"); shift 2 ;;
    --ibsm) ibsm=$(realpath "$2"); shift 2 ;;
    --bare-count) bare_count=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
    *) echo "$0: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ ${#radices[@]} -gt 0 ]] || radices=(8 16 24)
for r in "${radices[@]}"; do
  [[ $r =~ ^[0-9]+$ && $((r % 2)) -eq 0 && $r -ge 4 ]] || {
    echo "$0: --radix $r: expected an even number >= 4" >&2
    exit 2
  }
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "$0: --repeat $repeat: expected >= 1" >&2; exit 2; }
[[ $bare_count =~ ^[1-9][0-9]*$ ]] || {
  echo "$0: --bare-count $bare_count: expected >= 1" >&2
  exit 2
}
command -v opensm >/dev/null || { echo "$0: opensm is not installed" >&2; exit 2; }

# --- build ---------------------------------------------------------------
if [[ -z $ibsm ]]; then
  echo "== building ibsm (Release) in $build" >&2
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_BENCH=OFF >/dev/null
  ninja -C "$build" -j"$(nproc)" ibsm >&2
  ibsm=$build/sm/cli/ibsm
fi
[[ -x $ibsm ]] || { echo "$0: $ibsm is not an executable" >&2; exit 2; }
madcount=$build/bench-bringup/madcount.so
mkdir -p "$(dirname "$madcount")"
if [[ ! $madcount -nt $root/bench/bringup/MadCount.cpp ]]; then
  g++ -std=c++20 -O2 -fPIC -shared -Wall -Wextra -Werror \
    "$root/bench/bringup/MadCount.cpp" -o "$madcount" -ldl -libumad
fi
bare=$build/bench-bringup/bare_smp_client
if [[ ! $bare -nt $root/bench/bringup/BareSmpClient.cpp ]]; then
  g++ -std=c++20 -O2 -Wall -Wextra -Werror \
    "$root/bench/bringup/BareSmpClient.cpp" -o "$bare" -libumad
fi

if [[ -n $keep ]]; then
  mkdir -p "$keep"
  work=$(realpath "$keep")
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bench-bringup.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

# --- helpers -------------------------------------------------------------
stats() { jq -r "$2" "$1"; } # --stats file, jq filter -> value
opensm_stamp_ns() { # "Dec 02 17:46:17 304010 [..] ..." -> ns
  local mon day hms usec
  read -r mon day hms usec _ <<<"$1"
  echo $(($(date -d "$mon $day $hms" +%s) * 1000000000 + 10#$usec * 1000))
}
ms_between() { echo $((($2 - $1) / 1000000)); } # start_ns end_ns -> ms
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
field() { awk -v k="$2" '$0 ~ "^" k " " {print $NF}' "$1"; } # madcount file, key -> count
secs() { awk -v m="$1" 'BEGIN {printf "%.2f", m / 1000}'; }
per_smp() { awk -v s="$1" -v n="$2" 'BEGIN {printf "%.2f", (n > 0 ? s * 1e6 / n : 0)}'; } # CPU s, SMPs -> us

# Runs one SM on a fresh simulator; sets run_ms (start to up) and run_mads.
run_one() { # kind radix index
  local kind=$1 radix=$2 i=$3 net=$work/ft3-k$2.net
  local d=$work/k$radix-$kind-$i
  rm -rf "$d"
  mkdir -p "$d/state"
  local limits
  limits=$(awk '/^(Switch|Hca|Ca|Rt)[ \t]/ {n++; p+=$2; if ($1=="Switch") {s++; p++}}
                END {printf "-N %d -S %d -P %d", n*2+64, s*2+64, p*2+256}' "$net")
  local cmd
  if [[ $kind == bare ]]; then
    cmd=("$bare" --count "$bare_count" --window 64)
  elif [[ $kind == ibsm ]]; then
    cmd=("$ibsm" run --once --state-dir "$d/state" -f "$d/log" --stats "$d/stats.json")
    [[ -z $ibsm_config ]] || cmd+=(-F "$ibsm_config")
  else
    printf 'max_wire_smps 64\nmax_wire_smps2 64\n' >"$d/opensm.conf"
    cmd=(env OSM_TMP_DIR="$d/state" OSM_CACHE_DIR="$d/state"
      opensm -F "$d/opensm.conf" -f "$d/log" -o)
  fi
  # shellcheck disable=SC2086
  if ! "$harness" $limits "$net" -- "$runner" "$d" "$madcount" "${cmd[@]}" \
    >"$d/harness.out" 2>&1; then
    echo "$0: $kind on radix $radix failed; see $d (use --keep)" >&2
    tail -5 "$d/log" "$d/stderr" "$d/harness.out" >&2 2>/dev/null || true
    return 1
  fi
  local start up
  start=$(cat "$d/start_ns")
  if [[ $kind == bare ]]; then
    run_ms=$(awk '{printf "%d", $1 * 1000}' "$d/times")
  elif [[ $kind == ibsm ]]; then
    up=$(stats "$d/stats.json" 'select(.up) | .started_unix_ms + .first_up_ms') &&
      [[ -n $up ]] || { echo "$0: ibsm did not come up ($d/stats.json)" >&2; return 1; }
    run_ms=$(ms_between "$start" $((up * 1000000)))
  else
    up=$(grep -m1 -- '-> SUBNET UP' "$d/log") || { echo "$0: no SUBNET UP in $d/log" >&2; return 1; }
    run_ms=$(ms_between "$start" "$(opensm_stamp_ns "$up")")
  fi
  run_mads=$(field "$d/mads" requests)
  run_cpu=$(awk '{printf "%.2f", $2 + $3}' "$d/times")
  run_sim=$(awk '{printf "%.2f", $1 + $2}' "$d/sim_cpu")
  last_dir=$d
}

# ibsm's phases of one run, as "what ms MADs" rows, from the counters of its
# last heavy sweep (on a fresh fabric the only one): discovery, plan and each
# programming phase time themselves; start-up is from exec to the daemon's
# start, and the rest (assembly, the other SMs' SMInfo, the verdict) is what
# is left of the time to up.
ibsm_phases() { # dir
  local d=$1 s=$1/stats.json
  local start t0 up_ms startup total rest sweeps
  start=$(cat "$d/start_ns")
  t0=$(($(stats "$s" .started_unix_ms) * 1000000))
  startup=$(ms_between "$start" "$t0")
  up_ms=$(stats "$s" .first_up_ms)
  total=$((startup + up_ms))
  sweeps=$(stats "$s" '.sweeps_by_kind.heavy + .sweeps_by_kind.takeover')
  row() { printf '  %-40s %8.0f %8s\n' "$1" "$2" "$3"; }
  printf '  %-40s %8s %8s\n' "phase" "ms" "MADs"
  row "start-up (exec to the daemon's start)" "$startup" -
  row "discovery: SMPs" "$(stats "$s" '.last_heavy.counters.discovery.duration_us / 1000')" \
    "$(stats "$s" .last_heavy.counters.discovery.mads)"
  row "plan: LIDs + routing" "$(stats "$s" '.last_heavy.counters.plan_us / 1000')" -
  # One line per programming phase, in programming order.
  stats "$s" '.last_heavy.counters.phases | to_entries[] | "\(.key) \(.value.duration_us / 1000) \(.value.sent)"' |
    while read -r name ms sent; do row "programming: $name" "$ms" "$sent"; done
  rest=$(stats "$s" "$up_ms - (.last_heavy.counters | (.discovery.duration_us + .plan_us + .program_us) / 1000)")
  row "rest (assembly, SMInfo, verdict)" "$rest" -
  printf '  %-40s %8d %8s   (%d sweep%s; the route walk runs beside programming)\n' \
    "total (start to subnet up)" "$total" "$(field "$d/mads" requests)" \
    "$sweeps" "$([[ $sweeps == 1 ]] || echo s)"
}

opensm_phases() { # dir
  local d=$1 log=$1/log start
  start=$(cat "$d/start_ns")
  local line
  for what in 'Entering DISCOVERING' 'Entering MASTER' 'tables configured on all switches' \
    'SUBNET UP'; do
    line=$(grep -m1 -- "$what" "$log") || continue
    printf '  %-34s %8d\n' "$what" "$(ms_between "$start" "$(opensm_stamp_ns "$line")")"
  done
}

# --- runs ----------------------------------------------------------------
# Per SM and radix: median wall ms, SM CPU s, simulator CPU s; last MAD count.
declare -A wall cpu sim mads runs nodes_of last logmads us_smp sim_us_smp
for radix in "${radices[@]}"; do
  net=$work/ft3-k$radix.net
  "$ibsm" topo generate fat-tree --levels 3 --radix "$radix" -o "$net" >/dev/null
  nodes_of[$radix]=$(grep -cE '^(Switch|Hca|Ca)[[:space:]]' "$net")
  declare -A ms_list=() cpu_list=() sim_list=() us_list=() sim_us_list=()
  for ((i = 1; i <= repeat; i++)); do
    for sm in ibsm opensm bare; do # alternating, so all see the same load
      echo "== radix $radix run $i/$repeat: $sm" >&2
      run_one "$sm" "$radix" "$i"
      ms_list[$sm]+="$run_ms "
      cpu_list[$sm]+="$run_cpu "
      sim_list[$sm]+="$run_sim "
      us_list[$sm]+="$(per_smp "$run_cpu" "$run_mads") "
      sim_us_list[$sm]+="$(per_smp "$run_sim" "$run_mads") "
      mads[$sm,$radix]=$run_mads
      last[$sm,$radix]=$last_dir
      echo "   ${run_ms} ms to up, SM CPU ${run_cpu} s, simulator CPU ${run_sim} s, $run_mads MADs" >&2
    done
  done
  for sm in ibsm opensm bare; do
    wall[$sm,$radix]=$(echo "${ms_list[$sm]}" | median)
    cpu[$sm,$radix]=$(echo "${cpu_list[$sm]}" | median)
    sim[$sm,$radix]=$(echo "${sim_list[$sm]}" | median)
    runs[$sm,$radix]=${ms_list[$sm]% }
    us_smp[$sm,$radix]=$(echo "${us_list[$sm]}" | median)
    sim_us_smp[$sm,$radix]=$(echo "${sim_us_list[$sm]}" | median)
  done
  logmads[$radix]=$(stats "${last[ibsm,$radix]}/stats.json" .mads_sent)
done

# --- report --------------------------------------------------------------
head=${radices[-1]}
echo
echo "Bring-up, 3-level fat tree radix $head (${nodes_of[$head]} nodes), fresh ibsim per run,"
echo "median of $repeat alternating runs (load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs):"
printf '  %-16s %9s %8s %9s %8s   %s\n' "" "to up (s)" "SM CPU" "sim CPU" "MADs" "runs (ms)"
for sm in ibsm opensm; do
  label=$([[ $sm == ibsm ]] && echo "ibsm run --once" || echo "opensm -o")
  printf '  %-16s %9s %8s %9s %8s   %s\n' "$label" "$(secs "${wall[$sm,$head]}")" \
    "${cpu[$sm,$head]}" "${sim[$sm,$head]}" "${mads[$sm,$head]}" "${runs[$sm,$head]}"
done
echo "  (ibsm's own count, mads_sent of its --stats: ${logmads[$head]} MADs)"
awk -v a="${wall[ibsm,$head]}" -v b="${wall[opensm,$head]}" \
  -v ca="${cpu[ibsm,$head]}" -v sa="${sim[ibsm,$head]}" \
  -v cb="${cpu[opensm,$head]}" -v sb="${sim[opensm,$head]}" 'BEGIN {
    printf "  ratio ibsm/OpenSM, time to up: %.2f (issue 32 target <= 0.25: %s)\n", a / b,
      a <= b / 4 ? "met" : "NOT met"
    printf "  ratio ibsm/OpenSM, CPU of SM + simulator: %.2f (%.2f s vs %.2f s)\n",
      (ca + sa) / (cb + sb), ca + sa, cb + sb
  }'

echo
echo "CPU per SMP, radix $head (medians; CPU of the whole run over the SMPs sent, retries included):"
printf '  %-34s %8s %8s %10s %12s %12s\n' "" "SMPs" "CPU s" "sim CPU s" "CPU us/SMP" "sim us/SMP"
for sm in ibsm opensm bare; do
  case $sm in
    ibsm) label="ibsm run --once" ;;
    opensm) label="opensm -o" ;;
    bare) label="bare libibumad client (window 64)" ;;
  esac
  printf '  %-34s %8s %8s %10s %12s %12s\n' "$label" "${mads[$sm,$head]}" "${cpu[$sm,$head]}" \
    "${sim[$sm,$head]}" "${us_smp[$sm,$head]}" "${sim_us_smp[$sm,$head]}"
done
awk -v a="${us_smp[ibsm,$head]}" -v o="${us_smp[opensm,$head]}" -v b="${us_smp[bare,$head]}" 'BEGIN {
    printf "  ibsm over the bare client: %.2f us/SMP more (%.2fx); OpenSM: %.2fx the bare client\n",
      a - b, (b > 0 ? a / b : 0), (b > 0 ? o / b : 0)
  }'
echo "  (the SMs' CPU includes all their other work: routing, planning, logging, start-up)"

echo
echo "All sizes (medians; time from start to subnet up; MADs the SM sent, retries included):"
printf '  %5s %6s | %8s %7s %7s | %8s %7s %7s | %6s %6s\n' radix nodes "ibsm ms" "CPU s" MADs \
  "OpenSM" "CPU s" MADs "time" "CPU"
for radix in "${radices[@]}"; do
  awk -v r="$radix" -v n="${nodes_of[$radix]}" \
    -v a="${wall[ibsm,$radix]}" -v ac="${cpu[ibsm,$radix]}" -v as="${sim[ibsm,$radix]}" \
    -v am="${mads[ibsm,$radix]}" \
    -v b="${wall[opensm,$radix]}" -v bc="${cpu[opensm,$radix]}" -v bs="${sim[opensm,$radix]}" \
    -v bm="${mads[opensm,$radix]}" 'BEGIN {
      printf "  %5d %6d | %8d %7.2f %7d | %8d %7.2f %7d | %6.2f %6.2f\n",
        r, n, a, ac + as, am, b, bc + bs, bm, a / b, (ac + as) / (bc + bs)
    }'
done
echo "  (CPU s: the SM's user + system time plus the simulator's while the SM ran)"

echo
echo "ibsm per phase, radix $head (last run):"
ibsm_phases "${last[ibsm,$head]}"
echo
echo "OpenSM landmarks, radix $head (last run, ms since start):"
opensm_phases "${last[opensm,$head]}"
echo
echo "SMPs by attribute, radix $head (last run):"
join -a1 -a2 -e0 -o 0,1.2,2.2 \
  <(grep -vE '^(requests|responses|received) ' "${last[ibsm,$head]}/mads" |
    awk '{print $1 "_" $2, $3}' | sort) \
  <(grep -vE '^(requests|responses|received) ' "${last[opensm,$head]}/mads" |
    awk '{print $1 "_" $2, $3}' | sort) |
  awk 'BEGIN {printf "  %-30s %8s %8s\n", "method attribute", "ibsm", "OpenSM"}
       {sub("_", " ", $1); printf "  %-30s %8d %8d\n", $1, $2, $3}'
[[ -z $keep ]] || echo "logs kept in $work"
