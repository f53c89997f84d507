#!/usr/bin/env bash
# Two ibsm instances: a better one started later takes the fabric over by
# handover, without moving a LID. ibsm A (priority 5, first CA of the net
# file) brings the fabric up as master; ibsm B (priority 10, last CA) starts
# after. Within 30 s: A hands over (its status counts a handover sent and
# accepted, and names B's port as master) and turns STANDBY, B turns MASTER
# and says the subnet is up (`ibsm status` of each), sminfo (asked from a
# third CA) names B, every LID is as A gave it, every link Active and every
# switch reaches every LID. Both stop with exit 0 on SIGTERM.
#
# Both run with M_Keys from one shared secret (sm.m_key_secret_file, as a
# master and its standby share it, issue 29): every SMP of either carries the
# key derived for its port, and both status outputs name the same scheme (the
# secret's fingerprint, never the secret: checked against the file's bytes
# in status, logs and stats). ibsim keeps no M_Key, so here this shows the keys
# break nothing in a handover; the fake fabric proves the protection
# (tests/sm/manager/SmDaemonMKeyTakeoverTest.cpp).
#
#   run-with-ibsim.sh NETFILE -- handover-two-ibsm.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
mapfile -t cas < <(net_cas "$net")
node_a=${cas[0]} node_b=${cas[-1]} asker=${cas[${#cas[@]} / 2]}
guid_a=$(node_port_guid "$node_a")
guid_b=$(node_port_guid "$node_b")

mkdir -p a b
mkdir -m 700 shared
(umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >shared/mkey.secret)
secret_hex=$(cat shared/mkey.secret)
for who in a b; do
  ibsm_conf $who/ibsm.toml "$PWD/$who" 1000 2 10
  echo "m_key_secret_file = \"$PWD/shared/mkey.secret\"" >>$who/ibsm.toml
done
start_ibsm a "$node_a" 5
pid_a=$ibsm_pid
wait_for_status a/control.sock .up 60 || fail "ibsm A: the subnet is not up within 60 s"
wait_sminfo_master "$asker" "$guid_a" 5 || fail "sminfo does not name A ($guid_a): $(sminfo_from "$asker")"
quiet ibnetdiscover | ibnetdiscover_lids >before.lids

started_b=$SECONDS
start_ibsm b "$node_b" 10
pid_b=$ibsm_pid
if wait_sminfo_master "$asker" "$guid_b" 30 &&
  wait_for_status a/control.sock '.state == "STANDBY"' 10; then
  echo "handed over $((SECONDS - started_b)) s after B started:"
  peers='"\(.state), master \(.master), handovers sent \(.handovers_sent) accepted \(.handovers_accepted), times master \(.times_master), up \(.up)"'
  echo "  A: $(ibsm_status a/control.sock "$peers")"
  echo "  B: $(ibsm_status b/control.sock "$peers")"
  status_holds a/control.sock '.handovers_sent >= 1 and .handovers_accepted >= 1' ||
    fail "A's status counts no handover accepted"
  [[ $(($(ibsm_status a/control.sock .master))) -eq $((guid_b)) ]] ||
    fail "A did not hand over to $guid_b: it polls $(ibsm_status a/control.sock .master)"
  status_holds b/control.sock '.times_master >= 1' || fail "B was never MASTER"
  wait_for_status b/control.sock .up 20 || fail "B: the subnet is not up after the handover"
  [[ $(ibsm_state b/control.sock) == MASTER* ]] || fail "B's status: '$(ibsm_state b/control.sock)', expected MASTER"
  [[ $(ibsm_state a/control.sock) == STANDBY* ]] || fail "A's status: '$(ibsm_state a/control.sock)', expected STANDBY"
  quiet ibnetdiscover | ibnetdiscover_lids >after.lids
  diff -q before.lids after.lids >/dev/null ||
    fail "LIDs changed in the handover:"$'\n'"$(diff before.lids after.lids | head)"
  check_links_active "$net"
  check_all_pairs_walk
  scheme_a=$(ibsm_status a/control.sock .m_keys.scheme)
  scheme_b=$(ibsm_status b/control.sock .m_keys.scheme)
  echo "  M_Keys: A '$scheme_a', B '$scheme_b'"
  [[ $scheme_a == "$scheme_b" ]] || fail "A and B name other M_Key schemes: '$scheme_a', '$scheme_b'"
  [[ $scheme_a == *derived* ]] || fail "A's M_Keys are not derived from the secret: '$scheme_a'"
  for who in a b; do
    status_holds $who/control.sock '.m_keys.unknown == 0' ||
      fail "${who^^} counts ports with an M_Key not its own: $(ibsm_status $who/control.sock .m_keys)"
  done
else
  fail "no handover to B ($guid_b) within 30 s; sminfo: $(sminfo_from "$asker")"
fi
for who in a b; do
  pid=pid_$who
  stop_pid "${!pid}" TERM 5
  rc=$?
  [[ $rc -eq 0 ]] || fail "ibsm ${who^^} exited $rc after SIGTERM"
done
if grep -qi "$secret_hex" a/* b/* 2>/dev/null; then
  fail "the shared secret appears in an output of A or B: $(grep -li "$secret_hex" a/* b/*)"
fi

finish "$(basename "$net" .net): handover from ibsm A to B, $((SECONDS - start)) s" a/ibsm.log b/ibsm.log
