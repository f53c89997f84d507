#!/usr/bin/env bash
# The log as an operator runs it (issue 27). A daemon logging to a file:
# after `mv ibsm.log ibsm.log.1` (what logrotate does) and SIGHUP, the next
# lines go to a new ibsm.log and none to the moved file. log.level edited
# and reloaded (SIGHUP) sets the level; `ibsm log-level trace` sets it at
# once, shown by `ibsm status`, and gives a MAD trace (one MAD-0113 line
# per SMP, counted in the status); an unknown level is refused and changes
# nothing; the next SIGHUP applies log.level again and the trace stops.
# Also what the first sweep says of a fresh fabric: a first bring-up
# (first_bring_ups), and ibsim's switch ports that keep their partition
# enforcement bits counted in the status and named in one PROG-0307 line.
# The files' content is read where the files are the subject (which file
# gets the lines, the trace lines); everything else from the status.
#
#   run-with-ibsim.sh NETFILE -- log-rotate-level.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
ctl() { env -u LD_PRELOAD "$IBSM" "$@" --socket "$sock"; }

mkdir -p sm
ibsm_conf sm/ibsm.toml "$PWD/sm" 1000 2 2
printf '[log]\nlevel = "info"\n' >>sm/ibsm.toml
start_ibsm sm "${cas[0]}" 10
sock=sm/control.sock
wait_for_status $sock .up 60 || fail "the subnet is not up within 60 s"

# The first sweep of a fabric no SM ran.
[[ $(ibsm_status $sock .first_bring_ups) == 1 ]] ||
  fail "first_bring_ups is $(ibsm_status $sock .first_bring_ups) on a fresh fabric, expected 1"
[[ $(ibsm_status $sock .master_view) == null ]] || fail "a master shows a master_view"
kept=$(ibsm_status $sock '.last_heavy.counters.ports.enforcement_kept // 0')
echo "switch ports that kept their enforcement bits: $kept; PROG-0307 lines: $(count_lines sm/ibsm.log 'PROG-0307 ')"
[[ $kept -gt 1 ]] || fail "ibsim keeps every switch port's enforcement bits, status counts $kept"
[[ $(count_lines sm/ibsm.log 'PROG-0307 ') -eq 1 ]] ||
  fail "$(count_lines sm/ibsm.log 'PROG-0307 ') PROG-0307 lines for one sweep, expected 1"

# logrotate: move the file, SIGHUP, the next lines in a new file.
mv sm/ibsm.log sm/ibsm.log.1
reloads=$(ibsm_status $sock .reloads)
kill -HUP "$ibsm_pid"
wait_for_status $sock ".reloads > $reloads" 20 || fail "SIGHUP not taken within 20 s"
ctl sweep >/dev/null || fail "ibsm sweep failed"
wait_for_line sm/ibsm.log 'SM-0111 ' 10 || fail "no new ibsm.log with the next lines after mv and SIGHUP"
[[ $(count_lines sm/ibsm.log.1 'SM-0111 ') -eq 0 ]] || fail "lines still go to the moved file"

# log.level edited and reloaded.
sed -i 's/^level = "info"/level = "warn"/' sm/ibsm.toml
kill -HUP "$ibsm_pid"
wait_for_status $sock '.log.level == "warning" and .log.set_by == "config"' 20 ||
  fail "log.level warn reloaded, status says $(ibsm_status $sock '.log')"

# The operator's level, at once, and the MAD trace it gives.
answer=$(ctl log-level trace) || fail "ibsm log-level trace failed: $answer"
echo "ibsm log-level trace: $answer"
status_holds $sock '.log.level == "trace" and .log.set_by == "operator"' ||
  fail "after ibsm log-level trace, status says $(ibsm_status $sock '.log')"
heavy=$(ibsm_status $sock .sweeps_by_kind.heavy)
ctl sweep --heavy >/dev/null || fail "ibsm sweep --heavy failed"
wait_for_status $sock ".sweeps_by_kind.heavy > $heavy and .log.trace_lines > 0" 30 ||
  fail "no MAD trace after a heavy sweep at trace: $(ibsm_status $sock '.log')"
wait_for_line sm/ibsm.log 'MAD-0113 SubnGet\(NodeInfo 0x0011, mod 0x0\) DR 0: ok in [0-9]+ us, attempt 1' 10 ||
  fail "no MAD-0113 trace line of the heavy sweep's NodeInfo in the log"
ibsm_status $sock '"  trace: \(.log.trace_lines) lines, \(.log.trace_suppressed) suppressed"'
if ctl log-level loud >/dev/null 2>&1; then fail "ibsm log-level loud was accepted"; fi
[[ $(ibsm_status $sock .log.level) == trace ]] || fail "an unknown level changed the level"

# SIGHUP applies log.level again: the trace stops.
kill -HUP "$ibsm_pid"
wait_for_status $sock '.log.level == "warning" and .log.set_by == "config"' 20 ||
  fail "SIGHUP did not apply log.level again: $(ibsm_status $sock '.log')"
traced=$(ibsm_status $sock .log.trace_lines)
heavy=$(ibsm_status $sock .sweeps_by_kind.heavy)
ctl sweep --heavy >/dev/null || fail "ibsm sweep --heavy failed"
wait_for_status $sock ".sweeps_by_kind.heavy > $heavy" 30 || fail "no heavy sweep within 30 s"
[[ $(ibsm_status $sock .log.trace_lines) == "$traced" ]] || fail "traced at warn"

stop_pid "$ibsm_pid" TERM 10 || fail "ibsm did not stop on SIGTERM"
finish "log rotation and levels" sm/ibsm.log sm/stderr
