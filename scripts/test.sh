#!/usr/bin/env bash
# The whole test suite, as CI runs it on a clean clone: installs what is
# missing, checks formatting, builds with -Werror, runs unit and ibsim
# integration tests, then runs the unit tests again under ASan/UBSan.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install-deps.sh"

echo "== clang-format"
files=$(git ls-files '*.cpp' '*.h')
clang-format --dry-run -Werror $files

echo "== build (RelWithDebInfo, -Werror)"
BUILD_DIR="$root/build-test" "$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=RelWithDebInfo

echo "== tests"
ctest --test-dir "$root/build-test" -j"$(nproc)" --output-on-failure --timeout 900

echo "== build (ASan + UBSan)"
BUILD_DIR="$root/build-asan" "$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=Debug -DIBSM_SANITIZE=ON \
  -DIBSM_BENCH=OFF
echo "== tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$root/build-asan" -j"$(nproc)" --output-on-failure --timeout 900 -L unit
