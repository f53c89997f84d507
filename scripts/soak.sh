#!/usr/bin/env bash
# The long run (not in CI; CI runs RunSoak.two-minutes): the daemon on a
# generated fat tree under ibsim for MINUTES (default 30, radix 16: 320
# switches, 1024 hosts) while tests/sm/run/soak.sh flaps cables and
# switches, drops SMPs and sends SA queries and multicast changes, checking
# after each event that every reachable pair is routed within BOUND s, and
# sampling RSS and fds every minute. Prints the figures the note reports.
#   scripts/soak.sh [MINUTES] [RADIX] [BOUND] [DROP%]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
minutes=${1:-30} radix=${2:-16} bound=${3:-60} drop=${4:-3}
build=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$build" sa-client >/dev/null
net=$(mktemp --suffix=.net)
trap 'rm -f "$net"' EXIT
"$build/sm/cli/ibsm" topo generate fat-tree --levels 3 --radix "$radix" -o "$net"
"$root/tests/sm/ibsim/run-with-ibsim.sh" -N 8192 -S 2048 -P 40000 "$net" -- \
  "$root/tests/sm/run/soak.sh" "$build/sm/cli/ibsm" "$build/tests/tools/sa-client" \
  "$minutes" "$bound" "$drop"
