#!/usr/bin/env bash
# Fabric health on a running master (issue 16), on a fabric this script
# writes itself (`health-links.sh --write-net FILE`, a ctest fixture): two
# switches joined by two cables (s1[5]-s2[5], s1[6]-s2[6]), two hosts on
# each; the cable s1[1]-h1[1] has w=3 (1x|4x enabled) at the switch and w=1
# (1x) at the host, so it trains at 1x.
#
# (a) Downgraded: `ibsm status --json` lists the h1 cable downgraded with both
#     ends, "4x SDR expected, 1x SDR active" at s1[1] and "1x SDR expected, 1x
#     SDR active" at h1[1], and no other link; iblinkinfo agrees on what is
#     active (1X at both ends of that cable, 4X everywhere else). iblinkinfo
#     prints "Could be 12X" on every link (ibsim's LinkWidthSupported is 1x-12x
#     whatever is enabled): the test counts that too, so a change of either
#     rule shows. downgraded = "isolate": refused, the only way to reach h1.
# (b) Flapping: with flapping = "report" (SIGHUP), Unlink/ReLink "$node"[$port] three
#     times, each waited for (flap_count 2, flap_window 40 s): listed
#     flapping, not isolated, the tables untouched.
# (c) flapping = "isolate" (SIGHUP): the live link is isolated at the next
#     sweep; the tables are exactly the dry run's with that link isolated
#     (`ibsm route --isolate`), routed under change from the original tables
#     (`--previous`): the LFT blocks written are the blocks that changed, at
#     most those that held an entry through the cable, routed "kept"; nothing
#     forwards into s1[5] or s2[5], every switch reaches every LID. 40 s after
#     the first down the flaps leave the window and clean_period (8 s) later
#     the link is re-admitted: the original tables. Three more flaps isolate
#     it again (while down); `ibsm sweep --readmit "\"$node\"[$port]"` puts it back at
#     once (the original tables) and a second --readmit is refused.
# A threshold file with a bad line is refused on SIGHUP, naming file:line.
#
# On another fabric (SWITCH PORT: the cable to flap), (b) and (c) only, when
# the net file has no w=3 end.
#
#   health-links.sh --write-net FILE
#   run-with-ibsim.sh FILE -- health-links.sh path/to/ibsm [SWITCH PORT]
set -u
if [[ ${1:-} == --write-net ]]; then
  cat >"${2:?FILE}" <<'NET'
# Written by tests/sm/run/health-links.sh: one downgraded cable (s1[1]-h1[1]).
Switch	8 "s1"
[1]	"h1"[1]	w=3
[2]	"h2"[1]
[5]	"s2"[5]
[6]	"s2"[6]

Switch	8 "s2"
[1]	"h3"[1]
[2]	"h4"[1]
[5]	"s1"[5]
[6]	"s1"[6]

Hca	1 "h1"
[1]	"s1"[1]	w=1

Hca	1 "h2"
[1]	"s1"[2]

Hca	1 "h3"
[1]	"s2"[1]

Hca	1 "h4"
[1]	"s2"[2]
NET
  exit
fi
IBSM=${1:?usage: $0 path/to/ibsm [SWITCH PORT]}
node=${2:-s1}
port=${3:-5}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
read -r far_node far_port < <(net_far_end "$net" "$node" "$port")
start=$SECONDS
interval=2
swept='.sweeps_by_kind | .reroute + .heavy + .takeover'
flap_window=40
clean=8

mkdir -p sm
ibsm_conf sm/ibsm.toml "$PWD/sm" 1000 2 "$interval"
printf '%s\n' '[health]' 'downgraded = "isolate"' 'flapping = "isolate"' \
  "clean_period = $clean" 'flap_count = 2' "flap_window = $flap_window" >>sm/ibsm.toml
start_ibsm sm "$(net_cas "$net" | sed -n 2p)" 10
sock=sm/control.sock
wait_for_status $sock .up 60 || fail "the subnet is not up within 60 s"
route_dry_run "$net" dry --guid2lid sm/state/guid2lid
check_lfts_as_planned dry
entries() { ibsm_status $sock "[.health.unhealthy[] | select(.condition == \"$1\")]"; }

