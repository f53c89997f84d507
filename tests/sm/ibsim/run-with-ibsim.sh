#!/usr/bin/env bash
# Runs one command against its own ibsim simulator, then stops that
# simulator (by PID) and returns the command's exit status.
#
#   run-with-ibsim.sh [IBSIM-OPTIONS...] NETFILE -- COMMAND [ARGS...]
#
# IBSIM-OPTIONS go to ibsim as they are (e.g. -N 4096 -S 512 -P 20000 for
# big fabrics). The command runs with:
#   LD_PRELOAD      umad2sim, so libibumad talks to the simulator
#   IBSIM_SOCKNAME  a name unique to this run, so runs never meet
#   IBSIM_CONSOLE   a FIFO connected to ibsim's console: write commands such
#                   as 'Unlink "Switch1"[3]' to it to inject faults
#   IBSIM_NETFILE   the net file, absolute
#   IBSIM_PID       the simulator's PID (benchmarks read its CPU time)
# and in a scratch directory (umad2sim writes its fake sysfs into the
# current directory). ibsim's log is printed when the command fails.
set -u

usage() {
  echo "usage: $0 [IBSIM-OPTIONS...] NETFILE -- COMMAND [ARGS...]" >&2
  exit 2
}

ibsim_args=()
while [[ $# -gt 0 && $1 != "--" ]]; do
  ibsim_args+=("$1")
  shift
done
[[ $# -ge 2 && ${#ibsim_args[@]} -ge 1 ]] || usage
shift # the --
netfile=$(realpath "${ibsim_args[-1]}") || usage
unset 'ibsim_args[-1]'

umad2sim=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
[[ -r $umad2sim ]] || { echo "$0: umad2sim not found at $umad2sim" >&2; exit 2; }
command -v ibsim >/dev/null || { echo "$0: ibsim is not installed" >&2; exit 2; }

workdir=$(mktemp -d "${TMPDIR:-/tmp}/ibsim-run.XXXXXX")
sockname="ibsm-$(basename "$1")-$$-$RANDOM"
ibsim_pid=""

cleanup() {
  if [[ -n $ibsim_pid ]] && kill -0 "$ibsim_pid" 2>/dev/null; then
    kill "$ibsim_pid" 2>/dev/null
    wait "$ibsim_pid" 2>/dev/null
  fi
  exec 3>&- 2>/dev/null
  rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The console FIFO is held open here for reading and writing, so ibsim never
# sees end-of-file and a writer never blocks on open.
mkfifo "$workdir/console"
exec 3<>"$workdir/console"

IBSIM_SOCKNAME=$sockname ibsim -s "${ibsim_args[@]}" "$netfile" \
  <&3 >"$workdir/ibsim.log" 2>&1 &
ibsim_pid=$!

for _ in $(seq 1 600); do
  grep -qs "Network simulator ready." "$workdir/ibsim.log" && break
  if ! kill -0 "$ibsim_pid" 2>/dev/null; then
    echo "$0: ibsim exited before it was ready:" >&2
    cat "$workdir/ibsim.log" >&2
    exit 1
  fi
  sleep 0.05
done
if ! grep -q "Network simulator ready." "$workdir/ibsim.log"; then
  echo "$0: ibsim was not ready after 30 s" >&2
  cat "$workdir/ibsim.log" >&2
  exit 1
fi

(
  cd "$workdir" &&
    LD_PRELOAD=$umad2sim IBSIM_SOCKNAME=$sockname IBSIM_CONSOLE=$workdir/console \
      IBSIM_NETFILE=$netfile IBSIM_PID=$ibsim_pid exec "$@" 3>&-
)
status=$?
if [[ $status -ne 0 ]]; then
  echo "--- ibsim log ($netfile) ---" >&2
  tail -n 50 "$workdir/ibsim.log" >&2
fi
exit $status
