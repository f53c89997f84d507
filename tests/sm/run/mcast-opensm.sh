#!/usr/bin/env bash
# Multicast judged from outside (issue 13): an SM (SM=opensm today, SM=ibsm
# once ibsm does multicast) is master on the first CA of NETFILE with a
# partitions.conf of two ipoib partitions; tests/tools/sa-client joins and
# leaves ports by proxy from the second CA, step by step, and after each step
# the MFTs of every switch are read back with `ibroute -M` and walked by
# tests/sm/run/mft-check.py for every group from every member (each receiver
# reached exactly once, no loop, no non-member port, no dead branch, no
# stale MLID). The SM programs MFTs after it answers, so each check is
# retried until it passes or 30 s pass.
#   0. Whether the SM answers MCMemberRecord at all (a Get of the default
#      partition's broadcast group): with SM=ibsm, an SM that does not
#      (timeout, attribute or method not supported) skips the test (exit 77).
#   1. `saquery -g` after bring-up: the broadcast groups of both partitions,
#      MLIDs aside, equal what OpenSM 3.3.23 creates for this partitions.conf
#      (the expected text below; SM=opensm proves it is OpenSM's).
#   2. Joins by proxy (Full, NonMember, SendOnlyNonMember; the client's own
#      port too) to both broadcast groups; a group created with the full
#      component mask and a zero MGID (SA-assigned) that two more ports join;
#      leaves (Delete of the Full bit).
#   3. OpenSM PR #43's case: a port joins a new group with JoinState 0x9
#      (Full | SendOnlyFull), leaves the Full bit (0x1): it must still be a
#      SendOnlyFull member; leaving 0x8 then ends the group: no record, no
#      MFT entry, and the next create gets that MLID again. Asserted of ibsm;
#      of OpenSM what it does is printed (3.3.23 drops the member at the 0x1
#      leave and keeps the group and its MLID: the leak PR #43 fixes).
#   4. A spine cable lost (ibsim's Unlink): after the SM's sweep every group
#      still reaches every member over the cables left.
#   5. Every port leaves (NonMember and SendOnlyNonMember first: an SM may
#      drop them with the last Full member): no MFT entry is left anywhere.
#
#   mcast-opensm.sh path/to/ibsm path/to/sa-client opensm|ibsm NETFILE SPINE PORT
set -u
IBSM=${1:?usage: $0 path/to/ibsm path/to/sa-client opensm|ibsm NETFILE SPINE PORT}
CLIENT=${2:?} sm=${3:?} net=${4:?} spine=${5:?} spine_port=${6:?}
here=$(cd "$(dirname "$0")" && pwd)
if [[ -z ${IBSIM_SOCKNAME:-} ]]; then
  exec "$here/../ibsim/run-with-ibsim.sh" "$net" -- "$here/$(basename "$0")" \
    "$(realpath "$IBSM")" "$(realpath "$CLIENT")" "$sm" "$net" "$spine" "$spine_port"
fi
source "$here/run-checks.sh"
source "$here/mcast-lib.sh"
checker=$here/mft-check.py
start=$SECONDS
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
node_sm=${cas[0]} asker=${cas[1]}
sm_guid=$(node_port_guid "$node_sm")
dir=$PWD/$sm
mkdir -p "$dir"
cat >"$dir/partitions.conf" <<'EOF'
Default=0x7fff, ipoib : ALL=full;
storage=0x8001, ipoib, mtu=4, rate=3 : ALL=full;
EOF
case $sm in
  opensm)
    printf '%s\n' 'force_log_flush TRUE' "partition_config_file $dir/partitions.conf" \
      'sweep_interval 5' >"$dir/opensm.conf"
    start_opensm "$dir" "$node_sm" 0
    sm_pid=$opensm_pid
    ;;
  ibsm)
    printf '%s\n' '[sm]' "control_socket = \"$dir/control.sock\"" \
      "partitions_file = \"$dir/partitions.conf\"" 'sweep_interval = 5' >"$dir/ibsm.toml"
    start_ibsm "$dir" "$node_sm" 0
    sm_pid=$ibsm_pid
    ;;
  *) echo "unknown SM $sm" >&2; exit 2 ;;
esac
stop_sm() { stop_pid "$sm_pid" TERM 10; }
wait_sminfo_master "$asker" "$sm_guid" 60 || fail "$sm on $node_sm is not master after 60 s"
wait_until 60 lids_ready || fail "ports without a LID after 60 s"
[[ $failures -eq 0 ]] || { stop_sm; finish "multicast on $sm" "$dir/log" "$dir/ibsm.log"; exit 1; }

