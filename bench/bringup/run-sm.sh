#!/usr/bin/env bash
# Runs one subnet manager for scripts/bench-bringup.sh, inside
# tests/sm/ibsim/run-with-ibsim.sh (which has set LD_PRELOAD to umad2sim):
#
#   run-sm.sh OUTDIR MADCOUNT_SO COMMAND [ARGS...]
#
# Writes into OUTDIR: start_ns (wall clock just before the SM starts, to
# set against the time it reports the subnet up), times (the SM's
# wall, user and system seconds), sim_cpu (user and system seconds the
# simulator spent while the SM ran), mads (MadCount.cpp's histogram),
# stdout, stderr. Exits with the SM's status.
#
# With CPU_SAMPLES=FILE set, also samples the SM's and the simulator's CPU
# ticks every ~10 ms into FILE ("EPOCH_US SM_TICKS SIM_TICKS" lines), for
# scripts/bringup-timeline.sh.
#
# CPU seconds are the steadier figure on a shared machine: wall time
# depends on how much of the CPUs other work leaves, CPU time much less.
set -u
out=$1
madcount=$2
shift 2

# The harness started ibsim as a sibling of this script (a child of our
# parent); its CPU counters are read before and after the SM runs.
sim_pid=$(pgrep -P "$PPID" -x ibsim | head -1)
sim_ticks() { # utime + stime of the simulator, in clock ticks
  [[ -n $sim_pid && -r /proc/$sim_pid/stat ]] || { echo 0 0; return; }
  # Fields after the command name, which is in parentheses.
  sed 's/^.*) //' "/proc/$sim_pid/stat" | awk '{print $12, $13}'
}
read -r sim_u0 sim_s0 < <(sim_ticks)

# Builtins only (no fork per sample): $EPOCHREALTIME, read from /proc, read -t
# as the sleep. The SM is this shell's child once started ($$ is this shell
# in the subshell too).
sm_name=$(basename "$1")
sm_name=${sm_name:0:15}
sample_cpu() { # file
  local sm_pid="" line sm sim fd
  exec {fd}<> <(:)
  while [[ -z $sm_pid ]]; do
    sm_pid=$(pgrep -P $$ -x "$sm_name") || sm_pid=""
    read -r -t 0.002 -u "$fd" || true
  done
  while [[ -r /proc/$sm_pid/stat ]]; do
    read -r line <"/proc/$sm_pid/stat" || break
    line=${line##*) }
    read -r -a f <<<"$line"
    sm=$((f[11] + f[12]))
    sim=0
    if [[ -n $sim_pid ]] && read -r line <"/proc/$sim_pid/stat"; then
      line=${line##*) }
      read -r -a f <<<"$line"
      sim=$((f[11] + f[12]))
    fi
    echo "${EPOCHREALTIME/./} $sm $sim"
    read -r -t 0.01 -u "$fd" || true
  done >"$1"
}
sampler=""
if [[ -n ${CPU_SAMPLES:-} ]]; then
  sample_cpu "$CPU_SAMPLES" &
  sampler=$!
fi

date +%s%N >"$out/start_ns"
TIMEFORMAT='%R %U %S'
{
  time LD_PRELOAD="$madcount:${LD_PRELOAD:-}" MADCOUNT_OUT="$out/mads" "$@" \
    >"$out/stdout" 2>"$out/stderr"
  rc=$?
} 2>"$out/times"

[[ -z $sampler ]] || wait "$sampler"
read -r sim_u1 sim_s1 < <(sim_ticks)
awk -v u=$((sim_u1 - sim_u0)) -v s=$((sim_s1 - sim_s0)) -v hz="$(getconf CLK_TCK)" \
  'BEGIN {printf "%.2f %.2f\n", u / hz, s / hz}' >"$out/sim_cpu"
exit "$rc"
