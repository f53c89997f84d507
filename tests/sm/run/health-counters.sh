#!/usr/bin/env bash
# The counter sweep on a running master (health.counter_interval 2, issue
# 16), judged by perfquery and ibqueryerrors on the same fabric.
#
# After "subnet up" and a first counter pass, ibsim's console raises error
# counters (PerformanceSet ... PortCounters.SymbolErrorCounter=N, and
# PortRcvErrors) on a switch port, a second switch port and a CA port, and
# sets SymbolErrorCounter to 65535 (saturated) on a third switch port. Two
# passes later:
# - the daemon holds each raised counter (`ibsm status --json`:
#   health.ports_over_zero) with the value perfquery reads on that port;
# - the saturated counter was cleared by a CounterSelect Set (perfquery reads
#   0; health.counters.resets counted it), and its total stays >= 65535,
#   marked a lower bound;
# - the ports ibqueryerrors reports with errors are exactly the ports whose
#   last reading the daemon holds with an error counter over zero, with the
#   same counters and values;
# - with the same threshold file (SymbolErrorCounter=10, PortRcvErrors=5),
#   the ports `ibsm health --json` lists unhealthy with errors, and the
#   counters over threshold, are exactly those `ibqueryerrors
#   --threshold-file` reports -- plus the saturated port, whose counter ibsm
#   cleared itself (ibqueryerrors then reads 0, ibsm keeps the >= 65535);
# - the figures add up: AllPortSelect reads (ibsim answers PortSelect 0xFF),
#   port reads and the reads the sums spared, no GMP timed out.
#
# - (issue 27) every error counter ibqueryerrors knows, raised on ports of
#   their own, and a cable pulled and put back: ibsm holds every port's error
#   counters as ibqueryerrors reads them, and every port shows its rates.
#
#   run-with-ibsim.sh NETFILE -- health-counters.sh path/to/ibsm SW1 P1 SW2 P2 CA SATSW SATP
set -u
IBSM=${1:?usage: $0 path/to/ibsm SW1 P1 SW2 P2 CA SATSW SATP}
sw1=${2:?} p1=${3:?} sw2=${4:?} p2=${5:?} ca=${6:?} satsw=${7:?} satp=${8:?}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
interval=2

mkdir -p sm
ibsm_conf sm/ibsm.toml "$PWD/sm" 1000 2 10
printf '%s\n' SymbolErrorCounter=10 PortRcvErrors=5 >sm/thresholds
printf '%s\n' '[health]' "counter_interval = $interval" 'counter_window = 8' \
  "threshold_file = \"$PWD/sm/thresholds\"" >>sm/ibsm.toml
start_ibsm sm "$(net_cas "$net" | head -n 1)" 10
sock=sm/control.sock
wait_for_status $sock .up 60 || fail "the subnet is not up within 60 s"
wait_for_status $sock '.health.counters.passes >= 1' $((interval + 30)) ||
  fail "no counter pass within $((interval + 30)) s of up"
ibsm_status $sock '.health.counters | "first pass: \(.last_pass_gmps) GMPs in \(.last_pass_ms) ms, \(.ports) ports, \(.all_port_reads) AllPortSelect reads"'

# The LID perfquery asks NODE's PMA at (a switch: its port 0's; a CA: its
# port 1's), from ibnetdiscover, not from ibsm.
quiet ibnetdiscover >ibnetdiscover.out
lid_of() {
  awk -v n="\"$1\"" '
    function lid(pattern) { if (match($0, pattern)) { s = substr($0, RSTART, RLENGTH); sub(/.* /, "", s); print s; exit } }
    /^Switch/ && index($0, n) { lid("base port 0 lid [0-9]+") }
    /^(Ca|Hca)/ { inca = index($0, n) > 0; next }
    inca && /^\[1\]/ { lid("# lid [0-9]+") }' ibnetdiscover.out
}

# perfquery's value of COUNTER at LID PORT.
perf_value() { quiet perfquery "$1" "$2" | sed -n "s/^$3:\.*//p"; }

console "PerformanceSet \"$sw1\"[$p1] PortCounters.SymbolErrorCounter=42"
console "PerformanceSet \"$sw1\"[$p1] PortCounters.PortRcvErrors=3"
console "PerformanceSet \"$sw2\"[$p2] PortCounters.PortRcvErrors=17"
console "PerformanceSet \"$ca\"[1] PortCounters.SymbolErrorCounter=5"
console "PerformanceSet \"$satsw\"[$satp] PortCounters.SymbolErrorCounter=65535"
passes=$(ibsm_status $sock .health.counters.passes)
wait_for_status $sock ".health.counters.passes >= $((passes + 2))" $((4 * interval + 30)) ||
  fail "not two more counter passes within $((4 * interval + 30)) s"
