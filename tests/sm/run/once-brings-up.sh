#!/usr/bin/env bash
# `ibsm run --once` on a fresh ibsim fabric, judged by infiniband-diags:
#   - it exits 0, and its --stats file says it ended with the subnet up;
#   - it kept the LIDs the dry run (`ibsm route`) of the same net file gives,
#     and ibnetdiscover shows every port with exactly that LID;
#   - iblinkinfo shows every cabled port Active;
#   - dump_fts reads back the dry run's opensm-lfts.dump, entry by entry, and
#     every switch forwards every LID;
#   - ibtracert walks CA->CA and CA->switch routes to their end.
# With --drop PERCENT, ibsim drops that share of the PortInfo SMPs (the
# commonest: reads in discovery, LID and link-state Sets in programming) at
# every node (console `Error "node" PERCENT 21`); ibsm must still bring the
# fabric up. ibsim's own log proves the drops: its Dump shows rate and
# attribute on every port, and at Verbose 1 it logs each request that reaches its node and
# each one it drops, so the share actually dropped is measured. The drops are
# lifted before the diags look. (Without the attribute, ibsim drops at every
# switch port a MAD passes, out and back: 10% per port loses about two thirds
# of the SMPs to the far side of a 3-level tree, more than "10% of SMPs".)
#
#   run-with-ibsim.sh NETFILE -- once-brings-up.sh path/to/ibsm [--drop PERCENT]
set -u
IBSM=${1:?usage: $0 path/to/ibsm [--drop PERCENT]}
drop=0
[[ ${2:-} == --drop ]] && drop=${3:?--drop needs a percentage}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS

route_dry_run "$net" dry

if [[ $drop -ne 0 ]]; then
  mapfile -t nodes < <(net_nodes "$net")
  console "Verbose 1"
  for node in "${nodes[@]}"; do console "Error \"$node\" $drop 21"; done
  console "Dump"
  wait_for_line ibsim.log '# +dumped [0-9]+ nodes' 20 || fail "ibsim did not answer Dump"
  marked=$(grep -cP "# err_rate $drop\t# err_attr 21\$" ibsim.log)
  [[ $marked -ge ${#nodes[@]} ]] ||
    fail "ibsim's Dump shows the error rate on $marked ports of ${#nodes[@]} nodes"
  echo "ibsim drops $drop% of the PortInfo SMPs on $marked ports"
  log_start=$(wc -l <ibsim.log)
fi

"$IBSM" run --once --state-dir state --log-file ibsm.log --stats stats.json >verdict.txt 2>stderr.txt
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm run --once exited $rc:"$'\n'"$(cat stderr.txt)"
stats_hold stats.json '.exit.reason == "up" and .up' || fail "ibsm did not end with the subnet up: $(stats stats.json .exit)"
echo "ibsm: $(stats_summary <stats.json)"

if [[ $drop -ne 0 ]]; then
  for node in "${nodes[@]}"; do console "Error \"$node\" 0"; done
  console "Verbose 0"
  wait_for_line ibsim.log 'simulator verbose level is 0' 20 || fail "ibsim did not lift the drops"
  reached=$(tail -n +"$log_start" ibsim.log | grep -c 'packet (attr 0x15 .* reached host')
  dropped=$(tail -n +"$log_start" ibsim.log | grep -c 'drop pkt due error rate')
  echo "ibsim dropped $dropped of $reached PortInfo SMPs; ibsm: $(stats stats.json ".sweeps_by_kind.heavy + .sweeps_by_kind.takeover") sweeps," \
    "$(stats stats.json .mad_timeouts) SMPs lost after all retries"
  # Binomial: 10% of a few thousand stays well inside half to one and a half times.
  [[ $((dropped * 200)) -ge $((reached * drop)) && $((dropped * 200)) -le $((reached * drop * 3)) ]] ||
    fail "ibsim dropped $dropped of $reached PortInfo SMPs, not about $drop%"
fi

cmp -s dry/guid2lid state/guid2lid ||
  fail "ibsm's guid2lid differs from the dry run's:"$'\n'"$(diff dry/guid2lid state/guid2lid | head)"
check_lids_as_planned dry/guid2lid
check_links_active "$net"
check_lfts_as_planned dry
check_every_lid_routed dry/guid2lid
check_traces

label=$(basename "$net" .net)
[[ $drop -ne 0 ]] && label+=" with $drop% SMPs dropped"
finish "$label, $((SECONDS - start)) s" ibsm.log
