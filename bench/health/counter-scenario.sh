#!/usr/bin/env bash
# The counter sweep's benchmark scenario (scripts/bench-health.sh runs it
# under run-with-ibsim.sh): one ibsm master on the fabric with light sweeps
# only when asked, counter_interval 1 s (COUNTERS=0: off).
#   results: first and second pass (GMPs, ms, AllPortSelect reads, port
#   reads, reads spared), then light sweeps asked with `ibsm sweep`: with
#   COUNTERS=1 each is fired just after a pass is due to start, and kept
#   when the daemon counts it as begun during a pass (sweeps_during_pass).
#   Each light sweep's duration and SMPs go to WORK/sweeps ("ms mads").
#
#   counter-scenario.sh WORK IBSM COUNTERS(0|1) SWEEPS
set -u
work=$1 ibsm=$2 counters=$3 sweeps=$4
mkdir -p "$work"
cd "$work" || exit 1
sock=$work/control.sock
interval=$((counters ? 1 : 0))
printf '%s\n' '[sm]' 'sweep_interval = 0' "control_socket = \"$sock\"" \
  '[health]' "counter_interval = $interval" 'counter_window = 8' >ibsm.toml
"$ibsm" run -F ibsm.toml --state-dir "$work/state" --log-file "$work/ibsm.log" >stdout 2>stderr &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
status() { env -u LD_PRELOAD "$ibsm" status --json --socket "$sock" 2>/dev/null | jq -r "$1"; }
wait_for() { # JQ-CONDITION SECONDS
  local deadline=$((SECONDS + $2))
  until [[ $(status "$1") == true ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.01
  done
}
wait_for .up 600 || { echo "not up in 600 s" >&2; exit 1; }
echo "up_ms $(status .first_up_ms)" >results
if ((counters)); then
  for pass in 1 2; do
    wait_for ".health.counters.passes >= $pass" 120 || { echo "no pass $pass" >&2; exit 1; }
    status ".health.counters | \"pass${pass}_gmps \(.last_pass_gmps)\npass${pass}_ms \(.last_pass_ms)\nafter${pass}_all_port_reads \(.all_port_reads)\nafter${pass}_port_reads \(.port_reads)\nafter${pass}_spared \(.port_reads_spared)\"" >>results
  done
fi
: >sweeps
tries=0
while (($(wc -l <sweeps) < sweeps && tries < 6 * sweeps)); do
  tries=$((tries + 1))
  light=$(status '.sweeps_by_kind.light_quiet + .sweeps_by_kind.light_changed // 0')
  during=$(status '.health.counters.sweeps_during_pass')
  if ((counters)); then
    # A pass starts 1 s after the last one started: fire just after that.
    passes=$(status .health.counters.passes)
    wait_for ".health.counters.passes > $passes" 10 || continue
    # It started last_pass_ms before it ended (wall clock, ms): the next
    # starts 1000 ms after that; fire 2 ms later.
    read -r end took < <(status '.health.counters | "\(.last_pass_unix_ms) \(.last_pass_ms)"')
    sleep "$(awk -v e="$end" -v d="$took" -v now="$(date +%s%3N)" \
      'BEGIN { s = (e - d + 1000 + 2 - now) / 1000; while (s < 0) s += 1; print s }')"
  else
    sleep 0.2
  fi
  env -u LD_PRELOAD "$ibsm" sweep --socket "$sock" >/dev/null 2>&1 || continue
  wait_for "(.sweeps_by_kind.light_quiet + .sweeps_by_kind.light_changed // 0) > $light" 60 || continue
  if ((counters)) && [[ $(status .health.counters.sweeps_during_pass) -le $during ]]; then
    continue # the sweep did not begin during a pass
  fi
  status '.last_sweep | "\(.duration_ms) \(.mads)"' >>sweeps
done
status '.health.counters | "total_gmps \(.gmps)\ntimeouts \(.timeouts)\nsweeps_during_pass \(.sweeps_during_pass)"' >>results
echo "sweep_tries $tries" >>results
