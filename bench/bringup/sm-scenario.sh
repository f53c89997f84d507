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
#   bring-up  the master's start to its first "up": time and requests
#   reroute   `Unlink SPINE[PORT]`, to the master's next "up"; then the
#             busiest link under the tables it left (ibsm route --previous)
#   failover  SIGKILL to the master; from the standby leaving STANDBY (its
#             detection of the loss) to its "up" and to sminfo naming it
# and judges each with infiniband-diags (the walk of run-checks.sh). Writes
# OUTDIR/results as "key value" lines; times in ms, MADs are requests
# (responses to the other SM's polls left out), CPU seconds are the SM's and
# the simulator's from the event to the SM's "up" (seen within ~10 ms).
# "Up" and its time: for ibsm from `ibsm status --json` (up_reports counts
# its "subnet up" reports, last_up_unix_ms times the last; recent_states
# times its state changes), for OpenSM from its log (SUBNET UP, Entering ...).
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

# Epoch ns of an OpenSM log line's time stamp ("Dec 02 17:46:17 304010 [..] ...").
stamp_ns() {
  local mon day hms usec
  read -r mon day hms usec _ <<<"$1"
  echo $(($(date -d "$mon $day $hms" +%s) * 1000000000 + 10#$usec * 1000))
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

# The busiest link under the tables the master left (DUMP: dump_fts output),
# judged by ibsm's dry run on the net file with the master's own LIDs (its
# guid2lid): the report's previous.busiestBefore is the load of those tables.
busiest_after_reroute() {
  local json
  json=$("$IBSM" route --topology "$net" --guid2lid "$(guid2lid_of master)" --previous "$1" \
    --previous-topology "$net" --out dry-reroute --json 2>ibsm-route.err) ||
    { echo "ibsm route failed" >&2; return; }
  result reroute_busiest_routes "$(jq -r '.previous.busiestBefore.routes' <<<"$json")"
  result reroute_busiest_over_mean "$(jq -r '.previous.busiestBefore.maxOverMean * 100 | round / 100' <<<"$json")"
  result reroute_busiest_link "$(jq -r '.previous.busiestBefore.link | gsub(" "; "")' <<<"$json")"
}

# What each kind says, behind one interface:
#   mark DIR            a mark of "now" for the two below
#   wait_up DIR MARK S  waits up to S s for an "up" after MARK
#   up_ns DIR MARK      epoch ns of the first "up" after MARK
#   wait_standby DIR S  waits up to S s for STANDBY
#   lost_ns DIR MARK    epoch ns of leaving STANDBY after MARK (empty: not seen)
if [[ $kind == ibsm ]]; then
  sock_of() { echo "$1/control.sock"; }
  guid2lid_of() { echo "$1/state/guid2lid"; }
  mark() { ibsm_status "$(sock_of "$1")" .up_reports; }
  wait_up() { wait_for_status "$(sock_of "$1")" ".up_reports > $2" "$3"; }
  up_ns() { echo $(($(ibsm_status "$(sock_of "$1")" .last_up_unix_ms) * 1000000)); }
  wait_standby() { wait_for_status "$(sock_of "$1")" '.state == "STANDBY"' "$2"; }
  # The first change to DISCOVERING after the time MARK_NS.
  lost_ns() {
    local ms
    ms=$(ibsm_status "$(sock_of "$1")" "[.recent_states[] | select(.state == \"DISCOVERING\" and .at_unix_ms * 1000000 >= $3)][0].at_unix_ms // empty")
    [[ -z $ms ]] || echo $((ms * 1000000))
  }
  start_sm() { # dir node prio
    mkdir -p "$1"
    ibsm_conf "$1/ibsm.toml" "$PWD/$1" "$poll_ms" "$retries" "$interval"
    start_ibsm "$1" "$2" "$3"
    sm_pid=$ibsm_pid
  }
else
  mark() { wc -l <"$1/log"; }
  guid2lid_of() { echo "$1/guid2lid"; }
  wait_up() { wait_for_line_since "$1/log" "$2" 'SUBNET UP' "$3"; }
  up_ns() { stamp_ns "$(log_since "$1/log" "$2" | grep -m1 'SUBNET UP')"; }
  wait_standby() { wait_for_line "$1/log" 'Entering STANDBY' "$2"; }
  lost_ns() {
    local line
    line=$(log_since "$1/log" "$2" | grep -m1 'Entering DISCOVERING') || return 0
    stamp_ns "$line"
  }
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
wait_up master 0 900 || { echo "master never up" >&2; exit 1; }
t_up=$(up_ns master 0)
result bringup_ms $(((t_up - t) / 1000000))
sleep 1 # the trace is written as MADs go; let the last ones land
read -r n detail < <(requests_between master/trace "$t" "$((t_up + 1000000))")
result bringup_mads "$n"
result bringup_detail "${detail// /,}"
if [[ $kind == ibsm ]]; then # what its discovery found, beside the floor's count from the net file
  result bringup_nodes "$(ibsm_status "$(sock_of master)" '.last_heavy.counters.discovery.nodes // .last_sweep.counters.discovery.nodes // "?"')"
  result bringup_cables "$(ibsm_status "$(sock_of master)" '.last_heavy.counters.discovery.cables // .last_sweep.counters.discovery.cables // "?"')"
fi
if [[ ${SCENARIO_BRINGUP_ONLY:-0} == 1 ]]; then # bench-sm.sh --bringup-only
  stop_pid "$master_pid" TERM 10
  exit 0
fi
standby_pid=""
if [[ ${SCENARIO_REROUTE_ONLY:-0} != 1 ]]; then # the standby is for (c)
  with_madcount start_sm standby "$node_b" 5
  standby_pid=$sm_pid
  wait_standby standby 300 || { echo "standby never STANDBY" >&2; kill "$master_pid" "$standby_pid"; exit 1; }
fi
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
m=$(mark master)
c0=$(cpu_ticks "$master_pid" "$sim_pid")
t0=$(now_ns)
console "Unlink \"$spine\"[$port]"
if wait_up master "$m" 120; then
  c1=$(cpu_ticks "$master_pid" "$sim_pid")
  t1=$(up_ns master "$m")
  result reroute_cpu_s "$(cpu_s $((c1 - c0)))"
  sleep 1
  read -r n detail < <(requests_between master/trace "$t0" "$((t1 + 1000000))")
  result reroute_ms $(((t1 - t0) / 1000000))
  # Where the time went: the Unlink to the master's first SMP (the trap
  # seen), to its first and last LFT block written (0x19 Sets).
  read -r first_smp first_lft last_lft < <(awk -v a="$t0" -v b="$((t1 + 1000000))" \
    '$1 >= a && $1 < b && $2 != "0x81" && $2 != "0x07" { if (!f) f = $1
       if ($2 == "0x02" && $3 == "0x0019") { if (!fl) fl = $1; ll = $1 } }
     END { printf "%.0f %.0f %.0f\n", f, fl, ll }' master/trace)
  ms_since_unlink() { [[ $1 -gt 0 ]] && echo $((($1 - t0) / 1000000)) || echo none; }
  result reroute_first_smp_ms "$(ms_since_unlink "$first_smp")"
  result reroute_first_lft_ms "$(ms_since_unlink "$first_lft")"
  result reroute_last_lft_ms "$(ms_since_unlink "$last_lft")"
  result reroute_mads "$n"
  lft_sets=$(grep -o 'Set:0x0019=[0-9]*' <<<"$detail" | cut -d= -f2)
  result reroute_lft_blocks "${lft_sets:-0}"
  result reroute_detail "${detail// /,}"
  failures=0
  read -r far_node far_port < <(net_far_end "$net" "$spine" "$port")
  check_all_pairs_walk >&2
  quiet dump_fts >dump_fts.txt
  check_nothing_forwards_into "$spine" "$port"
  check_nothing_forwards_into "$far_node" "$far_port"
  result reroute_verified "$([[ $failures -eq 0 ]] && echo yes || echo NO)"
  busiest_after_reroute dump_fts.txt
else
  result reroute_ms timeout
fi
if [[ ${SCENARIO_REROUTE_ONLY:-0} == 1 ]]; then # bench-sm.sh --reroute-only: no standby, no (c)
  stop_pid "$master_pid" TERM 10
  exit 0
fi

# (c) failover
m=$(mark standby)
c0=$(cpu_ticks "$standby_pid" "$sim_pid")
s0=$(cpu_ticks "$standby_pid")
t_kill=$(now_ns)
kill -KILL "$master_pid"
wait "$master_pid" 2>/dev/null
if wait_up standby "$m" 300; then
  t_up=$(up_ns standby "$m")
  c1=$(cpu_ticks "$standby_pid" "$sim_pid")
  s1=$(cpu_ticks "$standby_pid")
  result failover_cpu_s "$(cpu_s $((c1 - c0)))"
  result failover_sm_cpu_s "$(cpu_s $((s1 - s0)))" # the standby alone, ibsim's CPU apart
  wait_sminfo_master "$asker" "$guid_b" 60
  t_sminfo=$(now_ns)
  # Detection: the standby leaves STANDBY.
  t_detect=$(lost_ns standby "$m" "$t_kill")
  if [[ -z $t_detect ]]; then
    echo "the standby shows no detection; timing from the kill" >&2
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