# (a) The downgraded cable, both ends, and iblinkinfo beside it.
check_downgraded() {
  wait_for_status $sock '[.health.unhealthy[] | select(.condition == "downgraded")] | length == 1' 10 ||
    fail "no downgraded link listed: $(ibsm_status $sock -c .health)"
  down=$(entries downgraded)
  echo "downgraded: $(jq -r '.[0].detail' <<<"$down")"
  jq -e '.[0].ports | map(test("\"s1\"\\[1\\]|\"h1\"\\[1\\]")) | all and length == 2' <<<"$down" >/dev/null ||
    fail "the downgraded entry does not name s1[1] and h1[1]: $down"
  detail=$(jq -r '.[0].detail' <<<"$down")
  grep -qE '"s1"\[1\] \([^)]*\) 4x SDR expected, 1x SDR active' <<<"$detail" ||
    fail "s1[1] is not 4x expected, 1x active: $detail"
  grep -qE '"h1"\[1\] \([^)]*\) 1x SDR expected, 1x SDR active' <<<"$detail" ||
    fail "h1[1] is not 1x expected, 1x active: $detail"
  jq -e '.[0].isolated == false and (.[0].not_isolated_why | test("only way to reach \"h1\""))' \
    <<<"$down" >/dev/null || fail "the host cable was isolated, or not said why: $down"
  quiet iblinkinfo >iblinkinfo.txt
  links=$(grep -c 'Active/ *LinkUp' iblinkinfo.txt)
  narrow=$(grep -E '==\( *1X ' iblinkinfo.txt)
  could=$(grep -c 'Could be 12X' iblinkinfo.txt)
  echo "iblinkinfo: $links active link ends, $(wc -l <<<"$narrow") at 1X, $could say \"Could be 12X\""
  grep -qE '^ +[0-9]+ +1\[ *\] ==\( *1X .*"h1"' iblinkinfo.txt ||
    fail "iblinkinfo does not show s1 port 1 at 1X to h1:"$'\n'"$(grep -F '"h1"' iblinkinfo.txt)"
  [[ $(wc -l <<<"$narrow") -eq 2 ]] ||
    fail "iblinkinfo shows other than the two ends of one cable at 1X:"$'\n'"$narrow"
  [[ $(grep -cE '==\( *4X .*Active/ *LinkUp' iblinkinfo.txt) -eq $((links - 2)) ]] ||
    fail "iblinkinfo shows links other than h1's below 4X:"$'\n'"$(grep 'Active/' iblinkinfo.txt)"
  # ibsim's LinkWidthSupported is 1x-12x on every port: iblinkinfo's rule
  # (Supported only) flags every link, ours only h1's.
  [[ $could -eq $links ]] ||
    fail "iblinkinfo says \"Could be 12X\" on $could of $links active link ends; ibsim changed?"
}
if grep -q 'w=3' "$net"; then
  check_downgraded
else
  # No enable mask narrowed: nothing downgraded, though iblinkinfo says
  # "Could be 12X" on every link.
  sleep "$interval"
  [[ $(entries downgraded | jq length) -eq 0 ]] ||
    fail "downgraded links listed on a fabric of 4x links: $(entries downgraded)"
fi

# (b) Flapping: three downs within the window, each waited for.
flap() {
  local cmd t0 sweeps0
  for cmd in Unlink ReLink; do
    sweeps0=$(ibsm_status $sock "$swept")
    console "$cmd \"$node\"[$port]"
    wait_for_status $sock "($swept) > $sweeps0 and .up" $((interval + 10)) ||
      fail "$cmd \"$node\"[$port]: not up again after a sweep"
  done
}
# The dry run isolates the link through the same filter as the live SM.
route_dry_run "$net" dry-cut --isolate "\"$node\"[$port]" \
  --guid2lid sm/state/guid2lid --previous dry/opensm-lfts.dump --previous-topology "$net"
crossing=$(jq .previous.blocksRerouted dry-cut/report.json)
[[ $crossing -gt 0 ]] || fail "no LFT block held an entry through \"$node\"[$port]: the test proves nothing"
isolated='[.health.unhealthy[] | select(.condition == "flapping" and .isolated)] | length == 1'
# First with flapping = "report": listed, not isolated, the tables as they were.
sed -i 's/^flapping = "isolate"$/flapping = "report"/' sm/ibsm.toml
kill -HUP "$ibsm_pid"
wait_for_status $sock '.reloads >= 1' 10 || fail "SIGHUP not taken"
t_first=$SECONDS
for _ in 1 2 3; do flap; done
wait_for_status $sock '[.health.unhealthy[] | select(.condition == "flapping" and .action == "report" and (.isolated | not))] | length == 1' 10 ||
  fail "\"$node\"[$port] not listed flapping (report): $(ibsm_status $sock -c .health)"
echo "flapping: $(entries flapping | jq -r '.[0] | "\(.ports | join(" - ")): \(.detail)"')"
check_lfts_as_planned dry

