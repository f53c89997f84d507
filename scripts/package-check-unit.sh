#!/usr/bin/env bash
# scripts/package-check.sh's part inside the simulator (run-with-ibsim.sh):
# ibsm@ibsim0:1 started as systemd starts it, its READY=1, a reload, a stop.
set -euo pipefail
instance=ibsim0:1
unit=/usr/lib/systemd/system/ibsm@.service
node=$(sed -n 's/^\(Hca\|Ca\)[[:space:]]\+[0-9]\+[[:space:]]\+"\([^"]*\)".*/\2/p' "$IBSIM_NETFILE" | head -n 1)
fail() { echo "FAIL: $*" >&2; exit 1; }
ctl() { env -u LD_PRELOAD ibsm status --json --socket "/run/ibsm/$instance.sock"; }

notify=$PWD/notify.log
: >"$notify"
python3 "$IBSM_PACKAGE_CHECK_ROOT/tests/sm/run/notify-listener.py" "$PWD/notify.sock" "$notify" &
listener=$!
trap 'kill $listener ${pid:-} 2>/dev/null' EXIT
wait_for() {  # SECONDS COMMAND...
  local deadline=$((SECONDS + $1)); shift
  until "$@" 2>/dev/null; do ((SECONDS < deadline)) || return 1; sleep 0.05; done
}
# The first READY=1 comes milliseconds after the start: listen first.
wait_for 10 test -S "$PWD/notify.sock" || fail "the notify listener did not start"

# Under systemd: UNIT with a drop-in that points it at the simulator, started
# to READY, its journal, a reload, a stop. STATE is its state directory.
systemd_check() {
  local u=$1 state=$2 sock=$3
  mkdir -p "/etc/systemd/system/$u.d"
  cat >"/etc/systemd/system/$u.d/ibsim.conf" <<CONF
[Unit]
# The simulator has no /dev/infiniband: the unit runs on umad2sim's.
ConditionPathExistsGlob=
[Service]
Environment=LD_PRELOAD=$LD_PRELOAD IBSIM_SOCKNAME=$IBSIM_SOCKNAME SIM_HOST=$node
# umad2sim talks to ibsim over sockets in /tmp and writes a fake sysfs in
# the working directory.
PrivateTmp=no
ReadWritePaths=/tmp
RestrictAddressFamilies=
WorkingDirectory=$state
CONF
  systemctl daemon-reload
  # Type=notify: start returns once the daemon sent READY=1 (or failed).
  systemctl start "$u" || fail "systemctl start $u: $(journalctl -u "$u" -o cat | tail -n 5)"
  show() { systemctl show -P "$1" "$u"; }
  status() { env -u LD_PRELOAD ibsm status --json --socket "$sock"; }
  [[ $(show ActiveState) == active ]] || fail "$u is $(show ActiveState) after start"
  echo "systemctl start $u: $(show ActiveState) ($(show SubState)), status \"$(show StatusText)\""
  [[ $(status | jq -r .up) == true ]] || fail "ibsm status --socket $sock: the subnet is not up"
  local journal
  journal=$(journalctl -u "$u" -o cat)
  grep -q 'SM-0001 ' <<<"$journal" || fail "no SM-0001 (subnet up) in the journal: $(tail -n 5 <<<"$journal")"
  echo "journal: $(grep -c '^SM-[0-9]\|^PROG-[0-9]' <<<"$journal") lines starting with a log id"
  # Straight to the journal: the id is a field, the level a priority.
  local up
  up=$(journalctl -u "$u" IBSM_LOG_ID=SM-0001 -o cat)
  [[ $up == "SM-0001 subnet up:"* ]] || fail "journalctl IBSM_LOG_ID=SM-0001: \"$up\""
  [[ $(journalctl -u "$u" IBSM_LOG_ID=SM-0001 -o json | jq -r .PRIORITY | head -n 1) == 6 ]] ||
    fail "SM-0001 is not filed as info (priority 6)"
  echo "journalctl -u $u IBSM_LOG_ID=SM-0001: $up"
  sed -i 's/^priority = .*/priority = 9/' /etc/ibsm/ibsm.toml
  systemctl reload "$u" || fail "systemctl reload $u"
  wait_for 20 sh -c "$(declare -f status); status | jq -e '.priority == 9' >/dev/null" ||
    fail "systemctl reload $u did not re-read the config"
  echo "systemctl reload $u: priority 9 from the edited config, status \"$(show StatusText)\""
  cp /tmp/ibsm.toml.shipped /etc/ibsm/ibsm.toml
  systemctl stop "$u"
  [[ $(show Result) == success && $(show ExecMainStatus) == 0 ]] ||
    fail "stop $u: result $(show Result), exit status $(show ExecMainStatus)"
  [[ -s $state/guid2lid ]] || fail "no guid2lid in $state"
  rm -rf "/etc/systemd/system/$u.d"
  systemctl daemon-reload
  echo "systemctl stop $u: $(show ActiveState), result $(show Result), $state/guid2lid kept"
}

if [[ -d /run/systemd/system && ${IBSM_PACKAGE_CHECK_NO_SYSTEMD:-0} != 1 ]]; then
  systemd_check ibsm.service /var/lib/ibsm/default /run/ibsm/ibsm.sock
  systemd_check "ibsm@$instance.service" "/var/lib/ibsm/$instance" "/run/ibsm/$instance.sock"
  echo "systemd: ibsm and ibsm@$instance, start to READY, journal, reload, stop: passed"
  exit 0
fi

# No systemd: what it would do for this unit.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
exec_start=${exec_start//%I/$instance}
exec_start=${exec_start//%i/$instance}
state=$(sed -n 's/^StateDirectory=//p' "$unit")
mkdir -p "/var/lib/${state//%i/$instance}" /run/ibsm
echo "ExecStart (as systemd runs it): $exec_start"
read -r -a argv <<<"$exec_start"
NOTIFY_SOCKET=$PWD/notify.sock SIM_HOST=$node "${argv[@]}" 2>"$PWD/ibsm.stderr" &
pid=$!
wait_for 60 grep -q '^READY=1' "$notify" || fail "no READY=1: $(tail -5 "$PWD/ibsm.stderr")"
echo "READY: $(grep '^READY=1' "$notify" | head -n 1)"
[[ -S /run/ibsm/$instance.sock ]] || fail "no control socket /run/ibsm/$instance.sock"
[[ $(ctl | jq -r .up) == true ]] || fail "ibsm status: the subnet is not up"

sed -i 's/^priority = .*/priority = 9/' /etc/ibsm/ibsm.toml
kill -HUP "$pid"  # ExecReload
wait_for 20 sh -c "grep -q '^RELOADING=1' '$notify' && [ \$(grep -c '^READY=1' '$notify') -ge 2 ]" ||
  fail "no RELOADING=1 then READY=1 after the reload"
[[ $(ctl | jq -r .priority) == 9 ]] || fail "the reload did not re-read the config"
echo "reload: priority 9 from the edited config"
cp /tmp/ibsm.toml.shipped /etc/ibsm/ibsm.toml

kill -TERM "$pid"
wait "$pid" || fail "ibsm exited $? after SIGTERM"
grep -q '^STOPPING=1' "$notify" || fail "no STOPPING=1"
[[ -s /var/lib/ibsm/$instance/guid2lid ]] || fail "no guid2lid in /var/lib/ibsm/$instance"
echo "without systemd: ExecStart, READY, reload, stop: passed ($(tr '\n' ' ' <"$notify"))"
