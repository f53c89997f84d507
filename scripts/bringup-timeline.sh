#!/usr/bin/env bash
# Timeline of one ibsm bring-up on a fresh ibsim: what sets the pace.
#
#   scripts/bringup-timeline.sh [--radix N] [--ibsm BINARY] [--ibsm-config FILE]
#                               [--bin-ms MS] [--keep DIR]
#
#   --radix N           3-level fat tree radix (default 24)
#   --ibsm BINARY       the ibsm to run (default: build/sm/cli/ibsm)
#   --ibsm-config FILE  TOML for ibsm (default: built-in defaults)
#   --bin-ms MS         width of one row of the timeline (default 10)
#   --keep DIR          keep the trace, samples, log and bins in DIR
#
# Runs `ibsm run --once` under the MAD counter (bench/bringup/MadCount.cpp)
# with every SMP sent and every answer read traced with its time, and the
# SM's and the simulator's CPU ticks sampled every ~10 ms
# (bench/bringup/run-sm.sh, CPU_SAMPLES). Prints, per part of the bring-up
# (start-up, discovery, plan, each programming phase, from the log's
# DISC-0101 and PROG-0301 lines; "gap" for time between them):
#   ms, SMPs sent, answers read, SMPs in flight (mean over the part's rows),
#   rows with nothing on the wire and nothing sent ("empty"), and ibsm's and
#   ibsim's CPU ms in it.
# and writes the rows (t_ms sent read inflight sm_cpu_ms sim_cpu_ms part)
# to bins.txt in the kept directory. A part whose CPU (ibsm + ibsim) is near
# its wall time on one core each is CPU-bound; one whose SMPs in flight sit
# below the window while the CPUs idle waits on the hand-off or a barrier.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"  # root, harness, the shared options and work directory
runner=$root/bench/bringup/run-sm.sh

radix=24 only="" ibsm=$root/build/sm/cli/ibsm config="" bin_ms=10 keep=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --ibsm-config) config=$(realpath "$2"); shift 2 ;;
    --bin-ms) bin_ms=$2; shift 2 ;;
    *) bench_option "$@"; shift "$bench_shift" ;;
  esac
done
[[ -z $only ]] || { echo "$0: --only: this script runs ibsm alone" >&2; exit 2; }
[[ $radix =~ ^[0-9]+$ && $((radix % 2)) -eq 0 && $radix -ge 4 ]] ||
  { echo "$0: --radix $radix: expected an even number >= 4" >&2; exit 2; }
bench_positive "$bin_ms"
[[ -x $ibsm ]] || { echo "$0: $ibsm is not an executable (build the ibsm target)" >&2; exit 2; }

bench_workdir bringup-timeline
madcount=$work/madcount.so
g++ -std=c++20 -O2 -fPIC -shared -Wall -Wextra -Werror \
  "$root/bench/bringup/MadCount.cpp" -o "$madcount" -ldl -libumad

bench_net  # $net, $limits
d=$work/run
rm -rf "$d"
mkdir -p "$d/state"
cmd=("$ibsm" run --once --state-dir "$d/state" -f "$d/log" --stats "$d/stats.json")
[[ -z $config ]] || cmd+=(-F "$config")
rm -f "$d/trace" "$d/cpu"
MADCOUNT_TRACE=$d/trace MADCOUNT_TRACE_RECV=1 CPU_SAMPLES=$d/cpu \
  "$harness" "${limits[@]}" "$net" -- "$runner" "$d" "$madcount" "${cmd[@]}" >"$d/harness.out" 2>&1 ||
  { echo "$0: ibsm failed; see $d (use --keep)" >&2; exit 1; }

