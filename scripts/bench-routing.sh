#!/usr/bin/env bash
# Routing benchmark against issue 31's targets, in one run: generates the
# fabrics, runs `ibsm route` on each under /usr/bin/time, reads its
# "time: routing X s, report Y s (analysis Z s)" line, and prints every target against what
# was measured (wall, CPU = user+sys, peak memory) as PASS or MISS. A target
# missed is reported, never an error: the script exits 0 when everything ran.
#
#   scripts/bench-routing.sh                  # the targets
#   scripts/bench-routing.sh --engines [ARGS] # the engines' scaling (routing_bench), ARGS to it
#   scripts/bench-routing.sh --all            # both
#
# IBSM=path/to/ibsm and ROUTING_BENCH=path/to/routing_bench use those
# binaries; otherwise they are built Release in build-bench (or BUILD_DIR). WORK=DIR keeps the fabrics and dry runs there
# (default: a temporary directory, removed at exit; the dumps take gigabytes).
# CASES="r36 r48 r60 dfly" picks cases; RUNS=N runs the radix-36 cases N times (3) and keeps
# the fastest routing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
mode=targets
case ${1:-} in
  --engines) mode=engines; shift ;;
  --all) mode=all; shift ;;
  --targets) shift ;;
esac

configure() {
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_TESTS=OFF \
    -DIBSM_BENCH=ON >/dev/null
  ninja -C "$build" "$@" >&2
}

if [[ -n ${WORK:-} ]]; then
  work=$WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# --- the issue's targets ------------------------------------------------------

