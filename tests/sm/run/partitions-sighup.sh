#!/usr/bin/env bash
# A running master and a partitions.conf edited under it. After `subnet up`
# the tables are as planned; then one partition ('mgmt') swaps a member and
# SIGHUP makes ibsm write exactly the PKey blocks whose planned table
# changed (the offline plans before and after, compared: one 32-entry block
# per changed port, since every table here is shorter than 32) and the
# changed ports hold the new tables. A file broken on SIGHUP is refused with
# SM-0108 naming file:line, and no PKey block is written after it: the
# ports keep the last good tables.
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
wait_for_line sm/ibsm.log 'SM-0001 subnet up' 60 || fail "no SM-0001 subnet up within 60 s"
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
mark=$(wc -l <sm/ibsm.log)
kill -HUP "$ibsm_pid"
wait_for_line_since sm/ibsm.log "$mark" 'PROG-0306' 30 || fail "no programming within 30 s of SIGHUP"
written=$(pkey_blocks_written_since sm/ibsm.log "$mark")
echo "SIGHUP after one partition changed: $planned tables changed in the plan, $written PKey blocks written"
log_since sm/ibsm.log "$mark" | grep -E 'PROG-0301 phase pkeys|PROG-0306' | sed 's/^/  /'
[[ $written -eq $planned ]] || fail "$written PKey blocks written for $planned changed tables"
mapfile -t samples <<<"$changed"
check_tables_as_planned after.tables "${samples[@]}" >/dev/null

# A broken file on SIGHUP: refused with its line, the tables stay.
cp sm/parts.conf good.conf
printf 'broken=0x12345 : ALL ;\n' >>sm/parts.conf
line=$(wc -l <sm/parts.conf)
mark=$(wc -l <sm/ibsm.log)
kill -HUP "$ibsm_pid"
wait_for_line_since sm/ibsm.log "$mark" "SM-0108 .*parts.conf:$line" 20 ||
  fail "no SM-0108 naming parts.conf:$line after a broken file"
sleep 5 # two sweep intervals: a sweep that planned the broken file would have written by now
written=$(pkey_blocks_written_since sm/ibsm.log "$mark")
[[ $written -eq 0 ]] || fail "$written PKey blocks written after a refused reload"
check_tables_as_planned after.tables "${samples[@]}" >/dev/null
stop_pid "$ibsm_pid" TERM 10 || fail "ibsm did not stop on SIGTERM"
finish "partitions on SIGHUP" sm/ibsm.log
