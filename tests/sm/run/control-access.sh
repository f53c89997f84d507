#!/usr/bin/env bash
# Who may use a running daemon's control socket (issue 29), as an operator
# sees it: the socket is root's (0660 with sm.control_group's group); a user
# outside the group cannot ask even `ibsm status` (exit 2, permission
# denied); the same user added to the group can (exit 0), but `ibsm sweep`
# is refused ("refused: changing requests need root (uid N is in group G)",
# exit 1, nothing swept), while root's sweep runs; the daemon counts both.
# Its files: the state directory 0700, guid2lid 0600; and a config file
# others may write is refused at start (exit 2, the file and its mode named).
# The user and the group are created here (root only: CI runs as root;
# skipped with a message otherwise) and removed at the end.
#
#   run-with-ibsim.sh NETFILE -- control-access.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: creating a user and a group needs root"
  exit 0
fi
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")

user=ibsmt$$
group=ibsmrd$$
groupadd "$group" || exit 1
useradd --no-create-home --user-group --shell /usr/sbin/nologin "$user" || {
  groupdel "$group"
  exit 1
}
cleanup() {
  [[ -n ${ibsm_pid:-} ]] && kill "$ibsm_pid" 2>/dev/null
  userdel "$user" 2>/dev/null
  groupdel "$group" 2>/dev/null
}
trap cleanup EXIT
uid=$(id -u "$user")

# The user must reach the socket and run the binary from this directory.
chmod 711 "$PWD"
install -m 755 "$IBSM" ./ibsm-client
as_user() {
  env -u LD_PRELOAD setpriv --reuid "$user" --regid "$user" --init-groups ./ibsm-client "$@" \
    --socket sm/control.sock
}

mkdir -p sm && chmod 711 sm
ibsm_conf sm/ibsm.toml "$PWD/sm"
printf 'control_group = "%s"\ncontrol_timeout_ms = 2000\n' "$group" >>sm/ibsm.toml
start_ibsm sm "${cas[0]}" 10
wait_for_status sm/control.sock .up 60 || fail "the subnet is not up within 60 s"

[[ $(stat -c '%a %U %G' sm/control.sock) == "660 root $group" ]] ||
  fail "the socket is $(stat -c '%a %U %G' sm/control.sock), expected 660 root $group"
[[ $(stat -c %a sm/state) == 700 ]] || fail "the state directory is $(stat -c %a sm/state), expected 700"
wait_until 10 test -e sm/state/guid2lid || fail "no guid2lid written"
[[ $(stat -c %a sm/state/guid2lid) == 600 ]] ||
  fail "guid2lid is $(stat -c %a sm/state/guid2lid), expected 600"

as_user status >status.out 2>status.err
code=$?
[[ $code -eq 2 ]] && grep -q "permission denied" status.err ||
  fail "ibsm status by uid $uid outside the group: exit $code, '$(cat status.err)'; expected 2, permission denied"

usermod -a -G "$group" "$user"
as_user status >status.out 2>status.err
code=$?
[[ $code -eq 0 ]] && grep -q '^state: MASTER' status.out ||
  fail "ibsm status by uid $uid in the group: exit $code, '$(cat status.err)'; expected 0 and the status"

sweeps=$(ibsm_status sm/control.sock .sweeps)
as_user sweep >sweep.out 2>sweep.err
code=$?
expected="ibsm sweep: refused: changing requests need root (uid $uid is in group $group)"
[[ $code -eq 1 && $(cat sweep.err) == "$expected" ]] ||
  fail "ibsm sweep by uid $uid in the group: exit $code, '$(cat sweep.err)'; expected 1, '$expected'"
env -u LD_PRELOAD "$IBSM" sweep --socket sm/control.sock >/dev/null || fail "root's ibsm sweep failed"
wait_for_status sm/control.sock ".sweeps > $sweeps" 20 || fail "root's sweep did not run"
[[ $(ibsm_status sm/control.sock '.control.refused') == 1 ]] ||
  fail "control.refused is $(ibsm_status sm/control.sock '.control.refused'), expected 1"
[[ $(ibsm_status sm/control.sock '.control.changing') == 1 ]] ||
  fail "control.changing is $(ibsm_status sm/control.sock '.control.changing'), expected 1"
grep -q "SM-0807 control: 'sweep' asked by uid 0 pid " sm/ibsm.log || fail "root's sweep not logged with its uid"
stop_pid "$ibsm_pid" TERM 10 || fail "ibsm did not stop on SIGTERM"
ibsm_pid=

# StrictModes: a config file others may write is refused before anything is sent.
cp sm/ibsm.toml open.toml
chmod 666 open.toml
"$IBSM" run -F "$PWD/open.toml" --once --state-dir sm/state >open.out 2>open.err
code=$?
[[ $code -eq 2 ]] && grep -q "open.toml: the config file has mode 0666, writable by others" open.err ||
  fail "a 0666 config: exit $code, '$(cat open.err)'; expected 2 naming the file and its mode"

finish "control socket access and file modes" sm/ibsm.log sm/stderr