start_ns=$(cat "$d/start_ns")
hz=$(getconf CLK_TCK)
# Parts: "name start_ms end_ms" from the log's end stamps and durations.
log_ms() { # "[2026-12-06 08:44:37.336] ..." -> ms since start
  local stamp=${1:1:23}
  echo $((($(date -d "${stamp% *} ${stamp#* }" +%s%N) - start_ns) / 1000000))
}
{
  while IFS= read -r line; do
    end=$(log_ms "$line")
    if [[ $line == *DISC-0101* ]]; then
      dur=$(sed -E 's/.* in ([0-9.]+) ms.*/\1/' <<<"$line")
      echo "discovery $end $dur"
    elif [[ $line == *PROG-0301* ]]; then
      name=$(sed -E 's/.*phase ([a-z0-9-]+):.*/\1/' <<<"$line")
      dur=$(sed -E 's/.* ([0-9.]+) ms$/\1/' <<<"$line")
      echo "$name $end $dur"
    elif [[ $line == *SM-0001* ]]; then
      echo "up $end 0"
    fi
  done < <(grep -E 'DISC-0101|PROG-0301|SM-0001' "$d/log")
} | awk '{printf "%s %d %d\n", $1, $2 - $3, $2}' >"$d/parts"

awk -v start="$start_ns" -v bin="$bin_ms" -v hz="$hz" -v bins="$work/bins.txt" '
  FILENAME ~ /parts$/ { n++; pname[n] = $1; pstart[n] = $2; pend[n] = $3; next }
  FILENAME ~ /cpu$/ {
    t = int(($1 * 1000 - start) / 1e6 / bin)
    if (t < 0) t = 0
    if (!(t in smc)) { smc[t] = $2; simc[t] = $3 }
    if (t > lastc) lastc = t
    next
  }
  {
    t = int(($1 - start) / 1e6 / bin)
    if (t < 0) t = 0
    if ($4 == "r") { if ($2 == "0x81") rd[t]++ } else if ($2 == "0x01" || $2 == "0x02") sn[t]++
    if (t > last) last = t
  }
  function part(ms,   i) {
    for (i = 1; i <= n; i++) if (ms >= pstart[i] && ms < pend[i]) return pname[i]
    return ms < pstart[1] ? "start-up" : "gap"
  }
  END {
    prev_sm = 0; prev_sim = 0; have = 0
    for (t = 0; t <= last; t++) {
      if (t in smc) {
        if (have) { dsm = smc[t] - prev_sm; dsim = simc[t] - prev_sim } else { dsm = 0; dsim = 0 }
        prev_sm = smc[t]; prev_sim = simc[t]; have = 1
      } else { dsm = 0; dsim = 0 }
      inflight += sn[t] - rd[t]
      p = part(t * bin)
      printf "%d %d %d %d %.0f %.0f %s\n", t * bin, sn[t], rd[t], inflight,
        dsm * 1000 / hz, dsim * 1000 / hz, p > bins
      if (!(p in seen)) { seen[p] = 1; order[++np] = p }
      rows[p]++; ps[p] += sn[t]; pr[p] += rd[t]; pin[p] += inflight
      if (inflight <= 0 && sn[t] == 0) empty[p]++
      pcs[p] += dsm * 1000 / hz; pcm[p] += dsim * 1000 / hz
    }
    printf "%-20s %7s %8s %8s %9s %7s %9s %9s\n", "part", "ms", "sent", "read",
      "inflight", "empty", "ibsm CPU", "ibsim CPU"
    for (i = 1; i <= np; i++) {
      p = order[i]
      printf "%-20s %7d %8d %8d %9.1f %7d %9.0f %9.0f\n", p, rows[p] * bin, ps[p], pr[p],
        pin[p] / rows[p], empty[p] * bin, pcs[p], pcm[p]
      ts += ps[p]; tr += pr[p]; tc += pcs[p]; tm += pcm[p]; te += empty[p] * bin
    }
    printf "%-20s %7d %8d %8d %9s %7d %9.0f %9.0f\n", "total", (last + 1) * bin, ts, tr, "",
      te, tc, tm
  }' "$d/parts" "$d/cpu" "$d/trace"
echo "(rows of $bin_ms ms; CPU in ms from /proc ticks of 1000/$hz ms, sampled every ~10 ms;"
echo " empty: ms with no SMP in flight and none sent; load average $(cut -d' ' -f1-3 /proc/loadavg))"
[[ -z $keep ]] || echo "rows in $work/bins.txt, parts in $d/parts"
