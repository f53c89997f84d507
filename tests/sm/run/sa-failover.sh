#!/usr/bin/env bash
# The SA follows the master: a standby ibsm that takes over starts answering
# SA queries. ibsm A (priority 10, first CA) brings the fabric up and
# answers `saquery CPI` and a NodeRecord by LID from a third CA; ibsm B
# (priority 5, last CA) settles in STANDBY, its status counting no SA
# query (saquery asks the master only: that a standby drops a query sent to
# it is SmDaemonSaTest's). A is killed (SIGKILL: no handover); B takes over
# and, once its status says the subnet is up, answers the same queries,
# which its status counts as answered. (ClientReregister on take-over cannot
# be seen here: ibsim ports never advertise it; ClientReregisterTest and
# SmDaemonSaTest's takeover test have it.) Both run with M_Keys from one
# shared secret (sm.m_key_secret_file), as a master and its standby would:
# B, master after the failover, names the same key scheme as A did and
# counts no port keyed by another (ibsim keeps no M_Key, so this shows the
# keys of every SMP break no failover; the fake fabric proves protection:
# SmDaemonMKeyTakeoverTest's standby with the same secret).
#
#   run-with-ibsim.sh NETFILE -- sa-failover.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
mapfile -t cas < <(net_cas "$net")
node_a=${cas[0]} node_b=${cas[-1]} asker=${cas[${#cas[@]} / 2]}

# One record each (umad2sim has no RMPP), from the master the asker's port
# names: ClassPortInfo and the NodeRecord of the asker's own LID.
ask_sa() { # succeeds when both are answered
  local lid
  lid=$(SIM_HOST=$asker quiet smpquery portinfo -D 0 | sed -n 's/^Lid:\.*//p')
  SIM_HOST=$asker quiet timeout 10 saquery -t 500 CPI | grep -q "Class version\.*2$" &&
    SIM_HOST=$asker quiet timeout 10 saquery -t 500 NR "$lid" | grep -q "lid.*$lid"
}

mkdir -p a b
ibsm_conf a/ibsm.toml "$PWD/a" 1000 2 10
ibsm_conf b/ibsm.toml "$PWD/b" 1000 2 10
mkdir -p shared
(umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >shared/mkey.secret)
for who in a b; do echo "m_key_secret_file = \"$PWD/shared/mkey.secret\"" >>$who/ibsm.toml; done
start_ibsm a "$node_a" 10
pid_a=$ibsm_pid
wait_for_status a/control.sock .up 60 || fail "ibsm A: the subnet is not up within 60 s"
start_ibsm b "$node_b" 5
pid_b=$ibsm_pid
wait_for_status b/control.sock '.state == "STANDBY"' 30 || fail "ibsm B did not settle in STANDBY"
ask_sa || fail "the master (A) does not answer saquery CPI and NR"
status_holds a/control.sock '.sa.answered >= 2' || fail "A's status counts no SA answers"
status_holds b/control.sock '.sa.received == 0 and .sa.answered == 0' ||
  fail "B, standby, saw SA queries: $(ibsm_status_json b/control.sock | jq -c .sa)"

scheme_a=$(ibsm_status a/control.sock .m_keys.scheme)
[[ $scheme_a == *derived* ]] || fail "A's M_Keys are not derived from the secret: '$scheme_a'"
killed=$SECONDS
kill -KILL "$pid_a"
if wait_for_status b/control.sock '.state == "MASTER" and .up' 40; then
  echo "B is master and up $((SECONDS - killed)) s after A was killed"
  ask_sa || fail "B, now master, does not answer saquery CPI and NR"
  status_holds b/control.sock '.sa.answered >= 2' ||
    fail "B's status counts no SA answers: $(ibsm_status_json b/control.sock | jq -c .sa)"
  echo "B's sa counters: $(ibsm_status_json b/control.sock | jq -c .sa)"
  scheme_b=$(ibsm_status b/control.sock .m_keys.scheme)
  echo "M_Keys: A '$scheme_a', B '$scheme_b'"
  [[ $scheme_b == "$scheme_a" ]] || fail "B names another M_Key scheme than A: '$scheme_b', '$scheme_a'"
  status_holds b/control.sock '.m_keys.unknown == 0' ||
    fail "B counts ports with an M_Key not its own: $(ibsm_status b/control.sock .m_keys)"
else
  fail "B did not take over within 40 s: $(ibsm_state b/control.sock)"
fi
stop_pid "$pid_b" TERM 5
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm B exited $rc after SIGTERM"

finish "$(basename "$net" .net): the SA follows the master, $((SECONDS - start)) s" a/ibsm.log b/ibsm.log