# run NAME ARGS...: `ibsm route ARGS` timed; sets wall, cpu, rss (MiB), route, report,
# analysis (the all-pairs walk alone; an ibsm that does not print it: the report's figure).
run() {
  local name=$1
  shift
  rm -rf "${work:?}/$name"
  if ! /usr/bin/time -f '%e %U %S %M' -o "$work/$name.time" "$ibsm" route "$@" -o "$work/$name" \
    >"$work/$name.out" 2>"$work/$name.err"; then
    echo "ibsm route $* failed:" >&2
    tail -5 "$work/$name.err" >&2
    wall=failed cpu=failed rss=failed route=failed report=failed analysis=failed
    return 0
  fi
  read -r wall user sys kib <"$work/$name.time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  rss=$(awk -v k="$kib" 'BEGIN { printf "%.0f", k / 1024 }')
  read -r route report analysis < <(sed -n \
    's/^time: routing \([0-9.]*\) s, report \([0-9.]*\) s\( (analysis \([0-9.]*\) s)\)\{0,1\}.*/\1 \2 \4/p' \
    "$work/$name.out")
  analysis=${analysis:-$report}
  local lfts
  lfts=$(stat -c %s "$work/$name"/*lfts* | awk '{ printf "%.1f MiB", $1 / 1048576 }')
  printf '  %-22s wall %6.2f s  CPU %6.2f s  peak %5s MiB  routing %6.3f s  report %6.3f s  analysis %6.3f s  LFTs %s\n' \
    "$name" "$wall" "$cpu" "$rss" "$route" "$report" "$analysis" "$lfts"
}

results=()
# target WHAT MEASURED LIMIT UNIT
target() {
  local verdict
  verdict=$(awk -v m="$2" -v l="$3" 'BEGIN { print (m ~ /^[0-9.]+$/ && m + 0 <= l + 0 ? "PASS" : "MISS") }')
  results+=("$(printf '%-58s %9s %-3s <= %-6s %s' "$1" "$2" "$4" "$3" "$verdict")")
}

generate() {  # NAME ARGS...: a net file once per work directory; false (said) when refused
  local name=$1
  shift
  [[ -s $work/$name.net ]] && return 0
  "$ibsm" topo generate "$@" -o "$work/$name.net" >/dev/null && return 0
  results+=("$(printf '%-58s %13s' "$name: not generated (ibsm topo generate $*)" "MISS")")
  return 1
}

# best NAME ARGS...: `run` RUNS times (3), the fastest routing kept: radix 36
# routes in a tenth of a second, where one run on a shared machine is mostly
# its noise (each run's line is printed).
best() {
  local i fastest=failed
  for ((i = 0; i < ${RUNS:-3}; i++)); do
    run "$@"
    fastest=$(awk -v r="$route" -v f="$fastest" \
      'BEGIN { print (r ~ /^[0-9.]+$/ && (f !~ /^[0-9.]+$/ || r + 0 < f + 0) ? r : f) }')
  done
  route=$fastest
}

# ratio A B: A / B to two decimals, or "failed" when either did not run.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b + 0 > 0) printf "%.2f", a / b; else print "failed" }'; }

has_case() { [[ " ${CASES:-r36 r48 r60 dfly} " == *" $1 "* ]]; }

# Each case sets `form` and `held` from targets().
case_r36() {
  generate r36 fat-tree --levels 3 --radix 36 || return 0
  generate r36-cut fat-tree --levels 3 --radix 36 --degrade 1 --seed 1 || return 0
  best r36-full -t "$work/r36.net" -R ftree "${form[@]}"
  local full=$route fresh
  best r36-cut-fresh -t "$work/r36-cut.net" -R ftree "${form[@]}"
  fresh=$route
  target "radix 36, one cable lost: fresh routing (s)" "$route" 0.7 s
  target "radix 36, one cable lost: fresh routing / full tree's (x)" "$(ratio "$fresh" "$full")" 1.5 x
  best r36-cut-under-change -t "$work/r36-cut.net" -R ftree "${form[@]}" \
    --previous "$work/r36-full/$held" --previous-topology "$work/r36.net"
  target "radix 36, one cable lost: routing under change (s)" "$route" 0.8 s
  target "radix 36, one cable lost: under change / fresh routing (x)" "$(ratio "$route" "$fresh")" 1.2 x
  rm -rf "${work:?}"/r36-*/
}

case_r48() {
  generate r48 fat-tree --levels 3 --radix 48 || return 0
  run r48 -t "$work/r48.net" -R ftree "${form[@]}"
  target "radix 48: fresh routing (s)" "$route" 0.5 s
  target "radix 48: analysis (s)" "$analysis" 1.5 s
  rm -rf "${work:?}/r48"
}

case_r60() {
  # 4,500 switches and 54,000 CAs need 58,500 LIDs, more than the 49,151
  # unicast LIDs of a subnet: the leaves get 24 hosts, not 30 (43,200 CAs).
  generate r60 fat-tree --levels 3 --radix 60 --hosts-per-leaf 24 || return 0
  run r60 -t "$work/r60.net" -R ftree "${form[@]}"
  target "radix 60 (4,500 switches, 43,200 CAs): routing (s)" "$route" 1.5 s
  target "radix 60: analysis (s)" "$analysis" 3 s
  target "radix 60: whole dry run, ${form[1]:-opensm} form (wall s)" "$wall" 6 s
  target "radix 60: whole dry run, peak memory (MiB)" "$rss" 2048 MiB
  rm -rf "${work:?}/r60"
}

case_dfly() {
  generate dfly dragonfly -a 16 -p 8 -H 8 || return 0
  run dfly -t "$work/dfly.net" -R dragonfly "${form[@]}"
  target "dragonfly a16 p8 h8: routing (s)" "$route" 0.5 s
  target "dragonfly a16 p8 h8: whole dry run, ${form[1]:-opensm} form (wall s)" "$wall" 5 s
  if ((${#form[@]})); then
    run dfly-opensm-form -t "$work/dfly.net" -R dragonfly
    target "dragonfly a16 p8 h8: whole dry run, opensm form (wall s)" "$wall" 5 s
  fi
  rm -rf "${work:?}"/dfly*/
}

targets() {
  echo "issue 31 targets ($(nproc) cores; wall and CPU = user+sys of the whole dry run)"
  # An ibsm from before --dump-format writes (and reads back) the OpenSM form.
  form=(--dump-format compact)
  held=lfts.ibsm
  if ! "$ibsm" route --help | grep -q -- --dump-format; then
    form=()
    held=opensm-lfts.dump
    echo "($ibsm has no --dump-format: the OpenSM form throughout)"
  fi
  for c in r36 r48 r60 dfly; do
    if has_case $c; then case_$c; fi
  done
  echo
  printf '%-58s %13s %-9s %s\n' target measured limit verdict
  printf '%s\n' "${results[@]}"
}

# --- the engines' scaling (routing_bench, one case per process) ---------------

engines() {
  local bench=${ROUTING_BENCH:-$build/bench/routing_bench}
  mapfile -t cases < <("$bench" --benchmark_list_tests "$@")
  # Each case runs alone: a --benchmark_filter given would override its own.
  local pass=() a
  for a in "$@"; do [[ $a == --benchmark_filter=* ]] || pass+=("$a"); done
  printf '%-40s %8s %7s %12s %10s %10s %9s %9s\n' case switches CAs "LFT entries" "time ms" \
    "CPU ms" "ns/entry" "RSS MiB"
  : >"$work/table.txt"
  for c in "${cases[@]}"; do
    /usr/bin/time -v "$bench" --benchmark_filter="^${c}\$" --benchmark_format=csv "${pass[@]}" \
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
}

if [[ $mode != engines ]]; then
  if [[ -n ${IBSM:-} ]]; then
    ibsm=$IBSM
  else
    configure ibsm
    ibsm=$build/sm/cli/ibsm
  fi
  targets
fi
if [[ $mode != targets ]]; then
  [[ -n ${ROUTING_BENCH:-} ]] || configure routing_bench
  [[ $mode == all ]] && echo
  engines "$@"
fi
