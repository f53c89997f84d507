#!/usr/bin/env bash
# `ibsm run` refuses bad input before it sends a single SMP: an unknown config
# key (named with file:line), an unknown port GUID, an unknown engine, a
# state file that does not parse (named with file:line), a malformed
# option, a --port DEVICE:PORT that does not exist (the message names what
# is missing and the ports that exist) and a state directory that cannot be
# created (as for a non-root user; here a path below a regular file) each
# end with exit 2 and a message naming the culprit. ibsim, at Verbose 1, logs every request
# that reaches a node: none may appear while ibsm runs. Afterwards the fabric
# is as ibsim made it: every port LID 0 (ibnetdiscover), no link past Init
# (iblinkinfo), no SM LID on the SM's own port (smpquery).
#
#   run-with-ibsim.sh NETFILE -- bad-input-sends-nothing.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS

printf '[routing]\nlmc = 0\n[sm]\nprority = 3\n' >unknown-key.toml
mkdir -p broken-state
printf '0x0000000000100001 0x0003 0x0003\n0x00000000001000zz 0x0004 0x0004\n' >broken-state/guid2lid

# ibsm ARGS... must exit 2 with a message matching PATTERN (extended regex).
refuses() {
  local pattern=$1
  shift
  local out rc
  out=$("$IBSM" run --once "$@" 2>&1 >/dev/null)
  rc=$?
  echo "ibsm run $*: exit $rc: $(grep -v '^ibwarn' <<<"$out")"
  [[ $rc -eq 2 ]] || fail "ibsm run $* exited $rc, not 2"
  grep -v '^ibwarn' <<<"$out" | grep -qE "$pattern" || fail "ibsm run $* does not say /$pattern/: $out"
}

console "Verbose 1"
wait_for_line ibsim.log 'simulator verbose level is 1' 20 || fail "ibsim did not turn verbose"
log_start=$(wc -l <ibsim.log)

refuses "unknown-key\.toml:4: .*'sm\.prority'" --config unknown-key.toml --state-dir state
refuses "0x0*deadbeef" --guid 0xdeadbeef --state-dir state
refuses "'nosuch'" --engine nosuch --state-dir state
refuses "broken-state/guid2lid:2" --state-dir broken-state
refuses "priority.*abc" --priority abc --state-dir state
# Under umad2sim the host's CA is ibsim0, with one port.
refuses "ibsim0:2: no port 2 on IB device ibsim0 \(ports present: ibsim0:1 \(GUID 0x[0-9a-f]{16}\)\)$" \
  --port ibsim0:2 --state-dir state
refuses "mlx5_9:1: no IB device mlx5_9 \(ports present: ibsim0:1 " --port mlx5_9:1 --state-dir state
touch not-a-directory
refuses "not-a-directory/state: cannot create the state directory \(sm\.state_dir, --state-dir\): " \
  --state-dir not-a-directory/state

console "Verbose 0"
wait_for_line ibsim.log 'simulator verbose level is 0' 20 || fail "ibsim did not turn quiet"
sent=$(tail -n +"$log_start" ibsim.log | grep 'process_packet: packet')
[[ -z $sent ]] || fail "SMPs reached the fabric:"$'\n'"$(head -5 <<<"$sent")"

quiet ibnetdiscover | ibnetdiscover_lids >ibnetdiscover.lids
[[ $(wc -l <ibnetdiscover.lids) -gt 0 ]] || fail "ibnetdiscover shows no ports"
with_lid=$(awk '$2 != "0x0000"' ibnetdiscover.lids)
[[ -z $with_lid ]] || fail "ports with a LID:"$'\n'"$(head <<<"$with_lid")"
past_init=$(quiet iblinkinfo | grep '==(' | grep -E 'Active/|Armed/')
[[ -z $past_init ]] || fail "links past Init:"$'\n'"$(head <<<"$past_init")"
own=$(quiet smpquery portinfo -D 0)
if ! grep -qE '^SMLid:\.*0$' <<<"$own" || ! grep -qE '^Lid:\.*0$' <<<"$own"; then
  fail "the SM's own port was configured:"$'\n'"$own"
fi
echo "fabric untouched: $(wc -l <ibnetdiscover.lids) ports at LID 0"

finish "$(basename "$net" .net): bad input, $((SECONDS - start)) s"
