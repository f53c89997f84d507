#!/usr/bin/env bash
# Configures and builds ibsm into BUILD_DIR (default build/). Extra args go to cmake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja "$@" >/dev/null
ninja -C "$build" -j"$(nproc)" >&2
