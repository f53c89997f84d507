#!/usr/bin/env bash
# A restarted SM that lost its state directory keeps the fabric as it is. The
# first `ibsm run --once` is given a guid2lid with the LIDs of a fresh
# assignment (the dry run's) in reverse, so that an SM assigning afresh could
# not land on them by chance; it must use them. A second run with a fresh
# --state-dir must read them back from the ports and the tables back from the
# switches: ibnetdiscover shows the same LID on every port before and after,
# dump_fts the same tables, its guid2lid equals the first run's, and it writes
# nothing (its --stats: one sweep, complete, 0 LFT blocks written of those
# it read, no PKey or SL2VL written, no port activated, and no port
# configured but the switch ports whose partition enforcement ibsim ignores).
# Its M_Key Sets are counted apart (ports.keyed): ibsim keeps no M_Key, so a
# fresh SM writes each CA port and switch port 0 its key once more.
#
#   run-with-ibsim.sh NETFILE -- restart-keeps-lids.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS

route_dry_run "$net" dry
mkdir -p first
max=$(awk '{ print $2 }' dry/guid2lid | sort | tail -n 1)
while read -r guid base _; do
  printf '%s 0x%04x 0x%04x\n' "$guid" $((max + 1 - base)) $((max + 1 - base))
done <dry/guid2lid >first/guid2lid
cp first/guid2lid seeded.guid2lid
cmp -s dry/guid2lid seeded.guid2lid && fail "reversing the LIDs changed nothing: the test proves nothing"

"$IBSM" run --once --state-dir first --log-file first.log >/dev/null 2>first.err ||
  fail "the first run failed:"$'\n'"$(cat first.err)"
quiet ibnetdiscover | ibnetdiscover_lids >before.lids
quiet dump_fts | lft_entries >before.lft
diff <(guid2lid_lids seeded.guid2lid) <(cut -d' ' -f1,2 before.lids) >/dev/null ||
  fail "the first run did not give the LIDs of its guid2lid:"$'\n'"$(diff <(guid2lid_lids seeded.guid2lid) <(cut -d' ' -f1,2 before.lids) | head)"

"$IBSM" run --once --state-dir second --log-file second.log --stats second.json >/dev/null 2>second.err ||
  fail "the restarted run failed:"$'\n'"$(cat second.err)"
quiet ibnetdiscover | ibnetdiscover_lids >after.lids
quiet dump_fts | lft_entries >after.lft

[[ $(wc -l <before.lids) -gt 0 ]] || fail "ibnetdiscover shows no ports"
diff -q before.lids after.lids >/dev/null ||
  fail "LIDs changed across the restart:"$'\n'"$(diff before.lids after.lids | head)"
diff -q before.lft after.lft >/dev/null ||
  fail "LFTs changed across the restart:"$'\n'"$(diff before.lft after.lft | head)"
cmp -s first/guid2lid second/guid2lid ||
  fail "the restarted SM's guid2lid differs:"$'\n'"$(diff first/guid2lid second/guid2lid | head)"
summary=$(stats second.json '.last_heavy.counters | {complete, tables, ports}' | tr -d ' \n')
echo "restart: $summary"
# With no partitions configured ibsm manages the default partition, whose
# switch ports facing CAs it asks to enforce; ibsim keeps enforcement off
# whatever it is told (PROG-0307), so a fresh SM asks each of them once more:
# those are the only ports it may configure.
enforced=$("$IBSM" partitions --topology "$net" | grep -c ') enforce: ')
stats_hold second.json ".last_heavy.counters | .complete and .tables.lft.written == 0 and .tables.lft.read >= 1
  and .tables.pkey.written == 0 and .tables.sl2vl.written == 0 and .ports.configured == $enforced
  and .ports.activated == 0" ||
  fail "the restarted SM wrote something: $summary"
[[ $(stats second.json '.sweeps_by_kind.heavy + .sweeps_by_kind.takeover') -eq 1 ]] ||
  fail "the restarted SM needed more than one sweep"
echo "kept $(wc -l <after.lids) LIDs and $(wc -l <after.lft) LFT entries"

finish "$(basename "$net" .net): restart keeps LIDs, $((SECONDS - start)) s" first.log second.log
