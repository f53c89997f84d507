#!/usr/bin/env bash
# One subnet manager's run for scripts/bench-sm.sh, inside
# tests/sm/ibsim/run-with-ibsim.sh (LD_PRELOAD=umad2sim, IBSIM_CONSOLE set):
#
#   sm-scenario.sh OUTDIR KIND MADCOUNT_SO IBSM INTERVAL POLL_MS RETRIES SPINE PORT
#
# KIND is ibsm or opensm. A master (priority 10, first CA of the net file)
# and a standby (priority 5, last CA) of that kind, both with light sweeps
# every INTERVAL s and SM-to-SM polling every POLL_MS ms with RETRIES
# retries, each with MadCount.cpp's per-MAD trace (OUTDIR/{master,standby}/trace).
# Then, in order:
#   quiet     3 intervals with no change: the master's requests per interval
#   reroute   `Unlink SPINE[PORT]`, to the master's next "up" log line
#   failover  SIGKILL to the master; from the standby leaving STANDBY (its
#             detection of the loss) to its "up" line and to sminfo naming it
# and judges each with infiniband-diags (the walk of run-checks.sh). Writes
# OUTDIR/results as "key value" lines; times in ms, MADs are requests
# (responses to the other SM's polls left out), CPU seconds are the SM's and
# the simulator's from the event to the SM's "up" line (seen within ~10 ms).
set -u
out=$1 kind=$2 madcount=$3 IBSM=$4 interval=$5 poll_ms=$6 retries=$7 spine=$8 port=$9
source "$(dirname "$0")/../../tests/sm/run/run-checks.sh"
net=$IBSIM_NETFILE
cd "$out" || exit 2
: >results
result() { echo "$1 $2" >>results; echo "  $1 $2" >&2; }
now_ns() { date +%s%N; }
mapfile -t cas < <(net_cas "$net")
node_a=${cas[0]} node_b=${cas[-1]} asker=${cas[${#cas[@]} / 2]}
guid_b=$(node_port_guid "$node_b")

# Epoch ns of a log line's time stamp, either SM's format.
stamp_ns() {
  local line=$1
  if [[ $line == \[* ]]; then # ibsm: "[2026-12-02 17:44:40.549] ..."
    local s=${line#[}
    s=${s%%]*}
    echo $(($(date -d "${s%.*}" +%s) * 1000000000 + 10#${s##*.} * 1000000))
  else # OpenSM: "Dec 02 17:46:17 304010 [..] ..."
    local mon day hms usec
    read -r mon day hms usec _ <<<"$line"
    echo $(($(date -d "$mon $day $hms" +%s) * 1000000000 + 10#$usec * 1000))
  fi
}
# CPU clock ticks (user + system) of the processes PID...; wall time on a
# shared machine moves with the load, CPU time much less.
sim_pid=$(pgrep -P "$PPID" -x ibsim | head -n 1)
cpu_ticks() {
  local pid n=0 u st
  for pid in "$@"; do
    [[ -r /proc/$pid/stat ]] || continue
    read -r u st < <(sed 's/^.*) //' "/proc/$pid/stat" | awk '{ print $12, $13 }')
    n=$((n + u + st))
  done
  echo "$n"
}
cpu_s() { awk -v t="$1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }'; }

# Requests (not responses) in a trace between two epoch ns, as "total attr=n ...".
requests_between() {
  awk -v a="$2" -v b="$3" '$1 >= a && $1 < b && $2 != "0x81" && $2 != "0x07" {
      n++; k[($2 == "0x01" ? "Get" : $2 == "0x02" ? "Set" : $2) ":" $3]++ }
    END { printf "%d", n; for (x in k) printf " %s=%d", x, k[x]; print "" }' "$1"
}

if [[ $kind == ibsm ]]; then
  up_re='SM-0001 subnet up' standby_re='SM-0101 state STANDBY' lost_re='SM-0101 state DISCOVERING'
  log_of() { echo "$1/ibsm.log"; }
  start_sm() { # dir node prio
    mkdir -p "$1"
    ibsm_conf "$1/ibsm.toml" "$PWD/$1" "$poll_ms" "$retries" "$interval"
    start_ibsm "$1" "$2" "$3"
    sm_pid=$ibsm_pid
  }
else
  up_re='SUBNET UP' standby_re='Entering STANDBY' lost_re='Entering DISCOVERING'
  log_of() { echo "$1/log"; }
  start_sm() {
    mkdir -p "$1"
    opensm_conf "$1/opensm.conf" "$poll_ms" "$retries" "$interval"
    start_opensm "$1" "$2" "$3"
    sm_pid=$opensm_pid
  }
fi
# Runs START_SM DIR ... with MadCount.cpp preloaded and tracing into DIR.
with_madcount() {
  local saved=$LD_PRELOAD
  export LD_PRELOAD="$madcount:$saved" MADCOUNT_TRACE=$PWD/$2/trace MADCOUNT_OUT=$PWD/$2/mads
  "$@"
  export LD_PRELOAD=$saved
  unset MADCOUNT_TRACE MADCOUNT_OUT
}

t=$(now_ns)
with_madcount start_sm master "$node_a" 10
master_pid=$sm_pid
wait_for_line "$(log_of master)" "$up_re" 900 || { echo "master never up" >&2; exit 1; }
result bringup_ms $((($(stamp_ns "$(grep -m1 -E "$up_re" "$(log_of master)")") - t) / 1000000))
with_madcount start_sm standby "$node_b" 5
standby_pid=$sm_pid
wait_for_line "$(log_of standby)" "$standby_re" 300 || { echo "standby never STANDBY" >&2; kill "$master_pid" "$standby_pid"; exit 1; }
# Let the master absorb the newcomer (OpenSM re-sweeps on its Trap 144).
sleep $((interval + 2))

# (a) quiet
t0=$(now_ns)
sleep $((3 * interval))
t1=$(now_ns)
read -r n detail < <(requests_between master/trace "$t0" "$t1")
result quiet_per_interval "$(awk -v n="$n" 'BEGIN { printf "%.1f", n / 3 }')"
result quiet_detail "${detail// /,}"

# (b) reroute
mark=$(wc -l <"$(log_of master)")
c0=$(cpu_ticks "$master_pid" "$sim_pid")
t0=$(now_ns)
console "Unlink \"$spine\"[$port]"
if wait_for_line_since "$(log_of master)" "$mark" "$up_re" 120; then
  c1=$(cpu_ticks "$master_pid" "$sim_pid")
  line=$(log_since "$(log_of master)" "$mark" | grep -m1 -E "$up_re")
  t1=$(stamp_ns "$line")
  result reroute_cpu_s "$(cpu_s $((c1 - c0)))"
  sleep 1
  read -r n detail < <(requests_between master/trace "$t0" "$((t1 + 1000000))")
  result reroute_ms $(((t1 - t0) / 1000000))
  result reroute_mads "$n"
  result reroute_lft_blocks "$(grep -o 'Set:0x0019=[0-9]*' <<<"$detail" | cut -d= -f2 || echo 0)"
  result reroute_detail "${detail// /,}"
  failures=0
  read -r far_node far_port < <(net_far_end "$net" "$spine" "$port")
  check_all_pairs_walk >&2
  quiet dump_fts >dump_fts.txt
  check_nothing_forwards_into "$spine" "$port"
  check_nothing_forwards_into "$far_node" "$far_port"
  result reroute_verified "$([[ $failures -eq 0 ]] && echo yes || echo NO)"
else
  result reroute_ms timeout
fi

# (c) failover
mark=$(wc -l <"$(log_of standby)")
c0=$(cpu_ticks "$standby_pid" "$sim_pid")
t_kill=$(now_ns)
kill -KILL "$master_pid"
wait "$master_pid" 2>/dev/null
if wait_for_line_since "$(log_of standby)" "$mark" "$up_re" 300; then
  t_up=$(stamp_ns "$(log_since "$(log_of standby)" "$mark" | grep -m1 -E "$up_re")")
  c1=$(cpu_ticks "$standby_pid" "$sim_pid")
  result failover_cpu_s "$(cpu_s $((c1 - c0)))"
  wait_sminfo_master "$asker" "$guid_b" 60
  t_sminfo=$(now_ns)
  # Detection: the standby leaves STANDBY; for ibsm, failing that, its last
  # "master silent" line before the up line.
  lost=$(log_since "$(log_of standby)" "$mark" | grep -m1 -E "$lost_re" ||
    log_since "$(log_of standby)" "$mark" | sed "/$up_re/q" | grep 'SM-0103' | tail -n 1)
  if [[ -n $lost ]]; then
    t_detect=$(stamp_ns "$lost")
  else
    echo "the standby's log shows no detection; timing from the kill" >&2
    t_detect=$t_kill
  fi
  ((t_sminfo > t_up)) && t_ver=$t_sminfo || t_ver=$t_up
  read -r n detail < <(requests_between standby/trace "$t_detect" "$((t_up + 1000000))")
  result failover_detect_ms $(((t_detect - t_kill) / 1000000))
  result failover_up_ms $(((t_up - t_detect) / 1000000))
  result failover_sminfo_ms $(((t_sminfo - t_detect) / 1000000))
  result failover_verified_ms $(((t_ver - t_detect) / 1000000))
  result failover_mads "$n"
  result failover_detail "${detail// /,}"
  failures=0
  check_links_active "$net" 2
  check_all_pairs_walk >&2
  result failover_verified "$([[ $failures -eq 0 ]] && echo yes || echo NO)"
else
  result failover_up_ms timeout
fi
stop_pid "$standby_pid" TERM 10
exit 0
