#!/usr/bin/env bash
# One host flooding the SA cannot slow another down (issue 29): ibsm master on
# the first CA of NETFILE; a victim host sends one PathRecord Get every few
# milliseconds (tests/tools/sa-client pathload --interval-ms) and measures its
# own latencies in windows of WINDOW_S seconds, quiet and flooded in turn,
# PAIRS of each, while a third host floods: first with PathRecord Gets kept
# as deep as it can (pathload --window 64, bounded only by how fast answers
# and its timeouts come back), then with multicast joins as fast as it can
# (sa-client mcast flood --window 64: every join a create of a new group, as
# a host sends one, so the first sa.max_joins_per_port of them are granted,
# each a group the SM plans and programs, and the rest refused). The flooder
# is stopped (SIGSTOP) for each quiet window and let go for each flooded one,
# so that a load others put on the machine weighs on both windows of a pair.
# Asserted: for each flood, the p99 of the victim's answers in the flooded
# windows (pooled) is at most twice that in the quiet ones; every victim
# query answered;
# the SA's fairness counters (sa.fairness) saw the flood's queue fill; the
# join flood got exactly its cap of groups, every join past it refused with
# ERR_NO_RESOURCES (status 0x0100, IBA 15.2.1.1), and the SA counted as many
# (sa.fairness.joins_over_cap) as the flooder was refused. Printed: every
# pair's p99s, each flood's answer rate, and the daemon's CPU seconds
# (user+sys, /proc) in the quiet and flooded windows, so that a miss says
# where the time went.
#
#   sa-flood.sh path/to/ibsm path/to/sa-client NETFILE
set -u
IBSM=${1:?usage: $0 path/to/ibsm path/to/sa-client NETFILE}
CLIENT=${2:?} net=${3:?}
here=$(cd "$(dirname "$0")" && pwd)
if [[ -z ${IBSIM_SOCKNAME:-} ]]; then
  exec "$here/../ibsim/run-with-ibsim.sh" "$net" -- "$here/$(basename "$0")" \
    "$(realpath "$IBSM")" "$(realpath "$CLIENT")" "$net"
fi
source "$here/run-checks.sh"
start=$SECONDS
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
node_sm=${cas[0]} victim=${cas[1]} flooder=${cas[2]}
PAIRS=${SA_FLOOD_PAIRS:-3} WINDOW_S=${SA_FLOOD_WINDOW_S:-2}
sock=$PWD/control.sock
printf '[sm]\ncontrol_socket = "%s"\n' "$sock" >ibsm.toml
SIM_HOST=$node_sm "$IBSM" run -F ibsm.toml --state-dir state --log-file ibsm.log \
  --stats stats.json >stdout.txt 2>stderr.txt &
pid=$!
flood_pid= victim_pid=
cleanup() {
  [[ -n $flood_pid ]] && kill -CONT "$flood_pid" 2>/dev/null && kill "$flood_pid" 2>/dev/null
  [[ -n $victim_pid ]] && kill "$victim_pid" 2>/dev/null
  kill -0 "$pid" 2>/dev/null && stop_pid "$pid" TERM 10
}
trap cleanup EXIT

value() { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1"; }
# The daemon's CPU seconds so far, user + system (/proc/PID/stat fields 14, 15).
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$pid/stat"; }
victim_run() { # OUTFILE: the victim's modest, paced PathRecord Gets
  SIM_HOST=$victim "$CLIENT" pathload --targets targets --window 1 --interval-ms 5 \
    --seconds "$WINDOW_S" --timeout-ms 2000 --seed 3 --latencies "$1.us" >"$1" 2>"$1.err"
}

wait_for_status "$sock" '.up' 60 || { fail "the subnet is not up within 60 s"; exit 1; }
wait_until 30 eval 'quiet ibnetdiscover | ibnetdiscover_lids >ibnetdiscover.lids && [[ -s ibnetdiscover.lids ]]' ||
  fail "ibnetdiscover found no LIDs"
awk '$3 == "ca" { print $1 }' ibnetdiscover.lids >targets

# Quiet and flooded windows alternate, PAIRS of each, the flooder stopped
# (SIGSTOP) for each quiet window and let go (SIGCONT) for each flooded one:
# the machine may be loaded by others (a shared CI host, parallel tests),
# and a load that changes over seconds then weighs on both windows of a
# pair alike instead of on one long phase. The verdict pools the answers of
# all quiet windows and of all flooded ones and compares their p99s.
flooder_alive() { [[ -r /proc/$flood_pid/stat ]] && [[ $(awk '{ print $3 }' "/proc/$flood_pid/stat") != Z ]]; }
# pairs KIND: the alternation beside the running flooder; KIND.quiet.I and
# KIND.flooded.I are the victim's outputs; sets quiet_cpu and flood_cpu (s).
pairs() {
  local kind=$1 i c0 c1 c2
  quiet_cpu=0 flood_cpu=0
  for ((i = 1; i <= PAIRS; i++)); do
    kill -STOP "$flood_pid"
    sleep 0.2 # what the flooder had queued is answered before the window
    c0=$(cpu_s)
    victim_run "$kind.quiet.$i" || fail "the victim, quiet window $i of the $kind: pathload exits $?"
    c1=$(cpu_s)
    kill -CONT "$flood_pid"
    sleep 0.2
    victim_run "$kind.flooded.$i" || fail "the victim beside the $kind, window $i: pathload exits $?"
    c2=$(cpu_s)
    flooder_alive || fail "the $kind ended before the victim's flooded window $i did: $(cat "$kind.err")"
    quiet_cpu=$(awk -v t="$quiet_cpu" -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", t + b - a }')
    flood_cpu=$(awk -v t="$flood_cpu" -v a="$c1" -v b="$c2" 'BEGIN { printf "%.2f", t + b - a }')
  done
}
# p99 FILE...: the 99th percentile of the latencies in the files, pooled.
p99() { cat "$@" | sort -n | awk '{ v[NR] = $1 } END { i = int(NR * 0.99); print NR ? v[i < 1 ? 1 : i] : 0 }'; }
# verdict KIND LABEL: the p99 of every quiet window's answers pooled beside
# that of every flooded window's, at most 2x; each pair's printed.
verdict() {
  local kind=$1 label=$2 i w line quiet flooded
  for ((i = 1; i <= PAIRS; i++)); do
    line+=" $(value "$kind.quiet.$i" p99_us)/$(value "$kind.flooded.$i" p99_us)"
    for w in quiet flooded; do
      [[ $(value "$kind.$w.$i" timeouts) == 0 && $(value "$kind.$w.$i" errors) == 0 &&
        $(value "$kind.$w.$i" answers) -gt 0 ]] ||
        fail "victim, $kind $w window $i: $(value "$kind.$w.$i" answers) answered," \
          "$(value "$kind.$w.$i" timeouts) timeouts, $(value "$kind.$w.$i" errors) errors"
    done
  done
  quiet=$(p99 "$kind".quiet.*.us) flooded=$(p99 "$kind".flooded.*.us)
  echo "victim beside the $label: p99 quiet $quiet us, flooded $flooded us ($(cat "$kind".quiet.*.us | wc -l)" \
    "and $(cat "$kind".flooded.*.us | wc -l) answers); by pair, quiet/flooded:$line;" \
    "ibsm cpu $quiet_cpu s quiet, $flood_cpu s flooded"
  awk -v q="$quiet" -v f="$flooded" 'BEGIN { exit !(q > 0 && f <= 2 * q) }' ||
    fail "the victim's p99 beside the $label, $flooded us, is more than twice its quiet p99, $quiet us"
}
# A flooder runs until its stop file appears (sa-client --stop-file), after
# the last pair; --seconds only bounds it if the script dies.
flood_seconds=$((PAIRS * (2 * WINDOW_S + 3) + 60))

# 1. A PathRecord flood.
t0=$SECONDS
SIM_HOST=$flooder "$CLIENT" pathload --targets targets --window 64 --timeout-ms 100 \
  --seconds "$flood_seconds" --stop-file flood.stop --seed 5 >flood 2>flood.err &
flood_pid=$!
sleep 1
pairs flood
touch flood.stop
wait "$flood_pid"
flood_pid=
verdict flood "PathRecord flood"
# 2. A join flood from the same host (its cap: the default): its first
# flooded window meets its first joins, the groups they create, planned and
# programmed (MFTs) by the SM while it answers, then the refusals past the cap.
t1=$SECONDS
c4=$(cpu_s)
SIM_HOST=$flooder "$CLIENT" mcast flood --window 64 --timeout-ms 100 \
  --seconds "$flood_seconds" --stop-file joins.stop >joins 2>joins.err &
flood_pid=$!
kill -STOP "$flood_pid" # it starts with the first flooded window
pairs joins
touch joins.stop
wait "$flood_pid"
flood_pid=
c5=$(cpu_s)
verdict joins "join flood"
echo "flood: $(value flood sent) sent, $(value flood answers) answered ($(value flood answers_per_s)/s)," \
  "$(value flood timeouts) timed out; client cpu $(value flood cpu_s) s; $((t1 - t0)) s wall"
echo "join flood: $(value joins requests) sent, $(value joins answers) answered ($(value joins answers_per_s)/s):" \
  "$(value joins ok) granted, $(value joins status_0x0100) refused NO_RESOURCES, $(value joins refused) refused in all," \
  "$(value joins timeouts) never answered; client cpu $(value joins cpu_s) s;" \
  "ibsm cpu $(awk -v a="$c4" -v b="$c5" 'BEGIN { printf "%.2f", b - a }') s in $((SECONDS - t1)) s wall"
fairness=$(ibsm_status_json "$sock" | jq -c .sa.fairness)
echo "sa.fairness: $fairness"
echo "sa.multicast: $(ibsm_status_json "$sock" | jq -c .sa.multicast)"

flooded_answers=0
for ((i = 1; i <= PAIRS; i++)); do flooded_answers=$((flooded_answers + $(value "flood.flooded.$i" answers))); done
[[ $(value flood answers) -gt $flooded_answers ]] ||
  fail "the flood was no flood: $(value flood answers) answers beside the victim's $flooded_answers"
status_holds "$sock" '.sa.fairness.queued > 0' ||
  fail "the SA's fair queue counted nothing: $fairness"
# The join flood: its cap granted (the flooder's port is in no group before:
# ibsim hosts run no IPoIB), every join past it refused NO_RESOURCES, and
# the SA counted each refusal the flooder saw.
cap=256 # sa.max_joins_per_port's default
refused=$(value joins status_0x0100)
[[ $(value joins ok) == "$cap" ]] ||
  fail "the join flood was granted $(value joins ok) joins, not its cap of $cap"
[[ ${refused:-0} -gt 0 && $(value joins refused) == "$refused" ]] ||
  fail "joins past the cap: $(value joins refused) refused, ${refused:-0} of them NO_RESOURCES (0x0100): $(grep status_ joins | tr '\n' ' ')"
[[ $(jq -r .joins_over_cap <<<"$fairness") == "$refused" ]] ||
  fail "sa.fairness.joins_over_cap is $(jq -r .joins_over_cap <<<"$fairness"), the flooder was refused $refused"
kill -0 "$pid" 2>/dev/null || fail "ibsm died under the flood"
finish "$(basename "$net" .net): SA flood, $((SECONDS - start)) s" ibsm.log
