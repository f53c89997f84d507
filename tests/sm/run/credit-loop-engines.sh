#!/usr/bin/env bash
# Tables with a credit loop on the live SM (issue 27), on the radix-8
# three-level fat tree, where minhop's tables have one and updn's do not:
#   - `ibsm run --once -R minhop`: minhop is the last engine named, so its
#     tables are programmed as they are and the subnet is up: exit 0, the
#     --stats file says up with routes_credit_loop true, iblinkinfo shows
#     every cabled port Active, and dump_fts reads back the dry run's
#     `-R minhop` tables (whose report finds the cycle);
#   - then `-R minhop,updn` on the same fabric: minhop's looped tables count
#     as its refusal, updn's are programmed (dump_fts equals the dry run of
#     the same list, which picks updn too), routes_credit_loop false, and
#     the status names minhop among the engines passed over.
#
#   run-with-ibsim.sh fat-tree-3level-k8.net -- credit-loop-engines.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS

# The dry run of an engine list, without --check (a credit loop fails it).
dry_run() {
  local dir=$1 engines=$2
  mkdir -p "$dir"
  "$IBSM" route --topology "$net" --engine "$engines" --out "$dir" --json >"$dir/report.out" 2>&1 ||
    fail "dry run -R $engines failed:"$'\n'"$(cat "$dir/report.out")"
}

run_once() {
  local engines=$1 stats=$2
  "$IBSM" run --once --engine "$engines" --state-dir state --log-file ibsm.log --stats "$stats" \
    >"$stats.verdict" 2>"$stats.stderr"
  local rc=$?
  [[ $rc -eq 0 ]] || fail "ibsm run --once -R $engines exited $rc:"$'\n'"$(cat "$stats.stderr")"
  echo "ibsm -R $engines: $(stats_summary <"$stats")"
}

dry_run dry-minhop minhop
stats_hold dry-minhop/report.json '.engine == "minhop" and (.creditLoops.acyclic | not)' ||
  fail "the premise: minhop's dry-run tables on this tree have a credit loop"

run_once minhop minhop.json
stats_hold minhop.json '.exit.reason == "up" and .up' ||
  fail "-R minhop did not end up: $(stats minhop.json .exit)"
stats_hold minhop.json '.engine == "minhop" and .routes_credit_loop == true' ||
  fail "-R minhop: status says engine $(stats minhop.json .engine), routes_credit_loop $(stats minhop.json .routes_credit_loop)"
cmp -s dry-minhop/guid2lid state/guid2lid || fail "LIDs differ from the dry run's"
check_links_active "$net"
check_lfts_as_planned dry-minhop

dry_run dry-fallback minhop,updn
stats_hold dry-fallback/report.json \
  '.engine == "updn" and .creditLoops.acyclic and (.fallbacks[0] | startswith("minhop: its tables have a credit loop"))' ||
  fail "the dry run of minhop,updn: engine $(stats dry-fallback/report.json .engine), fallbacks $(stats dry-fallback/report.json .fallbacks)"

run_once minhop,updn fallback.json
stats_hold fallback.json '.exit.reason == "up" and .up' ||
  fail "-R minhop,updn did not end up: $(stats fallback.json .exit)"
stats_hold fallback.json \
  '.engine == "updn" and .routes_credit_loop == false and (.engine_fallbacks[0] | startswith("minhop: its tables have a credit loop"))' ||
  fail "-R minhop,updn: engine $(stats fallback.json .engine), routes_credit_loop $(stats fallback.json .routes_credit_loop), passed over $(stats fallback.json .engine_fallbacks)"
check_links_active "$net"
check_lfts_as_planned dry-fallback

finish "$(basename "$net" .net): credit loops and the engine list, $((SECONDS - start)) s" ibsm.log
