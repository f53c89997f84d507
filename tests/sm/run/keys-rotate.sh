#!/usr/bin/env bash
# `ibsm keys rotate` against a live master on ibsim (issue 29), as an
# operator runs it: answered "ok: M_Key rotation started at ...", the secret
# file replaced (still 0600) and its previous copy gone once the sweep the
# rotation asks for has ended (m_keys.rotations 1, no longer rotating, the
# start time shown), and the subnet still up with every link active. ibsim
# keeps no M_Key (its PortInfo Set stores no key: every port counts as
# keeping none), so that no port is ever unprotected or unreachable while
# the keys move is shown on the fake fabric, which checks keys
# (tests/sm/manager/SmDaemonKeyRotationTest.cpp); here the command, the
# files and the status are the daemon's own.
#
#   run-with-ibsim.sh NETFILE -- keys-rotate.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
cleanup() { [[ -n ${ibsm_pid:-} ]] && kill "$ibsm_pid" 2>/dev/null; }
trap cleanup EXIT

mkdir -p sm
ibsm_conf sm/ibsm.toml "$PWD/sm"
start_ibsm sm "${cas[0]}" 10
wait_for_status sm/control.sock .up 60 || fail "the subnet is not up within 60 s"
secret=sm/state/mkey.secret
[[ -s $secret ]] || fail "no secret in the state directory"
before=$(sha256sum <"$secret")

env -u LD_PRELOAD "$IBSM" keys rotate --socket sm/control.sock >rotate.out 2>rotate.err
code=$?
[[ $code -eq 0 ]] && grep -q '^ok: M_Key rotation started at ' rotate.out ||
  fail "ibsm keys rotate: exit $code, '$(cat rotate.out rotate.err)'; expected 0 and ok"
wait_for_status sm/control.sock '.m_keys.rotations == 1 and (.m_keys.rotating | not)' 60 ||
  fail "the rotation did not end within 60 s: $(ibsm_status sm/control.sock .m_keys)"
[[ $(ibsm_status sm/control.sock .m_keys.rotation_started_unix_ms) -gt 0 ]] ||
  fail "no rotation start time in the status"
[[ ! -e $secret.previous ]] || fail "$secret.previous is still there after the rotation ended"
[[ $(sha256sum <"$secret") != "$before" ]] || fail "$secret was not replaced"
[[ $(stat -c %a "$secret") == 600 ]] || fail "$secret is $(stat -c %a "$secret"), expected 600"
status_holds sm/control.sock .up || fail "the subnet is not up after the rotation"
check_links_active "$IBSIM_NETFILE"

finish "keys rotate" sm/ibsm.log
