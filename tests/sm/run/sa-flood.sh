#!/usr/bin/env bash
# One host flooding the SA cannot slow another down (issue 29): ibsm master on
# the first CA of NETFILE; a victim host sends one PathRecord Get every few
# milliseconds (tests/tools/sa-client pathload --interval-ms) and measures its
# own latencies, first alone, then while a third host keeps a window of
# PathRecord Gets as deep as it can (pathload --window 64, a flood bounded
# only by how fast answers and its timeouts come back), then while that host
# joins multicast groups as fast as it can instead, from a second into the
# victim's run (sa-client mcast flood --window 64: every join a create of a
# new group, as a host sends one, so the first sa.max_joins_per_port of them
# are granted, each a group the SM plans and programs, and the rest refused). Asserted: the victim's p99
# under each flood is at most twice its p99 alone, all measured in this run;
# every victim query answered; the SA's fairness counters (sa.fairness) saw
# the flood's queue fill; the join flood got exactly its cap of groups, every
# join past it refused with ERR_NO_RESOURCES (status 0x0100, IBA 15.2.1.1),
# and the SA counted as many (sa.fairness.joins_over_cap) as the flooder was
# refused. Printed: p50/p99 of each phase, each flood's answer rate, and the
# daemon's CPU seconds (user+sys, /proc) in each phase beside the wall time,
# so that a miss says where the time went.
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
PHASE_S=${SA_FLOOD_PHASE_S:-8}
sock=$PWD/control.sock
printf '[sm]\ncontrol_socket = "%s"\n' "$sock" >ibsm.toml
SIM_HOST=$node_sm "$IBSM" run -F ibsm.toml --state-dir state --log-file ibsm.log \
  --stats stats.json >stdout.txt 2>stderr.txt &
pid=$!
flood_pid= victim_pid=
cleanup() {
  [[ -n $flood_pid ]] && kill "$flood_pid" 2>/dev/null
  [[ -n $victim_pid ]] && kill "$victim_pid" 2>/dev/null
  kill -0 "$pid" 2>/dev/null && stop_pid "$pid" TERM 10
}
trap cleanup EXIT

value() { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1"; }
# The daemon's CPU seconds so far, user + system (/proc/PID/stat fields 14, 15).
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$pid/stat"; }
victim_run() { # OUTFILE: the victim's modest, paced PathRecord Gets
  SIM_HOST=$victim "$CLIENT" pathload --targets targets --window 1 --interval-ms 5 \
    --seconds "$PHASE_S" --timeout-ms 2000 --seed 3 >"$1" 2>"$1.err"
}

wait_for_status "$sock" '.up' 60 || { fail "the subnet is not up within 60 s"; exit 1; }
wait_until 30 eval 'quiet ibnetdiscover | ibnetdiscover_lids >ibnetdiscover.lids && [[ -s ibnetdiscover.lids ]]' ||
  fail "ibnetdiscover found no LIDs"
awk '$3 == "ca" { print $1 }' ibnetdiscover.lids >targets

# 1. The victim alone.
cpu0=$(cpu_s) t0=$SECONDS
victim_run alone || fail "the victim alone: pathload exits $?"
cpu1=$(cpu_s) t1=$SECONDS
# 2. The same beside the flood, which starts first and ends after it.
SIM_HOST=$flooder "$CLIENT" pathload --targets targets --window 64 --timeout-ms 100 \
  --seconds $((PHASE_S + 4)) --seed 5 >flood 2>flood.err &
flood_pid=$!
sleep 2
cpu2=$(cpu_s) t2=$SECONDS
victim_run flooded || fail "the victim beside the flood: pathload exits $?"
cpu3=$(cpu_s) t3=$SECONDS
wait "$flood_pid"
flood_pid=
# 3. The same beside a join flood from the same host (its cap: the default),
# which starts a second into the victim's run, so that the victim meets its
# first joins too: the groups they create, planned and programmed (MFTs) by
# the SM while it answers, then the refusals past the cap.
cpu4=$(cpu_s) t4=$SECONDS
victim_run joined &
victim_pid=$!
sleep 1
SIM_HOST=$flooder "$CLIENT" mcast flood --window 64 --timeout-ms 100 \
  --seconds $((PHASE_S - 1)) >joins 2>joins.err &
flood_pid=$!
wait "$victim_pid" || fail "the victim beside the join flood: pathload exits $?"
victim_pid=
cpu5=$(cpu_s) t5=$SECONDS
wait "$flood_pid"
flood_pid=
cpu6=$(cpu_s) t6=$SECONDS

alone_p99=$(value alone p99_us) flooded_p99=$(value flooded p99_us) joined_p99=$(value joined p99_us)
delta() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
echo "victim alone:   $(value alone answers) answers, p50 $(value alone p50_us) us, p99 $alone_p99 us;" \
  "ibsm cpu $(delta "$cpu0" "$cpu1") s in $((t1 - t0)) s wall"
echo "victim flooded: $(value flooded answers) answers, p50 $(value flooded p50_us) us, p99 $flooded_p99 us;" \
  "ibsm cpu $(delta "$cpu2" "$cpu3") s in $((t3 - t2)) s wall"
echo "victim joined:  $(value joined answers) answers, p50 $(value joined p50_us) us, p99 $joined_p99 us;" \
  "ibsm cpu $(delta "$cpu4" "$cpu5") s in $((t5 - t4)) s wall"
echo "flood: $(value flood sent) sent, $(value flood answers) answered ($(value flood answers_per_s)/s)," \
  "$(value flood timeouts) timed out; client cpu $(value flood cpu_s) s"
echo "join flood: $(value joins requests) sent, $(value joins answers) answered ($(value joins answers_per_s)/s):" \
  "$(value joins ok) granted, $(value joins status_0x0100) refused NO_RESOURCES, $(value joins refused) refused in all," \
  "$(value joins timeouts) never answered; client cpu $(value joins cpu_s) s;" \
  "ibsm cpu $(delta "$cpu4" "$cpu6") s in $((t6 - t4)) s wall, the victim's second alone included"
fairness=$(ibsm_status_json "$sock" | jq -c .sa.fairness)
echo "sa.fairness: $fairness"
echo "sa.multicast: $(ibsm_status_json "$sock" | jq -c .sa.multicast)"

for phase in alone flooded joined; do
  [[ $(value $phase timeouts) == 0 && $(value $phase errors) == 0 && $(value $phase answers) -gt 0 ]] ||
    fail "victim $phase: $(value $phase answers) answered, $(value $phase timeouts) timeouts, $(value $phase errors) errors"
done
[[ $(value flood answers) -gt $(value flooded answers) ]] ||
  fail "the flood was no flood: $(value flood answers) answers beside the victim's $(value flooded answers)"
awk -v a="$alone_p99" -v f="$flooded_p99" 'BEGIN { exit !(a > 0 && f <= 2 * a) }' ||
  fail "the victim's p99 beside the flood, $flooded_p99 us, is more than twice its p99 alone, $alone_p99 us"
awk -v a="$alone_p99" -v f="$joined_p99" 'BEGIN { exit !(a > 0 && f <= 2 * a) }' ||
  fail "the victim's p99 beside the join flood, $joined_p99 us, is more than twice its p99 alone, $alone_p99 us"
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