# Right after a pass, before the next one: what the daemon last read.
wait_for_status $sock ".health.counters.passes >= $((passes + 3))" $((4 * interval + 30))
ibsm_status_json $sock >status.json
held() { # NAME-REGEX PORT COUNTER FIELD
  jq -r --arg n "$1" --argjson p "$2" --arg c "$3" \
    ".health.ports_over_zero[] | select((.name | test(\$n)) and .port == \$p and .counter == \$c) | .$4" \
    status.json | head -n 1
}

check_held() { # NODE PORT COUNTER VALUE
  local node=$1 port=$2 counter=$3 want=$4 lid
  lid=$(lid_of "$node")
  local seen got
  seen=$(perf_value "$lid" "$port" "$counter")
  got=$(held "^\"$node\"" "$port" "$counter" total)
  echo "  \"$node\"[$port] $counter: perfquery $seen, ibsm total $got (set $want)"
  [[ $seen == "$want" ]] || fail "\"$node\"[$port] $counter: perfquery reads $seen, not the $want set"
  [[ $got == "$seen" ]] || fail "\"$node\"[$port] $counter: ibsm holds ${got:-nothing}, perfquery $seen"
}
check_held "$sw1" "$p1" SymbolErrorCounter 42
check_held "$sw1" "$p1" PortRcvErrors 3
check_held "$sw2" "$p2" PortRcvErrors 17
check_held "$ca" 1 SymbolErrorCounter 5

# Saturation: cleared by the daemon's Set, the total a lower bound.
satlid=$(lid_of "$satsw")
now_value=$(perf_value "$satlid" "$satp" SymbolErrorCounter)
total=$(held "^\"$satsw\"" "$satp" SymbolErrorCounter total)
lower=$(held "^\"$satsw\"" "$satp" SymbolErrorCounter lower_bound)
resets=$(jq .health.counters.resets status.json)
echo "  saturated \"$satsw\"[$satp]: perfquery now $now_value, ibsm total $total (lower bound: $lower), resets $resets"
[[ $now_value == 0 ]] || fail "the saturated counter reads $now_value, not 0: no reset Set"
[[ -n $total && $total -ge 65535 ]] || fail "ibsm's total of the saturated counter is ${total:-missing}, not >= 65535"
[[ $lower == true ]] || fail "the saturated counter's total is not marked a lower bound"
[[ $resets -ge 1 ]] || fail "no counter reset counted"

# "NAME PORT COUNTER VALUE" per counter ibqueryerrors reports, from its
# output on stdin (its GUIDs are port GUIDs for CAs, so ports are matched by
# node name and number).
ibqe_counters() {
  awk '/^Errors for / { name = $0; sub(/^[^"]*"/, "", name); sub(/".*/, "", name); next }
       /^ *GUID 0x[0-9a-f]+ port [0-9]+:/ {
         port = $4; sub(/:/, "", port); line = $0
         while (match(line, /\[[A-Za-z0-9]+ == [0-9]+\]/)) {
           f = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH)
           split(f, kv, " == "); print name, port, kv[1], kv[2] } }'
}
# ibqueryerrors ARGS..., once more when it crashed (run-checks.sh).
ibqe() { once_more_on_crash quiet ibqueryerrors "$@"; }

# Over the thresholds: `ibsm health` against `ibqueryerrors --threshold-file`,
# as "NODE PORT COUNTER" lines.
ibqe --threshold-file sm/thresholds >ibqe-thresholds.out
{
  ibqe_counters <ibqe-thresholds.out | sed 's/ [0-9]*$//'
  echo "$satsw $satp SymbolErrorCounter"  # cleared by ibsm: ibqueryerrors reads 0
} | sort -u >diags.over
env -u LD_PRELOAD "$IBSM" health --json --socket "$PWD/$sock" >health.json ||
  fail "ibsm health --json failed: $(cat health.json)"
jq -r '.unhealthy[] | select(.condition == "errors") | .name as $n | .port.port as $p |
       .counters[] | "\($n | capture("^\"(?<n>[^\"]*)\"").n) \($p) \(.)"' health.json |
  sort -u >ibsm.over
echo "  over the thresholds: ibqueryerrors (and the saturated port) $(wc -l <diags.over), ibsm health $(wc -l <ibsm.over)"
if ! diff diags.over ibsm.over >over.diff; then
  fail "ibsm health and ibqueryerrors --threshold-file disagree (< ibqueryerrors, > ibsm):"
  cat over.diff >&2
  jq -c '.unhealthy' health.json >&2
fi

