#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run): installs what is missing,
# checks formatting, builds with warnings as errors (IBSM_WERROR, which only
# the project's own checks turn on), runs the README's first command,
# scripts/demo.sh, from a fresh clone with nothing beside it, runs the unit
# and ibsim integration tests, then the unit tests again under ASan/UBSan,
# and the fuzz targets (SA, and SMPs from the fabric) for a few seconds each
# (clang-19, libFuzzer).
#
# The main build is Release, the demo's build type, so that with ccache the
# clone's demo build is nearly all cache hits. The clone holds the last
# commit only: uncommitted changes are tested by ctest, not by the demo.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install-deps.sh"

# Each phase's wall time and CPU time (user+sys of the processes it ran and
# waited for: compilers, tests; the shell's `times`), printed at the end
# whether the run passed or not. CPU seconds beside wall show how busy the
# cores were, and compare runs on machines of other speeds or loads.
start=$SECONDS
timings=()
times_file=$(mktemp "${TMPDIR:-/tmp}/ibsm-times.XXXXXX")
cpu_seconds() { # sets cpu: children's user+sys so far, in whole seconds
  times >"$times_file" # in this shell: a $(...) subshell would count its own children
  cpu=$(awk 'NR == 2 {
    n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] }
    printf "%d", n }' "$times_file")
}
phase() { # name: closes the previous phase's timing and opens this one
  local now=$SECONDS
  cpu_seconds
  [[ ${#timings[@]} -eq 0 ]] || timings[-1]+=" $((now - phase_start)) s wall, $((cpu - phase_cpu)) s CPU"
  phase_start=$now
  phase_cpu=$cpu
  timings+=("$1:")
  [[ -z $1 ]] || echo "== $1"
}
clone=""
finish() {
  local status=$?
  [[ -z $clone ]] || rm -rf "$clone"
  phase ""
  unset 'timings[-1]'
  cpu_seconds
  rm -f "$times_file"
  echo "test.sh $( ((status == 0)) && echo passed || echo FAILED) after $((SECONDS - start)) s" \
    "($cpu s CPU on $(nproc) cores):"
  printf '  %s\n' "${timings[@]}"
}
trap finish EXIT

phase "clang-format"
mapfile -t files < <(git ls-files '*.cpp' '*.h')
clang-format --dry-run -Werror "${files[@]}"

phase "build (Release, -Werror)"
BUILD_DIR="$root/build-test" "$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=Release -DIBSM_WERROR=ON

phase "scripts/demo.sh from a fresh clone"
[[ -z $(git status --porcelain --untracked-files=no) ]] ||
  echo "note: the demo runs on the last commit; uncommitted changes are not in the clone"
clone=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-demo.XXXXXX")
git clone -q "$root" "$clone/ibsm"
# The stats log counts this build's compilations only (the machine may run others).
(cd "$clone/ibsm" && env -u BUILD_DIR CCACHE_STATSLOG="$clone/ccache.log" scripts/demo.sh)
if command -v ccache >/dev/null && [[ -s $clone/ccache.log ]]; then
  echo "ccache in the clone's build:"
  CCACHE_STATSLOG="$clone/ccache.log" ccache --show-log-stats | grep -E 'Hits|Misses' || true
fi
rm -rf "$clone"
clone=""

phase "tests"
ctest --test-dir "$root/build-test" -j"$(nproc)" --output-on-failure --timeout 900

# Only what `ctest -L unit` runs is built here (the target unit-tests:
# every gtest program and the ibsm command; not the ibsim-only programs or
# the tools, which this phase never runs). A gtest program left out of that
# target would show in ctest as <name>_NOT_BUILT and not run: that fails.
#
# -Og -g1 rather than Debug's -O0 -g: a fifth less compile time, a third of
# the object size to link, and the heavy specs (a radix-36 fat tree's every
# pair) run several times faster, while ASan and UBSan see the same code.
# -Og's -Wmaybe-uninitialized guesses are not errors here: the Release build
# above judges that warning at -O2, where it means something.
phase "build (ASan + UBSan, the unit tests)"
cmake -S "$root" -B "$root/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DIBSM_SANITIZE=ON \
  "-DCMAKE_CXX_FLAGS_DEBUG=-Og -g1 -Wno-maybe-uninitialized" -DIBSM_BENCH=OFF \
  -DIBSM_WERROR=ON >/dev/null
ninja -C "$root/build-asan" -j"$(nproc)" unit-tests >&2
if not_built=$(ctest --test-dir "$root/build-asan" -N | grep -E '_NOT_BUILT'); then
  echo "test.sh: unit tests the target unit-tests does not build (ibsm_unit_test in" \
    "tests/CMakeLists.txt):" >&2
  echo "$not_built" >&2
  exit 1
fi
phase "tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$root/build-asan" -j"$(nproc)" --output-on-failure --timeout 900 -L unit

# The fuzz targets in a build of their own: clang-19 with libFuzzer, ASan
# and UBSan; only the targets and the libraries they link are built.
# SaFuzz (tests/fuzz/SaFuzz.cpp) sends the SA any bytes as GMPs from the
# hosts; SmpFuzz (tests/fuzz/SmpFuzz.cpp) sends the daemon's SMP side any
# bytes as SMInfo Gets/Sets from another SM and Traps from SMAs. Each starts
# from its seed corpus kept in the repository (one MAD of each kind, made by
# tests/fuzz/make-corpus.py and SmpCorpus, and inputs that once crashed it)
# and runs a fixed number of inputs, or its time limit on a slow machine,
# the two at once, so that the phase stays under about 2.5 minutes on 2
# cores, the build included; what they find goes to a scratch directory,
# never into the repository. A crash, a
# sanitizer report or a broken promise of the target (an answer that does
# not decode, ...) fails the run; a missing clang-19 fails it too, loudly,
# rather than skipping the phase. Warnings are not errors here: clang reads
# GCC 12's libstdc++, which deprecates its own get_temporary_buffer
# (std::stable_sort) in C++23; the GCC builds above are the warnings check.
phase "fuzz (SaFuzz 200000 runs or 60 s beside SmpFuzz 200000 runs or 45 s; clang-19)"
if ! command -v clang++-19 >/dev/null; then
  echo "test.sh: clang++-19 is missing (scripts/install-deps.sh installs clang-19" \
    "and libclang-rt-19-dev): the fuzz phase cannot run" >&2
  exit 1
fi
# -O1 with line tables only is OSS-Fuzz's default for sanitizer builds: reports
# keep file:line, and the build is about a fifth cheaper than -O2 -g.
cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
  -DIBSM_FUZZ=ON -DIBSM_BENCH=OFF -DIBSM_WERROR=OFF >/dev/null
ninja -C "$root/build-fuzz" -j"$(nproc)" SaFuzz SmpFuzz >&2
# The two targets run side by side, one a core, each into its own log.
fuzz_scratch=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-fuzz.XXXXXX")
fuzz() { # target runs seconds
  mkdir -p "$fuzz_scratch/$1"
  "$root/build-fuzz/tests/fuzz/$1" -runs="$2" -max_total_time="$3" -seed=1 -print_final_stats=1 \
    -artifact_prefix="$fuzz_scratch/$1/" "$fuzz_scratch/$1" "$root/tests/fuzz/corpus/$1" \
    >"$fuzz_scratch/$1.log" 2>&1
}
declare -A fuzz_pid
fuzz SaFuzz 200000 60 &
fuzz_pid[SaFuzz]=$!
fuzz SmpFuzz 200000 45 &
fuzz_pid[SmpFuzz]=$!
fuzz_failed=0
for target in SaFuzz SmpFuzz; do
  status=0
  wait "${fuzz_pid[$target]}" || status=$?
  grep -E '^(stat::|Done|INFO: Done)' "$fuzz_scratch/$target.log" | sed "s/^/$target: /" >&2 || true
  if ((status != 0)); then
    echo "test.sh: $target failed (exit $status); its log's end and the input that did it:" >&2
    tail -n 40 "$fuzz_scratch/$target.log" >&2
    ls -l "$fuzz_scratch/$target"/crash-* "$fuzz_scratch/$target"/leak-* \
      "$fuzz_scratch/$target"/timeout-* 2>/dev/null >&2 || true
    fuzz_failed=$status
  fi
done
((fuzz_failed == 0)) || exit "$fuzz_failed"
rm -rf "$fuzz_scratch"
