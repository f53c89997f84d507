#!/usr/bin/env bash
# Routes under change on a running master (sweep_interval 2, issue 15): a
# lost inter-switch cable moves only the routes that used it, the cable back
# restores the tables a fresh SM computes, and a host's cable pulled and
# restored writes no LFT block.
#
# After "subnet up" (`ibsm status`) the tables are those of the dry run of
# the net file. `Unlink SWITCH[PORT]`: within 2 + 10 s a sweep that reroutes
# or sweeps heavy brings the subnet up again, with exactly the tables the dry
# run predicts from the tables held (`ibsm route --previous`, the same
# guid2lid); nothing forwards into either dead port; every switch reaches
# every LID (a walk through dump_fts); the LFT blocks written are exactly the
# blocks dump_fts before and after differ in, and at most the blocks that
# held an entry whose path crossed the cable (the dry run's
# previous.blocksRerouted, which the live status reports too). The blocks a
# fresh computation would have moved (`--rebalance`) are printed beside them.
# With REBALANCE (`rebalance`): routing.rebalance_interval = 12, so a
# rebalance sweep follows the reroute within 12 s + one interval and leaves
# exactly the dry run's fresh tables (`--rebalance`); `ibsm sweep
# --rebalance` then writes no block.
# `ReLink`: the tables equal the dry run of the whole fabric, the original.
# `Unlink HOST[1]` and `ReLink`: no LFT block written, tables unchanged.
#
#   run-with-ibsim.sh NETFILE -- stable-routes.sh path/to/ibsm SWITCH PORT HOST [rebalance]
set -u
IBSM=${1:?usage: $0 path/to/ibsm SWITCH PORT HOST}
node=${2:?SWITCH}
port=${3:?PORT}
host=${4:?HOST}
rebalance=${5:-}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
interval=2
swept='.sweeps_by_kind | .reroute + .heavy + .takeover'

mkdir -p sm
ibsm_conf sm/ibsm.toml "$PWD/sm" 1000 2 "$interval"
rebalance_after=12
[[ -z $rebalance ]] || printf '%s\n' '[routing]' "rebalance_interval = $rebalance_after" >>sm/ibsm.toml
start_ibsm sm "$(net_cas "$net" | head -n 1)" 10
sock=sm/control.sock
wait_for_status $sock .up 60 || fail "the subnet is not up within 60 s"
route_dry_run "$net" dry --guid2lid sm/state/guid2lid
check_lfts_as_planned dry
quiet dump_fts | lft_blocks >original.blocks
net_without_cable "$net" "$node" "$port" >cut.net
read -r far_node far_port < <(net_far_end "$net" "$node" "$port")

# COMMAND NODE[PORT] on the console, then waits for the sweep that follows to
# bring the subnet up; sets `written` (LFT blocks since) and `changed`
# (blocks dump_fts before and after differ in).
change() {
  local command=$1 at=$2
  local before=blocks.$RANDOM
  quiet dump_fts | lft_blocks >"$before"
  sleep 1 # a light sweep or two with nothing to find
  local sweeps0 written0
  sweeps0=$(ibsm_status $sock "$swept")
  written0=$(lft_blocks_written $sock)
  local t0=$SECONDS
  console "$command $at"
  if ! wait_for_status $sock "($swept) > $sweeps0 and .up" $((interval + 10)); then
    fail "$command $at: not up again after a new sweep within $((interval + 10)) s"
    return 1
  fi
  echo "$command $at: up again within $((SECONDS - t0)) s"
  ibsm_status $sock '.last_change | "  \(.kind): \(.changes | join("; ")), \(.mads) MADs, routes \(.counters.routes.how) \(.counters.routes.change)"'
  quiet dump_fts | lft_blocks >after.blocks
  changed=$(changed_blocks "$before" after.blocks)
  written=$(($(lft_blocks_written $sock) - written0))
  [[ $written -eq $changed ]] || fail "$command $at: $written LFT blocks written, $changed changed"
}

# The inter-switch cable: only what crossed it moves, as the dry run predicts.
route_dry_run cut.net dry-cut --guid2lid sm/state/guid2lid \
  --previous dry/opensm-lfts.dump --previous-topology "$net"
