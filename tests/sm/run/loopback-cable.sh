#!/usr/bin/env bash
# A cable from a switch to itself on a live fabric: the radix-8 tree with two
# spare ports of edge0_0 cabled to each other (the net file made by
# loopback-net.sh). `ibsm run --once` must
#   - bring the subnet up with ftree, as on the clean tree;
#   - program the tables the dry run plans for the looped net file
#     (dump_fts reads them back entry by entry), and the dry run's tables
#     must equal the clean tree's for every LID.
# The loop is left out of routing by planSubnet(), which the live SM and the
# dry run share: discovery's fabric on ibsim has the cable and gets the same
# treatment.
#
#   run-with-ibsim.sh LOOPED.net -- loopback-cable.sh path/to/ibsm CLEAN.net
set -u
IBSM=${1:?usage: $0 path/to/ibsm CLEAN.net}
clean=${2:?usage: $0 path/to/ibsm CLEAN.net}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE

route_dry_run "$clean" clean -R ftree
route_dry_run "$net" dry -R ftree --previous clean/opensm-lfts.dump
grep -q 'routing engine: ftree' dry/summary || fail "the dry run did not route with ftree: $(head -3 dry/summary)"
differ=$(jq -r '.previous.entries.differ' dry/report.json)
[[ $differ == 0 ]] || fail "the looped tree's tables differ from the clean tree's in $differ entries"
loops=$(jq -r '.loopbackCables | length' dry/report.json)
[[ $loops == 1 ]] || fail "report.json names $loops loopback cables, not 1"

"$IBSM" run --once --state-dir state --log-file ibsm.log --stats stats.json >verdict.txt 2>stderr.txt
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm run --once exited $rc:"$'\n'"$(cat stderr.txt)"
stats_hold stats.json '.exit.reason == "up" and .up' ||
  fail "ibsm did not end with the subnet up: $(stats stats.json .exit)"
stats_hold stats.json '.engine == "ftree"' || fail "ibsm routed with $(stats stats.json .engine), not ftree"
echo "ibsm: $(stats_summary <stats.json)"

cmp -s dry/guid2lid state/guid2lid ||
  fail "ibsm's guid2lid differs from the dry run's:"$'\n'"$(diff dry/guid2lid state/guid2lid | head)"
check_lfts_as_planned dry
check_every_lid_routed dry/guid2lid

finish "radix-8 tree with a loopback cable on edge0_0" ibsm.log
