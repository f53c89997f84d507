#!/usr/bin/env bash
# Multicast through a failover (issue 13): after a standby takes over, the
# hosts re-register and the groups come back with the same MGIDs.
# ibsm A (priority 10, first CA) is master with a partitions.conf of two
# ipoib partitions; ibsm B (priority 5, last CA) settles in STANDBY with the
# same file. tests/tools/sa-client, on the second CA, joins ports by proxy
# to both broadcast groups and creates a group with an SA-assigned MGID
# (MGID 0) that two more ports join; the MFTs read back with `ibroute -M`
# pass tests/sm/run/mft-check.py. A is killed (SIGKILL: no handover), B
# takes over and:
#   - `saquery -g` (answered by B) lists the broadcast groups with the MGIDs
#     A had, and not the SA-assigned group: no host re-registered yet, and a
#     standby learns no joins;
#   - its take-over sweep leaves no MFT entry of A's groups behind (the
#     checker with no member: no stale MLID);
#   - the client plays the hosts' re-registration (ibsim ports never
#     advertise ClientReregister, see sa-failover.sh): it sends every join
#     again with the same MGIDs, the SA-assigned one with a create's
#     component mask as a host re-creating it would; then `saquery -g` lists
#     the MGIDs A had, and B's MFTs pass the checker for every membership;
#   - B's status counts it: .sa.multicast (joins, groups created) and
#     .multicast (groups, members, passes that wrote MFT blocks).
#
#   mcast-failover.sh path/to/ibsm path/to/sa-client NETFILE
set -u
IBSM=${1:?usage: $0 path/to/ibsm path/to/sa-client NETFILE}
CLIENT=${2:?} net=${3:?}
here=$(cd "$(dirname "$0")" && pwd)
if [[ -z ${IBSIM_SOCKNAME:-} ]]; then
  exec "$here/../ibsim/run-with-ibsim.sh" "$net" -- "$here/$(basename "$0")" \
    "$(realpath "$IBSM")" "$(realpath "$CLIENT")" "$net"
fi
source "$here/run-checks.sh"
source "$here/mcast-lib.sh"
checker=$here/mft-check.py
start=$SECONDS
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
node_a=${cas[0]} node_b=${cas[-1]} asker=${cas[1]}

cat >partitions.conf <<'EOF'
Default=0x7fff, ipoib : ALL=full;
storage=0x8001, ipoib, mtu=4, rate=3 : ALL=full;
EOF
for sm in a b; do
  mkdir -p "$sm"
  ibsm_conf "$sm/ibsm.toml" "$PWD/$sm" 1000 2 10
  echo "partitions_file = \"$PWD/partitions.conf\"" >>"$sm/ibsm.toml"
done
start_ibsm a "$node_a" 10
pid_a=$ibsm_pid
pid_b=
stop_all() {
  kill -0 "$pid_a" 2>/dev/null && stop_pid "$pid_a" TERM 5
  [[ -n $pid_b ]] && stop_pid "$pid_b" TERM 5
}
give_up() {
  fail "$1"
  stop_all
  finish "multicast through a failover" a/ibsm.log b/ibsm.log
  exit 1
}
wait_for_status a/control.sock .up 60 || give_up "ibsm A: the subnet is not up within 60 s"
start_ibsm b "$node_b" 5
pid_b=$ibsm_pid
wait_for_status b/control.sock '.state == "STANDBY"' 30 || give_up "ibsm B did not settle in STANDBY"
wait_until 30 lids_ready || give_up "ports without a LID after 30 s"

# The groups `saquery -g` lists (the master answers), one line each:
# MGID and the group's parameters, MLID aside (SAME), or the MLIDs (MLIDS).
groups() { # OUT
  SIM_HOST=$asker timeout 10 saquery -g >"$1.raw" 2>"$1.err" || {
    local rc=$?
    echo "saquery -g ($1) exit $rc: $(head -c 400 "$1.err" | tr '\n' ' ')" >&2
    echo "asker's PortInfo: $(SIM_HOST=$asker timeout 5 smpquery portinfo 2>&1 | grep -iE 'SMLid|^Lid' | tr -s '. ' ' ' | tr '\n' ' ')" >&2
    return 1
  }
  awk '/group dump/ { if (r != "") print r; r = "" } /\.\.\./ { sub(/^[ \t]+/, ""); split($0, f, /\.+/);
         if (f[1] != "Mlid") r = r (r == "" ? "" : " ") f[1] "=" f[2] } END { if (r != "") print r }' \
    "$1.raw" | sort >"$1"
}
mgids() { sed 's/^MGID=\([^ ]*\).*/\1/' "$1"; }
mft_ok() { # MEMBERS: the MFTs give every membership of the record, nothing else
  read_mfts && python3 "$checker" --fabric fabric.txt --mfts mfts.txt --members "$1" >check.out
}
check_step() { # WHAT MEMBERS
  local t0=$SECONDS
  if wait_until 30 mft_ok "$2"; then
    echo "$1: $(tail -n 1 check.out) ($((SECONDS - t0)) s)"
  else
    fail "$1: the MFTs are wrong after 30 s:"$'\n'"$(head -n 12 check.out)"
  fi
}
bcast=ff12:401b:ffff::ffff:ffff storage=ff12:401b:8001::ffff:ffff

