#!/usr/bin/env bash
# What systemd hears from `ibsm run` (Type=notify, dist/systemd): the test
# stands in for systemd with a datagram socket in NOTIFY_SOCKET and runs the
# daemon as ibsm@.service does, naming its port as device:port (--port) and
# its own control socket (--control-socket):
#   - READY=1 comes once the first sweep as master is over, with
#     STATUS=MASTER, subnet up -- and not before: ibsm status then already
#     counts a heavy (or take-over) sweep;
#   - a second SM of lower priority tells READY=1 with STATUS=STANDBY;
#   - SIGHUP: RELOADING=1, then READY=1 again once reloaded;
#   - SIGTERM: STOPPING=1, and the daemon exits 0.
#
#   run-with-ibsim.sh NETFILE -- service-notify.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE

# systemd's side: every datagram to notify-*.sock, one line per message.
listen() {
  python3 "$(dirname "$0")/notify-listener.py" "$1" "$2" &
  listener_pids+=($!)
}
listener_pids=()
trap 'kill "${listener_pids[@]}" 2>/dev/null' EXIT
: >master.notify
: >standby.notify
listen "$PWD/notify-master.sock" master.notify
listen "$PWD/notify-standby.sock" standby.notify
# Python starts in well under a second on a quiet machine; 30 s is for a
# loaded one (the wait ends as soon as both sockets exist).
wait_until 30 test -S notify-master.sock -a -S notify-standby.sock || fail "no notify sockets within 30 s"

run_as_unit() {  # DIR NODE PRIORITY NOTIFY_SOCKET
  local dir=$1
  mkdir -p "$dir"
  ibsm_conf "$dir/ibsm.toml" "$PWD/$dir-unused"  # the socket comes from --control-socket
  NOTIFY_SOCKET=$4 SIM_HOST=$2 "$IBSM" run -F "$dir/ibsm.toml" --priority "$3" --port ibsim0:1 \
    --control-socket "$PWD/$dir/ctl.sock" --state-dir "$dir/state" --log-file "$dir/ibsm.log" \
    >"$dir/stdout" 2>"$dir/stderr" &
}
mapfile -t cas < <(net_cas "$net")
run_as_unit master "${cas[0]}" 15 "$PWD/notify-master.sock"
master_pid=$!
wait_for_line master.notify '^READY=1' 60 || fail "the master never told READY=1"
heavy=$(ibsm_status "$PWD/master/ctl.sock" ".sweeps_by_kind.heavy + .sweeps_by_kind.takeover")
[[ ${heavy:-0} -ge 1 ]] || fail "READY=1 came before the first heavy or take-over sweep ($heavy)"
grep -q '^READY=1|STATUS=MASTER, subnet up$' master.notify ||
  fail "READY=1 without STATUS=MASTER, subnet up: $(cat master.notify)"
[[ -S master-unused/control.sock ]] && fail "--control-socket did not override sm.control_socket"

run_as_unit standby "${cas[1]}" 1 "$PWD/notify-standby.sock"
standby_pid=$!
wait_for_line standby.notify '^READY=1\|STATUS=STANDBY$' 60 ||
  fail "the standby never told READY=1 as STANDBY: $(cat standby.notify)"

kill -HUP "$master_pid"
wait_for_line master.notify '^RELOADING=1' 10 || fail "no RELOADING=1 after SIGHUP"
# A function, so each try counts again (a $(...) argument is counted once).
ready_again() { (($(grep -c '^READY=1' master.notify) >= 2)); }
wait_until 10 ready_again || fail "no READY=1 after the reload"
sed -n '2,3p' master.notify | tr '\n' ' ' | grep -q '^RELOADING=1.*READY=1' ||
  fail "RELOADING=1 then READY=1 expected: $(cat master.notify)"

stop_pid "$standby_pid" TERM 10 >/dev/null
stop_pid "$master_pid" TERM 10
rc=$?
[[ $rc -eq 0 ]] || fail "the master exited $rc after SIGTERM"
grep -q '^STOPPING=1' master.notify || fail "no STOPPING=1 after SIGTERM"
echo "master told: $(tr '\n' ' ' <master.notify)"
echo "standby told: $(tr '\n' ' ' <standby.notify)"
finish "service notifications" master/ibsm.log standby/ibsm.log
