#!/usr/bin/env bash
# `ibsm run --once --partitions FILE` with three partitions (a full/limited
# mix by GUID, ALL_CAS=limited, two CAs by GUID): the PKey tables smpquery
# reads from sampled CA ports, switch port 0 and switch ports facing CAs
# are exactly those `ibsm partitions` plans for the live fabric. Before
# that, a partitions.conf with a bad PKey refuses start-up: exit 2, the
# message names file:line, and the fabric is untouched (no LID anywhere, the
# CA tables still ibsim's default).
#
#   run-with-ibsim.sh fat-tree-3level-k8.net -- partitions-once.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
source "$(dirname "$0")/partitions-checks.sh"
net=$IBSIM_NETFILE
sm_node=$(net_cas "$net" | head -n 1)

three_partitions parts.conf
printf 'good=0x0a0a : ALL ;\nbad=0x1zz : ALL_CAS ;\n' >bad.conf
out=$(SIM_HOST=$sm_node "$IBSM" run --once --partitions bad.conf --state-dir state 2>&1 >/dev/null)
rc=$?
[[ $rc -eq 2 ]] || fail "a bad partitions.conf: exit $rc, not 2"
grep -v '^ibwarn' <<<"$out" | grep -q 'bad.conf:2' || fail "the refusal does not name bad.conf:2: $out"
with_lid=$(quiet ibnetdiscover | ibnetdiscover_lids | awk '$2 != "0x0000" && $2 != "none"')
[[ -z $with_lid ]] || fail "ports got LIDs although start-up was refused"

SIM_HOST=$sm_node "$IBSM" run --once --partitions parts.conf --state-dir state \
  --log-file ibsm.log --stats stats.json >/dev/null 2>&1 || fail "ibsm run --once --partitions exited $?"
stats_hold stats.json '.tables_total.pkey.written > 0' ||
  fail "no PKey block written: $(stats stats.json .tables_total)"
plan_tables parts.conf plan.tables
mapfile -t cas < <(net_cas "$net")
samples=("${cas[0]} 1" "${cas[1]} 1" "${cas[2]} 1" "${cas[9]} 1" "${cas[33]} 1" "${cas[100]} 1")
# Switch port 0 and external ports facing CAs (enforcing) of the edge switches of the CAs above.
while read -r name port; do samples+=("$name $port"); done < <(
  awk '$1 ~ /^edge/ && $2 != 0 && /0x0c0c|0x8a0a/ { print $1, $2 }' plan.tables | head -n 4
  awk '$1 ~ /^edge0_0$|^edge4_1$/ { print $1, $2 }' plan.tables | head -n 10)
[[ ${#samples[@]} -ge 12 ]] || fail "too few switch ports sampled: ${samples[*]}"
check_tables_as_planned plan.tables "${samples[@]}" | tee held.txt
# The samples cover what the file asks for, so matching the plan means something.
grep -q "^${cas[1]} 1: .*0x8a0a" held.txt || fail "${cas[1]} is no full member of 'mix'"
grep -q "^${cas[2]} 1: .*0x0a0a" held.txt || fail "${cas[2]} is no limited member of 'mix'"
grep -q "^${cas[100]} 1: 0x7fff 0x0b0b$" held.txt || fail "${cas[100]} is not in 'storage' alone"
grep -q "^${cas[0]} 1: 0xffff " held.txt || fail "the SM's port ${cas[0]} is no full default member"
grep -qE "^edge[0-9_]+ [1-9]: .*0x0c0c" held.txt || fail "no switch port faces a 'mgmt' member"
echo "sampled ${#samples[@]} ports: ${samples[*]}"
finish "partitions --once" ibsm.log
