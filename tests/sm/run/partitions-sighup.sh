#!/usr/bin/env bash
# A running master and a partitions.conf edited under it. After `subnet up`
# the tables are as planned; then one partition ('mgmt') swaps a member and
# SIGHUP makes ibsm write exactly the PKey blocks whose planned table
# changed (the offline plans before and after, compared: one 32-entry block
# per changed port, since every table here is shorter than 32) and the
# changed ports hold the new tables. A file broken on SIGHUP is refused
# (SM-0108; the status counts it and names file:line), and no PKey block is
# written after it: the ports keep the last good tables. What ibsm wrote is
# read from its status (PKey blocks written since start, before and after).
#
#   run-with-ibsim.sh fat-tree-3level-k8.net -- partitions-sighup.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
source "$(dirname "$0")/partitions-checks.sh"
net=$IBSIM_NETFILE
mapfile -t cas < <(net_cas "$net")

mkdir -p sm
three_partitions sm/parts.conf
ibsm_conf sm/ibsm.toml "$PWD/sm" 1000 2 2
printf 'partitions_file = "%s"\n' "$PWD/sm/parts.conf" >>sm/ibsm.toml
start_ibsm sm "${cas[0]}" 10
sock=sm/control.sock
wait_for_status $sock .up 60 || fail "the subnet is not up within 60 s"
plan_tables sm/parts.conf before.tables
check_tables_as_planned before.tables "${cas[33]} 1" "${cas[34]} 1" "${cas[50]} 1" >/dev/null

# 'mgmt': the second member swapped for another CA on another edge switch.
old=$(node_port_guid "${cas[34]}")
new=$(node_port_guid "${cas[50]}")
sed -i "s/$old/$new/" sm/parts.conf
plan_tables sm/parts.conf after.tables
changed=$(comm -13 <(sort before.tables) <(sort after.tables) | awk '{ print $1, $2 }')
planned=$(wc -l <<<"$changed")
[[ -n $changed && $planned -ge 4 ]] || fail "the edit changes only $planned planned tables: the test proves nothing"
replans='.sweeps_by_kind | .replan + .heavy'
swept=$(ibsm_status $sock "$replans")
before=$(pkey_blocks_written $sock)
kill -HUP "$ibsm_pid"
wait_for_status $sock "($replans) > $swept" 30 || fail "no programming within 30 s of SIGHUP"
written=$(($(pkey_blocks_written $sock) - before))
echo "SIGHUP after one partition changed: $planned tables changed in the plan, $written PKey blocks written"
ibsm_status $sock '.last_replan.counters // {} | "  pkeys phase: \(.phases.pkeys // {}), blocks: \(.tables // {})"'
[[ $written -eq $planned ]] || fail "$written PKey blocks written for $planned changed tables"
mapfile -t samples <<<"$changed"
check_tables_as_planned after.tables "${samples[@]}" >/dev/null

# A broken file on SIGHUP: refused with its line, the tables stay.
cp sm/parts.conf good.conf
printf 'broken=0x12345 : ALL ;\n' >>sm/parts.conf
line=$(wc -l <sm/parts.conf)
refused=$(ibsm_status $sock .reloads_refused)
before=$(pkey_blocks_written $sock)
kill -HUP "$ibsm_pid"
wait_for_status $sock ".reloads_refused > $refused and (.reload_error | contains(\"parts.conf:$line\"))" 20 ||
  fail "no refused reload naming parts.conf:$line after a broken file: $(ibsm_status $sock .reload_error)"
sleep 5 # two sweep intervals: a sweep that planned the broken file would have written by now
written=$(($(pkey_blocks_written $sock) - before))
[[ $written -eq 0 ]] || fail "$written PKey blocks written after a refused reload"
check_tables_as_planned after.tables "${samples[@]}" >/dev/null
stop_pid "$ibsm_pid" TERM 10 || fail "ibsm did not stop on SIGTERM"
finish "partitions on SIGHUP" sm/ibsm.log
