#!/usr/bin/env bash
# The counter sweep's benchmark (issue 16): one ibsm master on a freshly
# started ibsim 3-level fat tree (bench/health/counter-scenario.sh), twice:
#   counters on (health.counter_interval 1 s): the first pass (every port
#     read: GMPs, time) and the second (AllPortSelect sums read first, the
#     ports of unchanged switches spared), then light sweeps asked with
#     `ibsm sweep` just as a pass starts (kept only when the daemon counts
#     the sweep as begun during a pass);
#   counters off: the same light sweeps with no pass at all.
# The light sweeps' median duration and SMPs side by side say what a pass
# running costs a sweep (the pass pauses while a sweep runs; only its
# window of outstanding GMPs shares the wire). ibsim answers PerfMgt itself.
#
#   scripts/bench-health.sh [--radix N] [--sweeps K] [--ibsm BINARY] [--keep DIR]
#
#   --radix N      fat-tree radix (default 24: 720 switches, 3456 CAs)
#   --sweeps K     light sweeps measured each way (default 5)
#   --ibsm BINARY  measure this ibsm instead of building one
#   --keep DIR     keep logs and results in DIR
#
# Builds ibsm (Release) in BUILD_DIR (default build-bench/) unless --ibsm.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"
scenario=$root/bench/health/counter-scenario.sh

radix=24 sweeps=5 only="" ibsm="" keep=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --sweeps) sweeps=$2; shift 2 ;;
    *) bench_option "$@"; shift "$bench_shift" ;;
  esac
done
bench_check on off
bench_positive "$sweeps"
if [[ -z $ibsm ]]; then
  bench_build ibsm
  ibsm=$build/sm/cli/ibsm
fi
[[ -x $ibsm ]] || { echo "$0: $ibsm is not an executable" >&2; exit 2; }
bench_workdir bench-health
bench_net

for run in on off; do
  [[ -z $only || $only == "$run" ]] || continue
  echo "== counters $run, radix $radix ($switches switches, $cas CAs)" >&2
  rm -rf "${work:?}/$run"
  "$harness" "${limits[@]}" "$net" -- "$scenario" "$work/$run" "$ibsm" \
    "$([[ $run == on ]] && echo 1 || echo 0)" "$sweeps" 2>"$work/$run.err" ||
    { echo "$0: the scenario failed; see $work/$run (use --keep)" >&2; tail -20 "$work/$run.err" >&2; }
done

get() { bench_get "$work/$1/results" "$2"; }
median() { [[ -r $work/$1/sweeps ]] && awk -v f="$2" '{ print $f }' "$work/$1/sweeps" | bench_median; }
per_smp() { awk -v ms="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.1f", 1000 * ms / n }'; }
echo "radix $radix: $switches switches, $cas CAs (ibsim; a shared 2-core machine, one run)"
printf '  %-44s %10s %10s %12s\n' "counter pass" GMPs ms "AllPortSel"
printf '  %-44s %10s %10s %12s\n' "first (every port read)" "$(get on pass1_gmps)" "$(get on pass1_ms)" \
  "$(get on after1_all_port_reads)"
printf '  %-44s %10s %10s %12s\n' "second (sums first)" "$(get on pass2_gmps)" "$(get on pass2_ms)" \
  "$(($(get on after2_all_port_reads) - $(get on after1_all_port_reads)))"
echo "  port reads: first pass $(get on after1_port_reads), second $(($(get on after2_port_reads) - $(get on after1_port_reads))), spared by the sums $(($(get on after2_spared) - $(get on after1_spared)))"
printf '  %-44s %10s %10s %12s\n' "light sweep (median of kept)" ms SMPs "us/SMP"
for run in off on; do
  ms=$(median "$run" 1) n=$(median "$run" 2)
  label="no counter pass"
  [[ $run == on ]] && label="begun during a counter pass"
  printf '  %-44s %10s %10s %12s\n' "$label ($(wc -l <"$work/$run/sweeps" 2>/dev/null || echo 0) kept)" \
    "${ms:--}" "${n:--}" "$(per_smp "${ms:-0}" "${n:-0}")"
done
echo "  counters on: $(get on total_gmps) GMPs in all, $(get on timeouts) timed out, $(get on sweep_tries) sweeps asked for $sweeps kept"
