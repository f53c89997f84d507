#!/usr/bin/env bash
# Traps never drive the SM faster than a sweep can usefully run (issue 29).
#
# The daemon (defaults but for its socket: sweep_interval 10 s,
# sm.trap_noisy_rate 10/s over 2 s) brings the fabric up on one CA; then
# for SECONDS nothing happens (the quiet fabric's sweeps are counted), and
# for SECONDS more another CA (tests/tools/trap-storm, through umad2sim)
# sends LID-routed Trap(128)s to the SM's LID at RATE a second. During and
# after the storm:
#   - the sweeps the daemon ran during the storm are at most those of the
#     quiet window plus one (status .sweeps);
#   - its log grew by at most 300 lines (one per trap before: 48,281 lines
#     for 40,000 traps on main 1e1502f);
#   - `ibsm status` answers ~20 times, median under 100 ms (the whole
#     process, measured around it);
#   - `ibsm health --json` names the storm's LID noisy, and so does the text;
#   - every trap sent was counted (status .traps.received). That each is
#     repressed is checked on the fake fabric (SmDaemonTrapTest): umad2sim
#     drops the TrapRepresses it delivers ("got trap repress - dropping"),
#     so the client's count of them is printed, not judged.
# Prints the figures: storm rate, sweeps quiet and stormy, log lines, status
# median and slowest, the daemon's CPU seconds (user+sys) over the storm.
#
#   run-with-ibsim.sh NETFILE -- trap-storm.sh path/to/ibsm path/to/trap-storm [RATE] [SECONDS]
set -u
IBSM=${1:?usage: $0 path/to/ibsm path/to/trap-storm [RATE] [SECONDS]}
STORM=${2:?usage: $0 path/to/ibsm path/to/trap-storm [RATE] [SECONDS]}
rate=${3:-2000}
seconds=${4:-20}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS

control() { env -u LD_PRELOAD "$IBSM" "$@" --socket "$PWD/sm/control.sock"; }
sock=sm/control.sock
now_ns() { date +%s%N; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

mkdir -p sm
printf '%s\n' '[sm]' "control_socket = \"$PWD/sm/control.sock\"" >sm/ibsm.toml
mapfile -t cas < <(net_cas "$net")
start_ibsm sm "${cas[0]}" 10
pid=$ibsm_pid
wait_for_status $sock .up 60 || fail "the subnet is not up within 60 s"

sweeps0=$(ibsm_status $sock .sweeps)
sleep "$seconds"
sweeps1=$(ibsm_status $sock .sweeps)
quiet=$((sweeps1 - sweeps0))

lines0=$(wc -l <sm/ibsm.log)
ticks0=$(cpu_ticks "$pid")
SIM_HOST=${cas[1]} "$STORM" --rate "$rate" --seconds "$seconds" >storm.out 2>storm.err &
storm_pid=$!
sleep 2
times=()
for _ in $(seq 1 20); do
  t0=$(now_ns)
  control status >/dev/null 2>&1 || fail "ibsm status failed during the storm"
  times+=($((($(now_ns) - t0) / 1000000)))
  sleep 0.3
done
health_json=$(control health --json 2>/dev/null)
health_text=$(control health 2>/dev/null)
wait "$storm_pid" || fail "trap-storm failed: $(cat storm.err)"
ticks1=$(cpu_ticks "$pid")
sweeps2=$(ibsm_status $sock .sweeps)
stormy=$((sweeps2 - sweeps1))
lines=$(($(wc -l <sm/ibsm.log) - lines0))
storm_lid=$(sed -n 's/^lid //p' storm.out)
sent=$(sed -n 's/^sent //p' storm.out)
represses=$(sed -n 's/^represses //p' storm.out)
sent_rate=$(sed -n 's/^rate_per_s //p' storm.out)
received=$(ibsm_status $sock .traps.received)
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((${#times[@]} + 1) / 2))p")
slowest=$(printf '%s\n' "${times[@]}" | sort -n | tail -n 1)
hz=$(getconf CLK_TCK)
cpu=$(awk -v t=$((ticks1 - ticks0)) -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }')

echo "storm: $sent traps from LID $storm_lid at $sent_rate/s for $seconds s, $represses repressed, $received received by ibsm"
echo "sweeps: $quiet in $seconds s quiet, $stormy in $seconds s of storm"
echo "log: $lines lines during the storm"
echo "ibsm status: median $median ms, slowest $slowest ms (${#times[@]} calls)"
echo "ibsm CPU during the storm: $cpu s (user+sys)"

((stormy <= quiet + 1)) || fail "$stormy sweeps during the storm, $quiet in as long a quiet time"
((lines <= 300)) || fail "$lines log lines during the storm"
((median < 100)) || fail "ibsm status median $median ms"
((received >= sent * 9 / 10)) || fail "ibsm counted $received traps of $sent sent"
jq -e --argjson lid "$storm_lid" '.trap_ports[] | select(.lid == $lid and .noisy)' \
  <<<"$health_json" >/dev/null || fail "ibsm health --json does not name LID $storm_lid noisy: $health_json"
grep -q "^noisy: LID $storm_lid " <<<"$health_text" ||
  fail "ibsm health does not name LID $storm_lid noisy:"$'\n'"$health_text"

stop_pid "$pid" TERM 10 || fail "ibsm did not stop on SIGTERM"
finish "$(basename "$net" .net), $rate traps/s for $seconds s: $stormy sweeps (quiet $quiet), $lines log lines, status median $median ms, $cpu CPU s, $((SECONDS - start)) s" sm/ibsm.log
