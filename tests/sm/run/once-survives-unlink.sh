#!/usr/bin/env bash
# A cable pulled while `ibsm run --once` programs the fabric (ibsim's console
# `Unlink "NODE"[PORT]`, sent as soon as the state directory holds guid2lid:
# ibsm writes it once discovery and the plan are done, while it programs).
#
# The right outcome is exit 0 with the fabric as it is now: the fabric stays
# connected without that cable, so --once must not give up; the sweep that
# met the dead cable cannot bring its ports up, so ibsm sweeps again, sees the
# cable gone and says so ("cable lost" among its changes, SM-0402 in the
# log), and routes around it. Judged by infiniband-diags and its --stats:
#   - exit 0, ended up, and the last sweep that changed something names the
#     lost cable;
#   - iblinkinfo: every remaining cabled port Active, two link ends fewer;
#   - ibnetdiscover: every port still has the LID it was given;
#   - dump_fts: no entry leads into either end of the dead cable, and the
#     tables are those of the dry run of the net file without that cable
#     (with the live LIDs), entry by entry; every switch forwards every LID;
#   - ibtracert walks CA->CA and CA->switch routes to their end;
#   - a second `ibsm run --once` is clean: exit 0 in one sweep, no warning
#     in its log, 0 LFT blocks written.
# The run uses one SMP in flight (mad.window = 1) so that programming lasts
# long enough (~0.25 s on the 3-level radix-12 tree) for the unlink to land in
# it even on a loaded machine; the cable should not be on the SMPs' directed
# routes (an edge switch's last up-link is not), or every SMP behind it waits
# out its timeouts one at a time.
#
#   run-with-ibsim.sh NETFILE -- once-survives-unlink.sh path/to/ibsm NODE PORT
set -u
IBSM=${1:?usage: $0 path/to/ibsm NODE PORT}
node=${2:?NODE}
port=${3:?PORT}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS

net_without_cable "$net" "$node" "$port" >cut.net
[[ $(net_link_ends cut.net) -eq $(($(net_link_ends "$net") - 2)) ]] ||
  { fail "\"$node\"[$port] is not a cable of $net"; finish "unlink"; exit; }
# Fresh tables at every plan (routing.stable_routes = false): the second run,
# a new process with no plan of its own to keep, computes them afresh too, so
# a clean second run writes nothing. Routes kept under change are the
# RunStableRoutes tests' subject.
printf '[mad]\nwindow = 1\n[routing]\nstable_routes = false\n' >slow.toml

"$IBSM" run --once --config slow.toml --state-dir state --log-file ibsm.log --stats stats.json \
  >verdict.txt 2>stderr.txt &
pid=$!
wait_until 60 test -s state/guid2lid || fail "discovery and plan did not finish"
console "Unlink \"$node\"[$port]"
unlinked=$(date +%H:%M:%S.%3N)
wait "$pid"
rc=$?
sweeps='.sweeps_by_kind.heavy + .sweeps_by_kind.takeover'
echo "unlinked \"$node\"[$port] at $unlinked; ibsm exited $rc after $(stats stats.json "$sweeps") sweeps"
[[ $rc -eq 0 ]] || fail "ibsm run --once exited $rc:"$'\n'"$(cat stderr.txt)"
stats_hold stats.json '.exit.reason == "up" and .up' || fail "ibsm did not end with the subnet up: $(stats stats.json .exit)"
lost=$(stats stats.json '.last_change.changes[]? | select(startswith("cable lost: "))')
echo "ibsm: $lost"
grep -qE "\"$node\" \(0x[0-9a-f]+\)\[$port\]" <<<"$lost" ||
  fail "ibsm does not report the cable \"$node\"[$port] lost (did the unlink come after the last SMP?)"

check_links_active "$net" 2
dead=$(quiet iblinkinfo | grep -A64 "Switch: .* $node:" | grep -E "^ +[0-9]+ +$port\[" | head -n 1)
grep -q 'Down/' <<<"$dead" || fail "\"$node\"[$port] is not Down: $dead"

check_lids_as_planned state/guid2lid
route_dry_run cut.net dry --guid2lid state/guid2lid
check_lfts_as_planned dry
check_every_lid_routed state/guid2lid
read -r far_node far_port < <(net_far_end "$net" "$node" "$port")
check_nothing_forwards_into "$node" "$port"
check_nothing_forwards_into "$far_node" "$far_port"
check_traces

"$IBSM" run --once --state-dir state --log-file again.log --stats again.json >/dev/null 2>again.err
rc=$?
[[ $rc -eq 0 ]] || fail "the second run exited $rc:"$'\n'"$(cat again.err)"
echo "second run: $(stats again.json '.last_heavy.counters | "\(.tables.lft.written) LFT blocks written (\(.tables.lft.read) read), \(.failed) failed"')"
# PROG-0307 aside: ibsim keeps partition enforcement off whatever it is told,
# and the default partition (managed when none is configured) asks for it.
grep -E '\[(warning|error)\]' again.log | grep -v PROG-0307 && fail "the second run was not clean"
[[ $(stats again.json "$sweeps") -eq 1 ]] || fail "the second run needed more than one sweep"
stats_hold again.json '.last_heavy.counters | .tables.lft.written == 0 and .failed == 0' ||
  fail "the second run wrote LFT blocks or did not complete"

finish "$(basename "$net" .net): unlink \"$node\"[$port] mid-sweep, $((SECONDS - start)) s" ibsm.log again.log