route_dry_run cut.net dry-fresh --guid2lid sm/state/guid2lid \
  --previous dry/opensm-lfts.dump --previous-topology "$net" --rebalance
crossing=$(jq .previous.blocksRerouted dry-cut/report.json)
fresh=$(jq .previous.blocks.differ dry-fresh/report.json)
[[ $crossing -gt 0 ]] || fail "no LFT block held an entry through \"$node\"[$port]: the test proves nothing"
if change Unlink "\"$node\"[$port]"; then
  check_lfts_as_planned dry-cut
  check_all_pairs_walk
  check_links_active "$net" 2
  check_nothing_forwards_into "$node" "$port"
  check_nothing_forwards_into "$far_node" "$far_port"
  live=$(ibsm_status $sock '.last_change.counters.routes.rerouted_blocks')
  echo "  LFT blocks: $written written; $crossing held an entry whose path crossed the cable (live SM: $live); a fresh computation would move $fresh"
  [[ $written -le $crossing ]] || fail "Unlink: $written LFT blocks written, more than the $crossing that crossed the cable"
  [[ $live -eq $crossing ]] || fail "Unlink: the live SM counts $live blocks crossing the cable, the dry run $crossing"
  jq -e '.previous.routedAs == "kept"' dry-cut/report.json >/dev/null ||
    fail "the dry run did not route under change: $(jq -c .previous.why dry-cut/report.json)"
fi
# A rebalance on schedule, then one asked: the fresh tables of the fabric
# without the cable, the second writing nothing.
if [[ -n $rebalance ]]; then
  written0=$(lft_blocks_written $sock)
  if wait_for_status $sock '.sweeps_by_kind.rebalance >= 1 and .up' $((rebalance_after + interval + 10)); then
    written=$(($(lft_blocks_written $sock) - written0))
    echo "rebalance after $rebalance_after s: $written LFT blocks written"
    check_lfts_as_planned dry-fresh
    written0=$(lft_blocks_written $sock)
    rebalance0=$(ibsm_status $sock .sweeps_by_kind.rebalance)
    env -u LD_PRELOAD "$IBSM" sweep --rebalance --socket $sock >/dev/null ||
      fail "ibsm sweep --rebalance was refused"
    wait_for_status $sock ".sweeps_by_kind.rebalance > $rebalance0 and .up" 20 ||
      fail "no rebalance counted after ibsm sweep --rebalance"
    [[ $(ibsm_status $sock .last_heavy.kind) == rebalance ]] ||
      fail "the asked rebalance is not the last heavy sweep"
    [[ $(ibsm_status $sock .last_heavy.counters.routes.how) == fresh ]] ||
      fail "the asked rebalance did not route afresh"
    [[ $(($(lft_blocks_written $sock) - written0)) -eq 0 ]] ||
      fail "a rebalance of fresh tables wrote LFT blocks"
  else
    fail "no rebalance within $((rebalance_after + interval + 10)) s of the reroute"
  fi
fi

# The cable back: exactly the fresh tables of the whole fabric.
if change ReLink "\"$node\"[$port]"; then
  check_lfts_as_planned dry
  check_all_pairs_walk
  check_links_active "$net" 0
  echo "  LFT blocks: $written written"
  diff -q original.blocks after.blocks >/dev/null || fail "after ReLink the tables differ from the original"
fi

# A host's cable pulled and restored (a reboot): no LFT block at all.
for command in Unlink ReLink; do
  if change "$command" "\"$host\"[1]"; then
    echo "  LFT blocks: $written written"
    [[ $written -eq 0 ]] || fail "$command \"$host\"[1]: $written LFT blocks written, expected none"
  fi
done
diff -q original.blocks after.blocks >/dev/null || fail "after the host came back the tables differ from the original"
check_lfts_as_planned dry

stop_pid "$ibsm_pid" TERM 5
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm exited $rc after SIGTERM"
finish "$(basename "$net" .net): routes under change, \"$node\"[$port] and \"$host\"[1] pulled and restored, $((SECONDS - start)) s" sm/ibsm.log
