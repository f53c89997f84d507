#!/usr/bin/env bash
# The daemon under a long, nasty run: for MINUTES, a driver picks random
# events -- a cable pulled and put back (Unlink/ReLink), a whole switch
# pulled and put back, SMP drops of DROP% on a few switches (ibsim `Error`),
# path queries and multicast joins/leaves from a client -- and after each
# one waits for the fabric to be consistent again: the subnet up and every
# switch-to-LID route of what ibnetdiscover reaches walked through the
# tables without a gap, loop or dead end (check_all_pairs_walk), within
# BOUND seconds (SMP drops paused while the judges read). Every minute it samples the daemon's RSS, open fds and
# what its status counts (its heap in use and free, its SMP and PerfMgt
# queues), and at the end requires them flat: RSS and heap in use within
# RSS_SLACK% of the first sample after warm-up, fds equal, and once the
# fabric is quiet nothing left in a queue. Counters are read every 30 s, so
# the warm-up minute includes the counter sweep's first passes.
#
#   run-with-ibsim.sh NETFILE -- soak.sh path/to/ibsm path/to/sa-client MINUTES [BOUND] [DROP]
# scripts/soak.sh runs the 30-minute version on a radix-16 tree; CI runs 2 minutes on k8.
set -u
IBSM=${1:?usage: $0 path/to/ibsm path/to/sa-client MINUTES [BOUND] [DROP]}
CLIENT=${2:?usage}
minutes=${3:?usage}
bound=${4:-60}
drop=${5:-3}
rss_slack=${RSS_SLACK:-10}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
seed=${SOAK_SEED:-$RANDOM}
RANDOM=$seed
echo "soak: $(basename "$net"), $minutes min, bound $bound s, drops $drop%, seed $seed"

