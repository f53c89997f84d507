#!/usr/bin/env bash
# Routing benchmark: builds Release in build-bench (or BUILD_DIR), runs every
# case of bench/routing_bench (fat trees and dragonflies) in its own process under /usr/bin/time -v, and
# prints time per fabric size, peak RSS and how time scales with the size of
# the tables (switches x LIDs). Extra args go to the benchmark, e.g.
#   scripts/bench-routing.sh --benchmark_filter=ftree
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_TESTS=OFF \
  -DIBSM_BENCH=ON >/dev/null
ninja -C "$build" routing_bench >&2
bench=$build/bench/routing_bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mapfile -t cases < <("$bench" --benchmark_list_tests "$@")
printf '%-40s %8s %7s %12s %10s %10s %9s %9s\n' case switches CAs "LFT entries" "time ms" \
  "CPU ms" "ns/entry" "RSS MiB"
for c in "${cases[@]}"; do
  /usr/bin/time -v "$bench" --benchmark_filter="^${c}\$" --benchmark_format=csv "$@" \
    >"$work/out.csv" 2>"$work/time.txt"
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$work/time.txt")
  # Columns by header name: counters come in alphabetical order after the fixed ones.
  awk -F, -v rss="$rss" '
    /^name,/ { for (i = 1; i <= NF; ++i) { gsub(/"/, "", $i); col[$i] = i }; next }
    col["name"] && NF > 4 {
      gsub(/"/, "", $1)
      entries = $col["lft_entries"]
      ms = $col["real_time"]; cpu = $col["cpu_time"]
      printf "%-40s %8d %7d %12d %10.1f %10.1f %9.1f %9s\n", $1, $col["switches"], $col["CAs"],
             entries, ms, cpu, (entries > 0 ? cpu * 1e6 / entries : 0), rss
    }' "$work/out.csv" | tee -a "$work/table.txt"
done

echo
echo "scaling of ftree on complete trees (CPU time against table size):"
awk '$1 ~ /^route\/ftree\/radix:/ {
       split($1, p, /radix:/); split(p[2], r, "/"); radix = r[1]
       if (prev) printf "  radix %s -> %s: tables x%.1f, CPU time x%.1f\n", prevRadix, radix,
                        $4 / prevEntries, $6 / prevCpu
       prev = 1; prevRadix = radix; prevEntries = $4; prevCpu = $6
     }' "$work/table.txt"
echo
echo "scaling of dragonfly (a = 2p = 2h, a*h+1 groups; CPU time against table size):"
awk '$1 ~ /^routeDragonfly\/dragonfly\/a:/ {
       split($1, p, /a:/); split(p[2], r, "/"); a = r[1]
       if (prev) printf "  a %s -> %s: switches %d -> %d, tables x%.1f, CPU time x%.1f\n", prevA, a,
                        prevSw, $2, $4 / prevEntries, $6 / prevCpu
       prev = 1; prevA = a; prevSw = $2; prevEntries = $4; prevCpu = $6
     }' "$work/table.txt"
echo "time = wall clock per route (the machine may be shared); CPU = the routing thread's CPU time"