# On A: proxy joins to both broadcast groups, a group with an SA-assigned MGID.
groups groups.a0 || give_up "saquery -g to A failed"
n=${#cas[@]}
port_of() { node_port_guid "${cas[$1]}"; }
mapfile -t p < <(for i in 2 5 $((n / 4)) $((n / 2)) $((3 * n / 4)) $((n - 2)); do port_of "$i"; done)
: >members.rec
mcast_join members.rec "$bcast" 0x1 "${p[0]}" "${p[1]}" "${p[3]}"
mcast_join members.rec "$bcast" 0x2 "${p[2]}"
mcast_join members.rec "$storage" 0x1 "${p[2]}" "${p[4]}" "${p[5]}" -- --pkey 0x8001
mcast_join members.rec 0 0x1 "${p[1]}" "${p[4]}" -- --create
created=$(value step.out group | cut -d' ' -f1)
[[ -n $created && $created != 0 ]] || give_up "the create with a zero MGID answered no MGID"
check_step "on A: $(wc -l <members.rec) memberships of 3 groups (SA-assigned $created)" members.rec
groups groups.a || give_up "saquery -g to A failed"
echo "A's groups: $(mgids groups.a | tr '\n' ' ')"
[[ $(mgids groups.a | grep -cx "$created") -eq 1 ]] || fail "A's saquery -g does not list $created"

# A dies; B takes over.
killed=$SECONDS
kill -KILL "$pid_a"
wait "$pid_a" 2>/dev/null
wait_for_status b/control.sock '.state == "MASTER" and .up' 40 ||
  give_up "B did not take over within 40 s: $(ibsm_state b/control.sock)"
echo "B is master and up $((SECONDS - killed)) s after A was killed"
groups groups.b0 || give_up "saquery -g to B failed"
[[ $(cat groups.b0) == "$(cat groups.a0)" ]] ||
  fail "B's groups before any re-registration differ from A's at bring-up:"$'\n'"$(diff groups.a0 groups.b0)"
echo "B's groups before the hosts re-register: $(mgids groups.b0 | tr '\n' ' ')(MLIDs $(grep -o '0x[cC][0-9A-Fa-f]*' groups.b0.raw | tr '\n' ' '))"
: >none.rec
check_step "B's take-over sweep: no MFT entry of A's groups left" none.rec

# The hosts re-register: every join again, same MGIDs; the SA-assigned
# group is re-created by its first member, as a host would.
: >rejoined.rec
mcast_join rejoined.rec "$bcast" 0x1 "${p[0]}" "${p[1]}" "${p[3]}"
mcast_join rejoined.rec "$bcast" 0x2 "${p[2]}"
mcast_join rejoined.rec "$storage" 0x1 "${p[2]}" "${p[4]}" "${p[5]}" -- --pkey 0x8001
mcast_join rejoined.rec "$created" 0x1 "${p[1]}" "${p[4]}" -- --create
[[ $(value step.out group | cut -d' ' -f1) == "$created" ]] ||
  fail "the re-create of $created answered $(value step.out group)"
groups groups.b || give_up "saquery -g to B failed"
[[ $(mgids groups.b) == "$(mgids groups.a)" ]] ||
  fail "B's MGIDs after the re-registration differ from A's:"$'\n'"$(diff <(mgids groups.a) <(mgids groups.b))"
[[ $(cat groups.b) == "$(cat groups.a)" ]] ||
  fail "B's groups (MLIDs aside) differ from A's:"$'\n'"$(diff groups.a groups.b)"
echo "B's groups after the re-registration: $(mgids groups.b | tr '\n' ' ')"
check_step "on B after the re-registration: $(wc -l <rejoined.rec) memberships" rejoined.rec

joins=$(wc -l <rejoined.rec)
status_holds b/control.sock ".sa.multicast.joins == $joins and .sa.multicast.groups == 3
    and .sa.multicast.groups_created == 3 and .sa.multicast.groups_deleted == 0" ||
  fail "B's sa.multicast counters: $(ibsm_status_json b/control.sock | jq -c .sa.multicast)"
status_holds b/control.sock ".multicast.managed and .multicast.groups == 3 and .multicast.members == $joins
    and .multicast.passes >= 1 and .multicast.pass_mft_blocks_written > 0 and .multicast.passes_failed == 0" ||
  fail "B's multicast counters: $(ibsm_status_json b/control.sock | jq -c .multicast)"
echo "B's counters: sa.multicast $(ibsm_status_json b/control.sock | jq -c .sa.multicast)"
echo "              multicast $(ibsm_status_json b/control.sock | jq -c .multicast)"

stop_pid "$pid_b" TERM 5
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm B exited $rc after SIGTERM"
finish "$(basename "$net" .net): multicast through a failover, $((SECONDS - start)) s" a/ibsm.log b/ibsm.log
