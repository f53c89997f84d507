# shellcheck shell=bash disable=SC2034 # sets variables for the script that sources it
# What the bench scripts (bench-sa.sh, bench-sm.sh, bringup-timeline.sh, ...) share (sourced, not run):
# the options they take, their checks, the build, the work directory, the
# generated fat tree with ibsim limits to hold it, and reading the
# "key value" results files their scenarios write.
#
#   source "$(dirname "$0")/bench-lib.sh"     # sets root, build, harness
#   radix=16 only="" ibsm="" keep=""          # defaults, then the script's own
#   while [[ $# -gt 0 ]]; do
#     case $1 in
#       --window) window=$2; shift 2 ;;
#       *) bench_option "$@"; shift "$bench_shift" ;;
#     esac
#   done
#   bench_check ibsm opensm                   # the values --only takes
#   [[ -n $ibsm ]] || { bench_build ibsm; ibsm=$build/sm/cli/ibsm; }
#   bench_workdir bench-sa; bench_net         # $work, $net, $switches, $cas, $limits
#   bench_get "$work/ibsm/results" p99_us
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Absolute: the scenarios run from their own directories (LD_PRELOAD of
# bench/bringup/MadCount.cpp built in it, for one).
build=$(realpath -m "${BUILD_DIR:-$root/build-bench}")
harness=$root/tests/sm/ibsim/run-with-ibsim.sh

# The comment block at the top of the calling script, as its --help.
bench_help() { awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; }

# One of the shared options at $1 (and its value at $2): sets radix, only,
# ibsm or keep and bench_shift (how many words it took); anything else is an
# unknown argument (exit 2).
bench_option() {
  bench_shift=2
  case $1 in
    --radix | --only | --ibsm | --keep)
      [[ $# -ge 2 ]] || { echo "$0: $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case $1 in
    --radix) radix=$2 ;;
    --only) only=$2 ;;
    --ibsm) ibsm=$(realpath "$2") ;;
    --keep) keep=$2 ;;
    -h | --help) bench_help; exit 0 ;;
    *) echo "$0: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
}

# Exits 2 unless every argument is a positive whole number.
bench_positive() {
  local n
  for n in "$@"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$0: '$n': expected a positive number" >&2; exit 2; }
  done
}

# The shared checks: an even radix >= 4, --only one of the given SM kinds,
# OpenSM installed.
bench_check() {
  [[ $radix =~ ^[0-9]+$ && $((radix % 2)) -eq 0 && $radix -ge 4 ]] ||
    { echo "$0: --radix $radix: expected an even number >= 4" >&2; exit 2; }
  if [[ -n $only && " $* " != *" $only "* ]]; then
    echo "$0: --only $only: expected one of: $*" >&2
    exit 2
  fi
  command -v opensm >/dev/null || { echo "$0: opensm is not installed" >&2; exit 2; }
}

# Builds the given targets (Release) in $build (ibsm: $build/sm/cli/ibsm).
bench_build() {
  echo "== building $* (Release) in $build" >&2
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_BENCH=OFF >/dev/null
  ninja -C "$build" -j"$(nproc)" "$@" >&2
}

# $work: --keep's directory, or a temporary one removed at exit.
bench_workdir() {
  if [[ -n $keep ]]; then
    mkdir -p "$keep"
    work=$(realpath "$keep")
  else
    work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    trap 'rm -rf "$work"' EXIT
  fi
}

# The 3-level fat tree of $radix as $net, its $switches and $cas, and in
# $limits ibsim's options to hold it (its defaults hold 256 switches), with
# room to spare.
bench_net() {
  net=$work/ft3-k$radix.net
  "$ibsm" topo generate fat-tree --levels 3 --radix "$radix" -o "$net" >/dev/null
  read -r switches cas < <(awk '/^Switch/ { s++ } /^(Hca|Ca)[ \t]/ { c++ } END { print s, c }' "$net")
  read -r -a limits < <(awk '/^(Switch|Hca|Ca|Rt)[ \t]/ {n++; p+=$2; if ($1=="Switch") {s++; p++}}
                             END {printf "-N %d -S %d -P %d\n", n*2+64, s*2+64, p*2+256}' "$net")
}

# The value of KEY in the results FILE ("" when absent).
bench_get() {
  [[ -r $1 ]] || return 0
  awk -v k="$2" '$1 == k { print $2; exit }' "$1"
}

# The median of the numbers on stdin (one a line or space-separated); ""
# when there is none.
bench_median() {
  tr ' ' '\n' | grep -E '^-?[0-9.]+$' | sort -g | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]}'
}
