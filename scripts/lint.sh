#!/usr/bin/env bash
# clang-format check and clang-tidy (checks in .clang-tidy) over the sources
# git knows, or over the files named. clang-tidy-19: Debian 12's default
# clang-tidy 14 cannot parse GCC 12's C++23 <expected>. At ~12 s a file this
# takes long over the whole tree, so CI runs only the format check.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install-deps.sh"
files=("$@")
((${#files[@]})) || mapfile -t files < <(git ls-files '*.cpp')
clang-format --dry-run -Werror $(git ls-files '*.cpp' '*.h')
build="$root/build-lint"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy-19 -p "$build" --quiet 2>/dev/null
