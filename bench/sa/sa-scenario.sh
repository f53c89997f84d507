#!/usr/bin/env bash
# One SM's run for scripts/bench-sa.sh, inside tests/sm/ibsim/run-with-ibsim.sh:
#
#   sa-scenario.sh OUTDIR KIND IBSM SA_CLIENT WINDOW COUNT SEED WARMUP
#
# KIND (ibsm or opensm) is master on the first CA of the net file; once every
# port has a LID, a second CA sends COUNT PathRecord Gets to random CA port
# GIDs with WINDOW outstanding (sa-client pathload, seed SEED), after WARMUP
# Gets the same way (another seed) that are not measured. A single probe
# first: an SM that does not answer it (ibsm before issue 12) is reported as
# not answering, and no load is sent. The SM's VmHWM (peak resident memory,
# /proc) is read before and after the load, and the CPU time (all threads,
# from /proc/PID/task/*/schedstat) the SM, the simulator (IBSIM_PID) and the
# client spent during it, per answer. KIND echo is the ceiling: ibsm brings
# the subnet up and stops, and `sa-client echo` on the SM's node answers
# every Get with its own bytes at once, so the rate is what the simulator and
# the client allow. Writes OUTDIR/results as "key value" lines. With
# SA_BENCH_PERF=1 in the environment, `perf record -g` of the SM (ibsm or
# OpenSM, not the echo) during the measured load, into OUTDIR/perf.data.
set -u
out=$1 kind=$2 IBSM=$3 client=$4 window=$5 count=$6 seed=$7 warmup=$8
source "$(dirname "$0")/../../tests/sm/run/run-checks.sh"
cd "$out" || exit 2
: >results
result() { echo "$1 $2" >>results; echo "  $1 $2" >&2; }
vm() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null; } # kB
# CPU time of PID so far, ns, all its threads (umad2sim's receiver too).
cpu_ns() { cat "/proc/$1/task/"*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
per_answer_us() { # NS_BEFORE NS_AFTER ANSWERS
  awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { if (n > 0) printf "%.1f", (b - a) / 1000 / n }'
}
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
node_sm=${cas[0]} asker=${cas[1]}
sm_guid=$(node_port_guid "$node_sm")
dir=$out/$kind
mkdir -p "$dir"
started=$SECONDS
case $kind in
  opensm)
    printf '%s\n' 'force_log_flush TRUE' 'max_wire_smps 64' 'max_wire_smps2 64' >"$dir/opensm.conf"
    start_opensm "$dir" "$node_sm" 0
    pid=$opensm_pid
    ;;
  ibsm | echo)
    printf '%s\n' '[sm]' "control_socket = \"$dir/control.sock\"" >"$dir/ibsm.toml"
    start_ibsm "$dir" "$node_sm" 0
    pid=$ibsm_pid
    ;;
esac
lids_ready() {
  quiet ibnetdiscover | ibnetdiscover_lids >ibnetdiscover.lids &&
    [[ -s ibnetdiscover.lids ]] && ! grep -qE ' (none|0x0000) ' ibnetdiscover.lids
}
if ! wait_sminfo_master "$asker" "$sm_guid" 300 || ! wait_until 300 lids_ready; then
  result up no
  exit 1
fi
result up_s $((SECONDS - started))
# Sorted: the same destinations in the same order for every SM, whatever
# order discovery found them in.
awk '$3 == "ca" { print $1 }' ibnetdiscover.lids | sort -u >targets
result targets "$(wc -l <targets)"
if [[ $kind == echo ]]; then
  # The ports keep the SM LID; the stand-in takes the SA's place on that port.
  stop_pid "$pid" TERM 10
  SIM_HOST=$node_sm "$client" echo --issm --idle-s 10 >echo.out 2>echo.err &
  pid=$!
fi
hwm_before=$(vm "$pid" VmHWM)
result hwm_before_kib "$hwm_before"
probe() {
  SIM_HOST=$asker "$client" pathload --targets targets --window 1 --count 1 --timeout-ms 2000 \
    >probe 2>probe.err
  [[ $(awk '$1 == "answers" { print $2 }' probe) == 1 ]]
}
if ! wait_until 10 probe; then
  result answers none
  kill -0 "$pid" 2>/dev/null && result sm_after_probe alive || result sm_after_probe exited
  stop_pid "$pid" TERM 10
  exit 0
fi
SIM_HOST=$asker "$client" pathload --targets targets --window "$window" --count "$warmup" \
  --seed $((seed + 1000)) >warmup 2>warmup.err
sm_before=$(cpu_ns "$pid") sim_before=$(cpu_ns "$IBSIM_PID")
perf_pid=""
if [[ -n ${SA_BENCH_PERF:-} && $kind != echo ]]; then
  # Not under umad2sim: perf is no client of the simulator.
  env -u LD_PRELOAD perf record -g -o "$out/perf.data" -p "$pid" >perf.out 2>perf.err &
  perf_pid=$!
  sleep 0.5 # perf attached before the first query
fi
SIM_HOST=$asker "$client" pathload --targets targets --window "$window" --count "$count" \
  --seed "$seed" >load 2>load.err
sm_after=$(cpu_ns "$pid") sim_after=$(cpu_ns "$IBSIM_PID")
if [[ -n $perf_pid ]]; then
  kill -INT "$perf_pid" 2>/dev/null
  wait "$perf_pid" 2>/dev/null
fi
load() { awk -v k="$1" '$1 == k { print $2 }' load; }
for k in answers timeouts errors seconds answers_per_s p50_us p99_us; do
  result "$k" "$(load "$k")"
done
answers=$(load answers)
result cpu_sm_us "$(per_answer_us "$sm_before" "$sm_after" "$answers")"
result cpu_sim_us "$(per_answer_us "$sim_before" "$sim_after" "$answers")"
result cpu_client_us "$(per_answer_us 0 "$(load cpu_s | awk '{ printf "%.0f", $1 * 1e9 }')" "$answers")"
# How much of one core the simulator (one thread) was busy during the load.
result sim_busy_pct "$(awk -v a="$sim_before" -v b="$sim_after" -v s="$(load seconds)" \
  'BEGIN { if (s > 0) printf "%.0f", (b - a) / 1e7 / s }')"
hwm_after=$(vm "$pid" VmHWM)
result hwm_after_kib "$hwm_after"
[[ -n $hwm_before && -n $hwm_after ]] && result hwm_growth_kib $((hwm_after - hwm_before))
result rss_after_kib "$(vm "$pid" VmRSS)"
if [[ $kind == echo ]]; then
  stop_pid "$pid" TERM 10 || true # the stand-in ends by the signal
else
  stop_pid "$pid" TERM 10
fi