# ibqueryerrors' ports with errors == the ports ibsm last read with errors,
# port by port, counter by counter, value by value. TAG names the files.
compare_with_ibqueryerrors() { # TAG STATUS-JSON
  local tag=$1 json=$2
  # Read, then clear (-k -K) apart: a crash while clearing would otherwise
  # leave counters half cleared for the second try to read.
  ibqe >"ibqueryerrors-$tag.out"
  ibqe -k -K >/dev/null
  ibqe_counters <"ibqueryerrors-$tag.out" |
    sort >"diags-$tag.errors"
  jq -r '.health.ports_over_zero[] | select(.last > 0) | "\(.name | capture("^\"(?<n>[^\"]*)\"").n) \(.port) \(.counter) \(.last)"' \
    "$json" | sort >"ibsm-$tag.errors"
  echo "  $tag: ibqueryerrors $(wc -l <"diags-$tag.errors") port counters over zero; ibsm $(wc -l <"ibsm-$tag.errors")"
  if ! diff "diags-$tag.errors" "ibsm-$tag.errors" >"errors-$tag.diff"; then
    fail "$tag: ibqueryerrors and ibsm disagree on the error counters (< ibqueryerrors, > ibsm):"
    cat "errors-$tag.diff" >&2
    cat "ibqueryerrors-$tag.out" >&2
  fi
}
compare_with_ibqueryerrors raised status.json
[[ $(wc -l <ibsm-raised.errors) -ge 4 ]] || fail "ibsm holds fewer than the 4 counters raised"

# The figures: AllPortSelect answered by ibsim, sums sparing quiet switches.
jq -r '.health.counters | "passes \(.passes), GMPs \(.gmps), timeouts \(.timeouts), errors \(.errors), AllPortSelect reads \(.all_port_reads), port reads \(.port_reads), spared \(.port_reads_spared)"' status.json
[[ $(jq .health.counters.timeouts status.json) -eq 0 ]] || fail "PerfMgt GMPs timed out"
[[ $(jq .health.counters.all_port_reads status.json) -gt 0 ]] || fail "no AllPortSelect read"
[[ $(jq .health.counters.port_reads_spared status.json) -gt 0 ]] || fail "no port read spared by a switch's sum"
[[ $(jq '.sa.dropped_undecodable' status.json) -eq 0 ]] || fail "PerfMgt GMPs reached the SA"


# Issue 27: every error counter ibqueryerrors knows, each raised by
# PerformanceSet on a port of its own (values under the 4-bit ceilings), and
# a cable pulled and put back ("edge1_0"[5] - "agg1_0"[1]: ibsim counts
# PortXmitDiscards on a port that sends into a link that is down). After the
# passes that follow, ibsm holds every port's error counters as ibqueryerrors
# reads them. Before the fix, a switch port out of the fabric while its
# counters moved kept its first reading for good: its switch's AllPortSelect
# sum moved in a pass that could not read the port, and never moved again, so
# every later pass spared it ("reads": 1, health said healthy).
every=(SymbolErrorCounter LinkErrorRecoveryCounter LinkDownedCounter PortRcvErrors
  PortRcvRemotePhysicalErrors PortRcvSwitchRelayErrors PortXmitDiscards PortXmitConstraintErrors
  PortRcvConstraintErrors LocalLinkIntegrityErrors ExcessiveBufferOverrunErrors VL15Dropped)
for i in "${!every[@]}"; do
  console "PerformanceSet \"agg$((i % 8))_1\"[$((1 + i / 8))] PortCounters.${every[$i]}=$((2 + i))"
done
swept='.sweeps_by_kind | .reroute + .heavy + .takeover'
for cmd in Unlink ReLink; do
  sweeps0=$(ibsm_status $sock "$swept")
  console "$cmd \"edge1_0\"[5]"
  wait_for_status $sock "($swept) > $sweeps0 and .up" 30 ||
    fail "$cmd \"edge1_0\"[5]: not up again after a sweep"
  passes=$(ibsm_status $sock .health.counters.passes)
  wait_for_status $sock ".health.counters.passes >= $((passes + 2))" $((4 * interval + 30)) ||
    fail "$cmd: not two more counter passes within $((4 * interval + 30)) s"
done
passes=$(ibsm_status $sock .health.counters.passes)
wait_for_status $sock ".health.counters.passes >= $((passes + 1))" $((2 * interval + 30))
ibsm_status_json $sock >status-every.json
compare_with_ibqueryerrors every status-every.json
for i in "${!every[@]}"; do
  grep -qx "agg$((i % 8))_1 $((1 + i / 8)) ${every[$i]} $((2 + i))" ibsm-every.errors ||
    fail "\"agg$((i % 8))_1\"[$((1 + i / 8))] ${every[$i]}: ibsm does not hold the $((2 + i)) set"
done
# A quiet switch port is read again within kRefreshPasses passes (5), so
# after this many passes every port shows its rates.
env -u LD_PRELOAD "$IBSM" health --ports --socket "$PWD/$sock" >health-ports.txt ||
  fail "ibsm health --ports failed"
if grep -q "rates after the next read" health-ports.txt; then
  fail "ports still without rates after $(jq .health.counters.passes status-every.json) passes:"
  grep "rates after the next read" health-ports.txt | head -5 >&2
fi

stop_pid "$ibsm_pid" TERM 10 || fail "ibsm did not stop cleanly on SIGTERM"
finish "counters held as perfquery and ibqueryerrors read them" sm/ibsm.log