# (c) flapping = "isolate" on SIGHUP: the live link is isolated at the next
# sweep, writing only blocks that crossed it; the dry run's tables of the
# fabric without the cable.
quiet dump_fts | lft_blocks >before.blocks
written0=$(lft_blocks_written $sock)
sed -i 's/^flapping = "report"$/flapping = "isolate"/' sm/ibsm.toml
kill -HUP "$ibsm_pid"
wait_for_status $sock "$isolated" $((2 * interval + 10)) ||
  fail "\"$node\"[$port] not isolated after flapping = \"isolate\": $(ibsm_status $sock -c .health)"
# Issue 27: the entry says what was done, "action":"isolate" (it said
# "report", the policy its detector last saw, with "isolated":true).
status_holds $sock '[.health.unhealthy[] | select(.condition == "flapping" and .isolated and .action == "isolate")] | length == 1' ||
  fail "the isolated link's entry does not say action isolate: $(ibsm_status $sock -c .health.unhealthy)"
check_isolated() {
  check_lfts_as_planned dry-cut
  check_nothing_forwards_into "$node" "$port"
  check_nothing_forwards_into "$far_node" "$far_port"
  check_all_pairs_walk
  check_links_active "$net" 0
}
check_isolated
quiet dump_fts | lft_blocks >after.blocks
written=$(($(lft_blocks_written $sock) - written0))
changed=$(changed_blocks before.blocks after.blocks)
echo "  isolating: $written LFT blocks written, $changed changed; $crossing held an entry whose path crossed the cable"
[[ $written -eq $changed && $written -le $crossing ]] ||
  fail "isolating wrote $written blocks, $changed changed, $crossing crossed the cable"
[[ $(ibsm_status $sock .last_replan.counters.routes.how) == kept ]] ||
  fail "the isolation was not routed under change: $(ibsm_status $sock -c .last_replan)"

# Re-admitted clean_period after the flaps left the window.
left=$((t_first + flap_window + clean + 2 * interval + 10 - SECONDS))
wait_for_status $sock '[.health.unhealthy[] | select(.condition == "flapping")] | length == 0' "$left" ||
  fail "not re-admitted within $((flap_window + clean)) s of the first flap: $(ibsm_status $sock -c .health)"
echo "re-admitted $((SECONDS - t_first)) s after the first flap (window $flap_window s, clean $clean s)"
sleep 1
check_lfts_as_planned dry
check_all_pairs_walk

# Three more flaps: isolated again (while the cable is down, so the ReLink
# that follows leaves the cut tables); then re-admitted by hand.
for _ in 1 2 3; do flap; done
wait_for_status $sock "$isolated" 10 || fail "not isolated again after three more flaps"
check_isolated
heavy0=$(ibsm_status $sock .sweeps_by_kind.heavy)
answer=$(env -u LD_PRELOAD "$IBSM" sweep --readmit "\"$node\"[$port]" --socket $sock) ||
  fail "ibsm sweep --readmit was refused: $answer"
echo "ibsm sweep --readmit: $answer"
wait_for_status $sock ".sweeps_by_kind.heavy > $heavy0 and .up" 20 || fail "no heavy sweep after --readmit"
ibsm_status $sock '.health.unhealthy[] | select(.condition == "flapping")' | jq -e \
  '.isolated == false and .not_isolated_why == "re-admitted by the operator"' >/dev/null ||
  fail "after --readmit: $(ibsm_status $sock -c .health)"
check_lfts_as_planned dry
if env -u LD_PRELOAD "$IBSM" sweep --readmit "\"$node\"[$port]" --socket $sock >/dev/null 2>&1; then
  fail "a second --readmit of a link no longer isolated was accepted"
fi

# A threshold file that does not parse is refused on SIGHUP with its file
# and line; the configuration in force stays.
printf '%s\n' 'SymbolErrorCounter=10' 'LinkDowned=3' >bad-thresholds
refused0=$(ibsm_status $sock .reloads_refused)
printf '%s\n' "threshold_file = \"$PWD/bad-thresholds\"" >>sm/ibsm.toml
kill -HUP "$ibsm_pid"
wait_for_status $sock ".reloads_refused > $refused0" 10 || fail "a bad threshold file was not refused"
ibsm_status $sock .reload_error | grep -qF "$PWD/bad-thresholds:2: unknown counter 'LinkDowned'" ||
  fail "the refusal does not name the file and line: $(ibsm_status $sock .reload_error)"

stop_pid "$ibsm_pid" TERM 5
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm exited $rc after SIGTERM"
finish "health: downgraded, flapping, isolated and re-admitted, $((SECONDS - start)) s" sm/ibsm.log
