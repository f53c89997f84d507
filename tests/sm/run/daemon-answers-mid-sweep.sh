#!/usr/bin/env bash
# `ibsm run` waits on everything at once: in the middle of a heavy sweep it
# still answers `ibsm status` and stops on SIGTERM at once.
#
# The daemon brings the generated 3-level radix-12 fat tree (612 nodes) up;
# then ibsim drops DROP% of the PortInfo SMPs at every node (console
# `Error "node" DROP 21`), so that each drop costs the MAD timeout and an
# operator's heavy sweep (`ibsm sweep --heavy`) takes seconds. During it:
#   - `ibsm status` is asked again and again; every answer must come within
#     100 ms (the whole `ibsm status` process, measured around it) and the
#     answers must show the phase "MASTER (heavy sweep)";
#   - SIGTERM, sent while status says the heavy sweep runs, must end the
#     process within 300 ms, measured from `kill` to `wait` returning: the
#     daemon itself sees the signal within its 10 ms slice and cancels the
#     sweep's MADs (SM-0117), the rest is process exit -- closing the umad
#     port through umad2sim and ibsim, and umad2sim removing the fake sysfs
#     tree it wrote at start -- hence the slack over 100 ms. It exits 0, and
#     its --stats file says SIGTERM stopped it during the heavy sweep.
# The figures are printed: the slowest status answer and the SIGTERM time.
#
#   run-with-ibsim.sh NETFILE -- daemon-answers-mid-sweep.sh path/to/ibsm [DROP]
set -u
IBSM=${1:?usage: $0 path/to/ibsm [DROP]}
drop=${2:-20}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS

# The control commands are no ibsim clients: without umad2sim they start
# faster and take none of ibsim's ten client slots.
control() { env -u LD_PRELOAD "$IBSM" "$@" --socket "$PWD/sm/control.sock"; }
sock=sm/control.sock
now_ns() { date +%s%N; }

mkdir -p sm
ibsm_conf sm/ibsm.toml "$PWD/sm" 1000 2 0 # no timed sweeps: only the one asked for
# Each drop must cost a whole mad.timeout_ms for the sweep to last seconds:
# the floor of the timeouts learnt from round trips raised to it.
printf '%s\n' '[mad]' 'timeout_min_ms = 200' 'timeout_max_ms = 200' >>sm/ibsm.toml
start_ibsm sm "$(net_cas "$net" | head -n 1)" 10
pid=$ibsm_pid
wait_for_status $sock .up 60 || fail "the subnet is not up within 60 s"

mapfile -t nodes < <(net_nodes "$net")
for node in "${nodes[@]}"; do console "Error \"$node\" $drop 21"; done
console "Dump"
wait_for_line ibsim.log '# +dumped [0-9]+ nodes' 20 || fail "ibsim did not answer Dump"

control sweep --heavy >/dev/null || fail "ibsm sweep --heavy failed"
slowest=0 asked=0 sweeping=0
for _ in $(seq 1 400); do
  t0=$(now_ns)
  answer=$(control status 2>&1)
  ms=$((($(now_ns) - t0) / 1000000))
  asked=$((asked + 1))
  ((ms > slowest)) && slowest=$ms
  ((ms < 100)) || fail "ibsm status took $ms ms:"$'\n'"$answer"
  if grep -q '^phase: MASTER (heavy sweep)' <<<"$answer"; then
    sweeping=$((sweeping + 1))
    ((sweeping >= 10)) && break
  fi
  sleep 0.02
done
echo "ibsm status: $asked answers, $sweeping during the heavy sweep, the slowest in $slowest ms"
[[ $sweeping -ge 10 ]] || fail "only $sweeping status answers showed the heavy sweep (is it too short?)"

t0=$(now_ns)
kill -TERM "$pid"
wait "$pid"
rc=$?
stop_ms=$((($(now_ns) - t0) / 1000000))
echo "SIGTERM in the middle of the heavy sweep: exited $rc after $stop_ms ms"
[[ $rc -eq 0 ]] || fail "ibsm exited $rc after SIGTERM:"$'\n'"$(cat sm/stderr)"
((stop_ms < 300)) || fail "ibsm took $stop_ms ms to end after SIGTERM"
stats_hold sm/stats.json '.exit.reason == "stopped" and .exit.signal == 15' ||
  fail "--stats does not say it stopped on SIGTERM: $(stats sm/stats.json .exit)"
stats_hold sm/stats.json '.exit.stopped_during == "MASTER (heavy sweep)"' ||
  fail "--stats does not say the heavy sweep was cut short: $(stats sm/stats.json .exit)"

for node in "${nodes[@]}"; do console "Error \"$node\" 0"; done
finish "$(basename "$net" .net) with $drop% PortInfo drops: status ${slowest} ms, SIGTERM ${stop_ms} ms, $((SECONDS - start)) s" sm/ibsm.log