mapfile -t cas < <(net_cas "$net")
mapfile -t switches < <(sed -n 's/^Switch[[:space:]]\+[0-9]\+[[:space:]]\+"\([^"]*\)".*/\1/p' "$net")
# Switch-to-switch cables, once each, as "NODE PORT" from the first end listed.
mapfile -t cables < <(awk '
  FNR == NR && /^Switch[ \t]/ { split($0, q, "\""); sw[q[2]] = 1; next }
  FNR == NR { next }
  /^(Switch|Hca|Ca|Rt)[ \t]/ { split($0, q, "\""); cur = q[2]; next }
  /^\[[0-9]+\]/ && (cur in sw) { split($0, q, "\""); lp = $1; gsub(/[^0-9]/, "", lp);
    if (!(q[2] in sw)) next
    rp = q[3]; sub(/^[^[]*\[/, "", rp); sub(/\].*/, "", rp)
    a = cur "\t" lp; b = q[2] "\t" rp; k = a < b ? a SUBSEP b : b SUBSEP a
    if (!(k in seen)) { seen[k] = 1; print cur "\t" lp } }' "$net" "$net")
sm_node=${cas[0]}
# The SM's own leaf is never pulled whole: the SM would lose the fabric, which
# is a test of something else (handover), not of staying consistent.
sm_leaf=$(awk -v n="$sm_node" '/^(Switch|Hca|Ca|Rt)[ \t]/ { split($0, q, "\""); cur = q[2] }
  /^\[[0-9]+\]/ && cur == n { split($0, q, "\""); print q[2]; exit }' "$net")
echo "fabric: ${#switches[@]} switches, ${#cas[@]} CAs, ${#cables[@]} inter-switch cables; SM on $sm_node under $sm_leaf"

mkdir -p sm
ibsm_conf sm/ibsm.toml "$PWD/sm" 1000 2 5
printf '%s\n' '[health]' 'counter_interval = 30' >>sm/ibsm.toml
start_ibsm sm "$sm_node" 10
pid=$ibsm_pid
sock=sm/control.sock
wait_for_status $sock .up 120 || { fail "the subnet is not up within 120 s"; finish soak sm/ibsm.log; exit 1; }

walk_ok() { (failures=0; check_all_pairs_walk >/dev/null 2>&1; exit $failures); }
# The judges (ibnetdiscover, dump_fts) lose MADs to ibsim's drops like the SM
# does, and a missed LFT block reads as a broken route: the drops are paused
# while they read (what they read is what the switches hold either way).
consistent() {
  status_holds $sock .up || return 1
  local sw ok=0
  for sw in "${dropping[@]}"; do console "Error \"$sw\" 0"; done
  walk_ok || ok=1
  for sw in "${dropping[@]}"; do console "Error \"$sw\" $drop"; done
  return $ok
}
events=0 worst=0 worst_what="" broken=0
declare -A count
settle() {  # WHAT: waits for consistency after an event, and times it
  local what=$1 t0=$SECONDS
  sleep 1  # let the trap or the next light sweep see it
  if wait_until "$bound" consistent; then
    local took=$((SECONDS - t0))
    ((took > worst)) && { worst=$took; worst_what=$what; }
  else
    broken=$((broken + 1))
    fail "not consistent $bound s after: $what ($(tail -n 1 walk.out 2>/dev/null; grep -m3 -v "^walked" walk.out 2>/dev/null | tr "\n" ";"))"
  fi
  events=$((events + 1))
}

samples=()
sample() {
  local rss fds json heap
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
  fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
  json=$(ibsm_status_json $sock)
  heap=$(jq -r '.resources.heap_in_use_bytes / 1024 | floor' <<<"$json" 2>/dev/null)
  samples+=("$(((SECONDS - start) / 60)) $rss $fds ${heap:-0}")
  echo "sample t=$(((SECONDS - start) / 60)) min: RSS ${rss} kB, fds $fds," \
    "$(jq -c '{sweeps, mads_sent, mad_retries, mad_timeouts, traps_received} + .resources' <<<"$json" 2>/dev/null)"
}
# Nothing stuck: between sweeps the SMP engine and the PerfMgt requester hold
# nothing (a request never completed would stay outstanding for good).
queues_empty() {
  ibsm_status_json $sock | jq -e '.resources | .mad_outstanding + .mad_queued
    + .gmp_outstanding + .gmp_queued == 0' >/dev/null 2>&1
}

pulled_cable="" pulled_switch="" dropping=()
client() { SIM_HOST=${cas[1]} timeout 20 "$CLIENT" "$@" >client.out 2>&1; }
event() {
  local pick=$((RANDOM % 10))
  if [[ -n $pulled_cable ]] && ((pick < 5)); then
    console "ReLink \"${pulled_cable%$'\t'*}\"[${pulled_cable#*$'\t'}]"
    count[relink]=$((${count[relink]:-0} + 1))
    settle "ReLink $pulled_cable"; pulled_cable=""
  elif [[ -n $pulled_switch ]] && ((pick < 5)); then
    console "ReLink \"$pulled_switch\""
    count[switch_back]=$((${count[switch_back]:-0} + 1))
    settle "ReLink switch $pulled_switch"; pulled_switch=""
  elif ((pick < 4)) && [[ -z $pulled_cable ]]; then
    pulled_cable=${cables[RANDOM % ${#cables[@]}]}
    console "Unlink \"${pulled_cable%$'\t'*}\"[${pulled_cable#*$'\t'}]"
    count[unlink]=$((${count[unlink]:-0} + 1))
    settle "Unlink $pulled_cable"
  elif ((pick < 6)) && [[ -z $pulled_switch ]]; then
    local sw=${switches[RANDOM % ${#switches[@]}]}
    [[ $sw == "$sm_leaf" ]] && return
    pulled_switch=$sw
    console "Unlink \"$sw\""
    count[switch_pulled]=$((${count[switch_pulled]:-0} + 1))
    settle "Unlink switch $sw"
  elif ((pick < 8)); then
    local sw
    if ((${#dropping[@]})); then
      for sw in "${dropping[@]}"; do console "Error \"$sw\" 0"; done
      dropping=()
      count[drops_off]=$((${count[drops_off]:-0} + 1))
    else
      for _ in 1 2 3; do
        sw=${switches[RANDOM % ${#switches[@]}]}
        dropping+=("$sw")
        console "Error \"$sw\" $drop"
      done
      count[drops_on]=$((${count[drops_on]:-0} + 1))
    fi
    ibsm_status_json $sock >/dev/null
    settle "SMP drops $drop% on ${dropping[*]:-none}"
  else
    local a=${cas[RANDOM % ${#cas[@]}]} guid mgid
    guid=$(node_port_guid "$a")
    mgid=$(printf 'ff12:601b:ffff::%x' $((RANDOM % 8 + 1)))
    if ((RANDOM % 2)); then
      client mcast join --mgid "$mgid" --join-state 0x1 --create --retries 2 --port-guid "$guid" ||
        echo "join $mgid for $a: $(head -n 3 client.out | tr '\n' ' ')"
      count[join]=$((${count[join]:-0} + 1))
    else
      client mcast leave --mgid "$mgid" --join-state 0x1 --retries 2 --port-guid "$guid" >/dev/null 2>&1
      count[leave]=$((${count[leave]:-0} + 1))
    fi
    SIM_HOST=${cas[2]} quiet timeout 10 saquery -p >/dev/null || echo "saquery -p failed"
    count[sa]=$((${count[sa]:-0} + 1))
    settle "SA queries and a multicast change"
  fi
}

start=$SECONDS
sample
next_sample=$((start + 60))
while ((SECONDS - start < minutes * 60)); do
  event
  if ((SECONDS >= next_sample)); then
    sample
    next_sample=$((next_sample + 60))
  fi
done
# Put everything back and look once more.
[[ -n $pulled_cable ]] && console "ReLink \"${pulled_cable%$'\t'*}\"[${pulled_cable#*$'\t'}]"
[[ -n $pulled_switch ]] && console "ReLink \"$pulled_switch\""
for sw in "${dropping[@]}"; do console "Error \"$sw\" 0"; done
settle "everything restored"
sample

kill -0 "$pid" 2>/dev/null || fail "the daemon died: $(tail -n 5 sm/stderr)"
# Flat: after the first minute's warm-up (the first sweeps and counter
# passes allocate the tables and caches for good), RSS and heap in use
# within rss_slack% and fds unchanged.
read -r _ rss0 fds0 heap0 <<<"${samples[1]:-${samples[0]}}"
read -r _ rss1 fds1 heap1 <<<"${samples[-1]}"
if [[ -n $rss0 && -n $rss1 ]]; then
  ((rss1 * 100 <= rss0 * (100 + rss_slack))) || fail "RSS grew from $rss0 kB to $rss1 kB"
  ((heap1 * 100 <= heap0 * (100 + rss_slack))) || fail "heap in use grew from $heap0 kB to $heap1 kB"
  ((fds1 == fds0)) || fail "open fds went from $fds0 to $fds1"
fi
wait_until 20 queues_empty || fail "requests left in the queues with the fabric quiet: \
$(ibsm_status_json $sock | jq -c .resources)"
summary=""
for k in "${!count[@]}"; do summary+="$k ${count[$k]}, "; done
echo "events survived: $events (${summary%, }); broken: $broken"
echo "longest time to consistency: $worst s ($worst_what)"
echo "memory: RSS, fds, heap in use: ${samples[0]#* } -> ${samples[1]#* } (warm) -> ${samples[-1]#* } (kB, fds, kB)"
stop_pid "$pid" TERM 10 || fail "the daemon did not stop cleanly on SIGTERM"
finish "soak $minutes min: $events events, worst $worst s" sm/ibsm.log
