#!/usr/bin/env bash
# Issue 32's false takeover: a standby must not take over from a live master
# that is merely slow to answer. ibsm A is master and ibsm B (priority 5)
# its standby, at the default polling (1 s, 3 polls). A is then made slow
# by SIGSTOP / SIGCONT: stopped STOP_MS, then running RUN_MS, CYCLES times,
# so a poll's answer comes up to STOP_MS late, as a busy master's did at
# load 7 (1.1 s late); a cycle shorter than the polling timeout puts the
# polls at every point of it. Asserted: B stays STANDBY, takes over never and
# counts no missed poll (a poll gives its answer 4/5 of the polling
# timeout); A stays master. Prints B's counters. ~30 s.
#
#   run-with-ibsim.sh NETFILE -- failover-slow-master.sh path/to/ibsm [STOP_MS [RUN_MS [CYCLES]]]
set -u
IBSM=${1:?usage: $0 path/to/ibsm [STOP_MS [RUN_MS [CYCLES]]]}
stop_ms=${2:-700}
run_ms=${3:-250}
cycles=${4:-20}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
mapfile -t cas < <(net_cas "$net")
node_a=${cas[0]} node_b=${cas[-1]}

mkdir -p a b
ibsm_conf a/ibsm.toml "$PWD/a" default default 10
start_ibsm a "$node_a" 10
pid_a=$ibsm_pid
wait_for_status a/control.sock .up 60 || fail "ibsm A: the subnet is not up within 60 s"
ibsm_conf b/ibsm.toml "$PWD/b" default default 10
start_ibsm b "$node_b" 5
pid_b=$ibsm_pid
sock=b/control.sock
wait_for_status $sock '.state == "STANDBY"' 30 || fail "ibsm B did not turn STANDBY within 30 s"
sleep 2

stopped=$(printf '0.%03d' "$stop_ms") running=$(printf '0.%03d' "$run_ms")
for ((i = 0; i < cycles; i++)); do
  kill -STOP "$pid_a"
  sleep "$stopped"
  kill -CONT "$pid_a"
  sleep "$running"
done
sleep 2
json=$(ibsm_status_json $sock)
echo "master stopped $stop_ms ms, running $run_ms ms, $cycles times: B $(jq -c \
  '{state, missed_polls, times_master}' <<<"$json")"
jq -e '.state == "STANDBY" and .times_master == 0' <<<"$json" >/dev/null ||
  fail "B took over from a live, slow master: $(stats_summary <<<"$json")"
jq -e '.missed_polls == 0' <<<"$json" >/dev/null ||
  fail "B counted $(jq .missed_polls <<<"$json") missed poll(s) of a master answering within the polling timeout"
status_holds a/control.sock '.state == "MASTER"' || fail "A is no longer master"

stop_pid "$pid_b" TERM 5 || fail "ibsm B did not stop on SIGTERM"
stop_pid "$pid_a" TERM 5 || fail "ibsm A did not stop on SIGTERM"
finish "$(basename "$net" .net): a master answering up to ${stop_ms} ms late is not taken over, $((SECONDS - start)) s" \
  b/ibsm.log a/ibsm.log