bcast=ff12:401b:ffff::ffff:ffff storage=ff12:401b:8001::ffff:ffff

# 0. Does the SM answer MCMemberRecord?
client probe mcast get --mgid "$bcast" --timeout-ms 2000
probe=$(value probe status)
if [[ $probe != "0x0000 OK" ]]; then
  if [[ $sm == ibsm && ($probe == none || $probe == *NOT_SUPPORTED*) ]]; then
    echo "SKIP: ibsm does not answer MCMemberRecord (Get of $bcast: status $probe)"
    stop_sm
    exit 77
  fi
  fail "MCMemberRecord Get of $bcast: status $probe"
  stop_sm
  finish "multicast on $sm" "$dir/log" "$dir/ibsm.log"
  exit 1
fi
echo "probe: $sm answers MCMemberRecord (Get of $bcast: MLID $(value probe mlid))"

# 1. The broadcast groups, as saquery -g shows them, MLIDs aside.
SIM_HOST=$asker quiet saquery -g >saquery-g.raw
awk '/group dump/ { if (r != "") print r; r = "" } /\.\.\./ { sub(/^[ \t]+/, ""); split($0, f, /\.+/);
       if (f[1] != "Mlid") r = r (r == "" ? "" : " ") f[1] "=" f[2] } END { if (r != "") print r }' \
  saquery-g.raw | sort >saquery-g.txt
expected='MGID=ff12:401b:8001::ffff:ffff Mtu=0x84 pkey=0x8001 Rate=0x83 SL=0x0
MGID=ff12:401b:ffff::ffff:ffff Mtu=0x84 pkey=0xFFFF Rate=0x83 SL=0x0'
[[ $(cat saquery-g.txt) == "$expected" ]] ||
  fail "saquery -g differs from OpenSM's groups for this partitions.conf:"$'\n'"$(diff <(echo "$expected") saquery-g.txt)"
echo "saquery -g: $(wc -l <saquery-g.txt) groups as OpenSM makes them; MLIDs: $(grep -o '0x[cC][0-9A-Fa-f]*' saquery-g.raw | tr '\n' ' ')"

# The MFTs of every switch, read with ibroute -M, walked by mft-check.py.
mft_ok() { read_mfts && python3 "$checker" --fabric fabric.txt --mfts mfts.txt --members members.rec >check.out; }
check_step() { # WHAT: waits up to 30 s for the tables to be right
  local t0=$SECONDS
  if wait_until 30 mft_ok; then
    echo "$1: $(tail -n 1 check.out) ($((SECONDS - t0)) s)"
  else
    fail "$1: the MFTs are wrong after 30 s:"$'\n'"$(head -n 12 check.out)"
    cp fabric.txt mfts.txt members.rec check.out "$dir/" 2>/dev/null
  fi
}
: >members.rec
check_step "bring-up (no member)"

