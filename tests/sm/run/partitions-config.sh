#!/usr/bin/env bash
# `ibsm run --once --config F` where F names a partitions file
# (sm.partitions_file: the three partitions of partitions-checks.sh) and
# holds a [[partition]] table of its own ('backup', two CAs full): the PKey
# tables the ports hold are exactly those `ibsm partitions --config F` plans.
# The two commands read their partitions through one function; this checks
# that the plan an operator prints is the plan the SM programs when both
# sources are in play. The samples include members from each source, so a
# command that missed either would disagree.
#
#   run-with-ibsim.sh fat-tree-3level-k8.net -- partitions-config.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
source "$(dirname "$0")/partitions-checks.sh"
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")

three_partitions parts.conf
b1=$(node_port_guid "${cas[40]}")
b2=$(node_port_guid "${cas[41]}")
cat >ibsm.toml <<CONF
[sm]
partitions_file = "$PWD/parts.conf"

[[partition]]
name = "backup"
pkey = 0x0d0d
members = [{ guid = "$b1", membership = "full" }, "$b2=full"]
CONF

SIM_HOST=${cas[0]} "$IBSM" run --once --config ibsm.toml --state-dir state \
  --log-file ibsm.log >/dev/null 2>&1 || fail "ibsm run --once --config exited $?"
plan_tables_from plan.tables --config ibsm.toml
grep -q "^partition 'mix' 0x0a0a" plan.txt || fail "the plan misses 'mix' of sm.partitions_file"
grep -q "^partition 'backup' 0x0d0d: 2 members" plan.txt ||
  fail "the plan misses 'backup' of the [[partition]] table"

samples=("${cas[0]} 1" "${cas[1]} 1" "${cas[2]} 1" "${cas[33]} 1" "${cas[40]} 1" "${cas[41]} 1"
  "${cas[100]} 1")
# Switch ports enforcing for a 'backup' member, and switch port 0 of one edge switch.
while read -r name port; do samples+=("$name $port"); done < <(
  awk '$1 ~ /^edge/ && $2 != 0 && /0x8d0d/ { print $1, $2 }' plan.tables | head -n 2
  awk '$1 == "edge0_0" && $2 == 0 { print $1, $2 }' plan.tables)
[[ ${#samples[@]} -ge 10 ]] || fail "too few switch ports sampled: ${samples[*]}"
check_tables_as_planned plan.tables "${samples[@]}" | tee held.txt
grep -q "^${cas[40]} 1: .*0x8d0d" held.txt || fail "${cas[40]} is no full member of 'backup'"
grep -q "^${cas[1]} 1: .*0x8a0a" held.txt || fail "${cas[1]} is no full member of 'mix'"
echo "sampled ${#samples[@]} ports: ${samples[*]}"
finish "partitions from --config" ibsm.log
