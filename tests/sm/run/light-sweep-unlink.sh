#!/usr/bin/env bash
# A spine cable pulled and put back under a running master (sweep_interval 2):
# ibsm must route around it within one interval plus the reroute, writing
# only the LFT blocks that change, and return to the original tables when
# the cable comes back.
#
# After "subnet up" (`ibsm status`) the tables are those of the dry run of
# the net file. `Unlink SWITCH[PORT]`: within 2 + 10 s a sweep that reroutes
# or sweeps heavy brings the subnet up again; the tables are then those of
# the dry run without that cable (same guid2lid), nothing forwards into
# either dead port, every switch reaches every LID (a walk through
# dump_fts), and the LFT blocks its status counts as written since the
# unlink are exactly the 64-entry blocks in which dump_fts before and after
# differ -- which is also how many differ between the two dry runs.
# `ReLink`: the same, back to the original tables.
#
#   run-with-ibsim.sh NETFILE -- light-sweep-unlink.sh path/to/ibsm SWITCH PORT
set -u
IBSM=${1:?usage: $0 path/to/ibsm SWITCH PORT}
node=${2:?SWITCH}
port=${3:?PORT}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
interval=2

mkdir -p sm
ibsm_conf sm/ibsm.toml "$PWD/sm" 1000 2 "$interval"
start_ibsm sm "$(net_cas "$net" | head -n 1)" 10
sock=sm/control.sock
wait_for_status $sock .up 60 || fail "the subnet is not up within 60 s"
route_dry_run "$net" dry --guid2lid sm/state/guid2lid
check_lfts_as_planned dry
quiet dump_fts | lft_blocks >original.blocks
net_without_cable "$net" "$node" "$port" >cut.net
route_dry_run cut.net dry-cut --guid2lid sm/state/guid2lid
lft_blocks <dry/opensm-lfts.dump >dry.blocks
lft_blocks <dry-cut/opensm-lfts.dump >dry-cut.blocks
planned=$(changed_blocks dry.blocks dry-cut.blocks)
[[ $planned -gt 0 ]] || fail "the dry runs with and without \"$node\"[$port] route alike: the test proves nothing"
read -r far_node far_port < <(net_far_end "$net" "$node" "$port")

# Pulls or restores the cable, then checks the reroute against the dry run DRY.
change() {
  local command=$1 dry=$2 missing=$3
  local before=blocks.$RANDOM
  quiet dump_fts | lft_blocks >"$before"
  sleep 1 # a light sweep or two with nothing to find
  local swept='.sweeps_by_kind | .reroute + .heavy + .takeover'
  local sweeps0 written0
  sweeps0=$(ibsm_status $sock "$swept")
  written0=$(lft_blocks_written $sock)
  local t0=$SECONDS
  console "$command \"$node\"[$port]"
  if ! wait_for_status $sock "($swept) > $sweeps0 and .up" $((interval + 10)); then
    fail "$command: not up again after a new sweep within $((interval + 10)) s"
    return
  fi
  echo "$command \"$node\"[$port]: up again within $((SECONDS - t0)) s"
  ibsm_status $sock '.last_change | "  \(.kind): \(.changes | join("; ")), \(.mads) MADs, up \(.up)"'
  check_lfts_as_planned "$dry"
  check_all_pairs_walk
  check_links_active "$net" "$missing"
  lft_blocks <dump_fts.txt >after.blocks
  local changed written
  changed=$(changed_blocks "$before" after.blocks)
  written=$(($(lft_blocks_written $sock) - written0))
  echo "  LFT blocks: $written written, $changed changed on the switches, $planned between the dry runs"
  [[ $written -eq $changed ]] || fail "$command: $written LFT blocks written, $changed changed"
  [[ $changed -eq $planned ]] || fail "$command: $changed LFT blocks changed, the dry runs differ in $planned"
}

change Unlink dry-cut 2
check_nothing_forwards_into "$node" "$port"
check_nothing_forwards_into "$far_node" "$far_port"
change ReLink dry 0
diff -q original.blocks after.blocks >/dev/null || fail "after ReLink the tables differ from the original"

stop_pid "$ibsm_pid" TERM 5
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm exited $rc after SIGTERM"
finish "$(basename "$net" .net): light sweep, Unlink and ReLink of \"$node\"[$port], $((SECONDS - start)) s" sm/ibsm.log