# Ports of different leaves and pods (the CAs in file order, spread).
n=${#cas[@]}
port_of() { node_port_guid "${cas[$1]}"; }
mapfile -t p < <(for i in 2 5 $((n / 4)) $((n / 2)) $((n / 2 + 3)) $((3 * n / 4)) $((n - 1)) $((n - 6)); do port_of "$i"; done)
self=$(port_of 1)
join() { mcast_join members.rec "$@"; } # MGID STATE GUIDS... [-- extra sa-client args]
leave() { # MGID STATE GUIDS...
  local mgid=$1 state=$2
  shift 2
  client step.out mcast leave --mgid "$mgid" --join-state "$state" --retries 2 \
    --port-guid "$(IFS=,; echo "$*")" --record members.rec ||
    fail "leave $mgid state $state: $(grep -E '^(errors|timeouts|error) ' step.out | tr '\n' ' ')"
}

# 2. Joins and leaves by proxy.
join "$bcast" 0x1 "${p[0]}" "${p[2]}" "${p[4]}" "${p[6]}"
check_step "4 Full members of $bcast (by proxy)"
join "$bcast" 0x1 "$self"
join "$bcast" 0x2 "${p[1]}"
join "$bcast" 0x4 "${p[3]}"
check_step "+ the client's own port, a NonMember and a SendOnlyNonMember"
join "$storage" 0x1 "${p[5]}" "${p[6]}" "${p[7]}" -- --pkey 0x8001
check_step "3 Full members of $storage"
join 0 0x1 "${p[1]}" "${p[3]}" "${p[7]}" -- --create
created=$(value step.out group | cut -d' ' -f1)
[[ -n $created ]] || fail "the create with a zero MGID answered no MGID"
check_step "a group created with MGID 0 (SA-assigned $created) and 2 more ports"
leave "$bcast" 0x1 "${p[2]}" "${p[4]}"
check_step "2 Full members left $bcast"

# 3. OpenSM PR #43: 0x9 join, 0x1 leave, then 0x8 leave.
join 0 0x9 "${p[5]}" -- --create
pr43=$(value step.out group) pr43_mgid=${pr43%% *} pr43_mlid=${pr43##* }
check_step "${p[5]} created $pr43_mgid with JoinState 0x9 (MLID $pr43_mlid)"
leave "$pr43_mgid" 0x1 "${p[5]}"
client pr43.after1 mcast get --mgid "$pr43_mgid" --port-guid "${p[5]}" --sa-key 1
state_after=$(value pr43.after1 join_state)
client pr43.leave8 mcast leave --mgid "$pr43_mgid" --join-state 0x8 --port-guid "${p[5]}" \
  --record members.rec && leave8=OK || leave8=$(grep -m1 '^error ' pr43.leave8 | sed 's/.*status //')
client pr43.gone mcast get --mgid "$pr43_mgid"
client pr43.next mcast join --mgid 0 --create --join-state 0x1 --port-guid "${p[0]}" --record members.rec
next_mlid=$(value pr43.next group)
next_mlid=${next_mlid##* }
echo "PR #43: after the 0x1 leave the port holds JoinState ${state_after:-none} ($(value pr43.after1 status));" \
  "leave 0x8: ${leave8:-no answer};" \
  "group afterwards: $(value pr43.gone status); next create got MLID $next_mlid (the 0x9 group had $pr43_mlid)"
if [[ $sm == ibsm ]]; then
  [[ $state_after == 0x8 ]] || fail "PR #43: after leaving 0x1 of 0x9 the port holds ${state_after:-no record}, not 0x8"
  [[ $(value pr43.gone status) != "0x0000 OK" ]] || fail "PR #43: the group lives on after its last member left"
  [[ $next_mlid == "$pr43_mlid" ]] || fail "PR #43: MLID $pr43_mlid was not freed (the next create got $next_mlid)"
fi
check_step "after PR #43's case (members as the SA answered)"

# 4. A spine cable lost: every group still reaches every member. Whether
#    the trees used that cable before is printed (OpenSM roots them all at
#    one spine, which may or may not be this one).
used=$(awk -v n="($spine):" -v p="$spine_port" 'index($0, "Multicast mlids") { here = index($0, n) > 0; next }
  here && /^0x/ && substr($0, 13 + 2 * p, 1) == "x" { c++ } END { print c + 0 }' mfts.txt)
echo "before the Unlink, $used MLIDs of \"$spine\" had port $spine_port in their mask"
console "Unlink \"$spine\"[$spine_port]"
sleep 2 # the SM's sweep on the trap; check_step waits for right tables after it
check_step "after Unlink \"$spine\"[$spine_port]"

# 5. Everyone leaves (the members that do not keep a group alive first): no
#    MFT entry is left.
python3 -c '
import sys
held = {}
for verb, mgid, guid, state, _ in (l.split() for l in open(sys.argv[1]) if l.strip()):
    k, s = (mgid, guid), int(state, 16)
    held[k] = held.get(k, 0) | s if verb == "join" else held.get(k, 0) & ~s
# Members that do not keep a group alive leave first: when the last Full
# member leaves, an SM may drop the rest with the group (OpenSM does).
for (mgid, guid), s in sorted(held.items(), key=lambda kv: (kv[1] & 0x9 != 0, kv[0])):
    if s:
        print(mgid, guid, hex(s))' members.rec >left.txt
while read -r mgid guid state; do
  client step.out mcast leave --mgid "$mgid" --join-state "$state" --port-guid "$guid" --record members.rec ||
    { [[ $sm == opensm && $mgid == "$pr43_mgid" ]] || fail "leave $mgid $guid $state: $(grep -m1 '^error' step.out)"; }
done <left.txt
check_step "every member left (no MFT entry may remain)"

kill -0 "$sm_pid" 2>/dev/null || fail "$sm exited during the checks"
stop_sm
finish "multicast on $sm ($((SECONDS - start)) s)" "$dir/log" "$dir/ibsm.log"
