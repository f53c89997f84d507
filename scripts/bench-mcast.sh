#!/usr/bin/env bash
# The multicast benchmark (issue 13): OpenSM, then ibsm, as master on a
# freshly started ibsim 3-level fat tree (radix 24 by default: 720 switches,
# 3456 CAs) with the partitions.conf `Default=0x7fff, ipoib : ALL=full;`.
# From one client (tests/tools/sa-client, by proxy), every CA port joins its
# partition's IPoIB broadcast group and the IPv4 all-hosts and IPv6
# all-nodes groups as IPoIB names them, port by port, with a window of
# outstanding joins (bench/mcast/mcast-scenario.sh). Printed per SM:
#   - time to settle: from the first join sent until every join is answered
#     and no MFT Set has been sent for --quiet seconds (the later of the last
#     answer and the last MFT Set);
#   - MFT SMPs written in that time: MFT Sets (SubnSet MulticastForwarding-
#     Table) counted for both SMs the same way, by the umad_send() wrapper
#     bench/bringup/MadCount.cpp in the SM's process (no log text is read);
#     for ibsm also its own counter, --mft-counter (a jq path into `ibsm
#     status --json`), when its status has it;
#   - MCMemberRecord answers per second (and p50/p99 latency) at the client;
#   - the ratios ibsm / OpenSM and the issue's targets (MFT SMPs <= OpenSM's,
#     answers/s >= 2x);
#   - after settling, one port leaves the IPv4 group and joins it again: the
#     MFT Sets each costs (a leave or join of one port changes one entry of
#     one switch: 1 block is the floor); with --single-diff, the blocks each
#     changed, from the MFTs read back before and after (ibroute -M of every
#     switch, about a minute each on radix 24), and the verdict: the SM wrote
#     only the blocks that changed;
#   - the verdict of tests/sm/run/mft-check.py on the MFTs read back with
#     ibroute -M (from --check-sources members of each group), and the MFT
#     blocks those tables hold: the fewest MFT Sets that could program them.
# An SM that does not answer MCMemberRecord (ibsm before issue 13) is shown
# as not answering: no figure is made up for it.
#
#   scripts/bench-mcast.sh [--radix N] [--window W] [--quiet S] [--check-sources N]
#                          [--mft-counter JQPATH] [--single-diff] [--only ibsm|opensm]
#                          [--ibsm BINARY] [--client BINARY] [--keep DIR]
#
# For example (Release build in build/, both SMs, about 3 minutes each):
#   BUILD_DIR=build scripts/build.sh -DCMAKE_BUILD_TYPE=Release
#   BUILD_DIR=build scripts/bench-mcast.sh --single-diff --keep /tmp/bench-mcast
# On a shared machine run it several times (--only alternately) and take
# medians: the rates move with the load (printed with the results).
#
#   --radix N          fat-tree radix (default 24: 720 switches, 3456 CAs)
#   --window W         joins outstanding (default 16)
#   --quiet S          seconds without an MFT Set that mean settled (default 5)
#   --check-sources N  members of each group the judge walks from (default 50)
#   --mft-counter P    ibsm's MFT blocks written, as a jq path
#                      (default .tables_total.mft.written)
#   --single-diff      read the MFTs back after the single leave and join too,
#                      and count the blocks each changed
#   --only SM          run one side only
#   --ibsm BINARY      measure this ibsm instead of building one
#   --client BINARY    use this sa-client instead of building one
#   --keep DIR         keep logs, traces and results in DIR
#
# Builds ibsm and sa-client (Release) in BUILD_DIR (default build-bench/) unless given.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"
scenario=$root/bench/mcast/mcast-scenario.sh

radix=24 window=16 quiet=5 check_sources=50 mft_counter=.tables_total.mft.written
only="" ibsm="" client="" keep="" single_diff=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --single-diff) single_diff=1; shift ;;
    --window) window=$2; shift 2 ;;
    --quiet) quiet=$2; shift 2 ;;
    --check-sources) check_sources=$2; shift 2 ;;
    --mft-counter) mft_counter=$2; shift 2 ;;
    --client) client=$(realpath "$2"); shift 2 ;;
    *) bench_option "$@"; shift "$bench_shift" ;;
  esac
done
bench_check ibsm opensm
bench_positive "$window" "$quiet" "$check_sources"
if [[ -z $ibsm || -z $client ]]; then
  bench_build ibsm sa-client
  ibsm=${ibsm:-$build/sm/cli/ibsm} client=${client:-$build/tests/tools/sa-client}
fi
[[ -x $ibsm && -x $client ]] || { echo "$0: $ibsm or $client is not an executable" >&2; exit 2; }
madcount=$build/bench-mcast/madcount.so
mkdir -p "$(dirname "$madcount")"
if [[ ! $madcount -nt $root/bench/bringup/MadCount.cpp ]]; then
  g++ -std=c++20 -O2 -fPIC -shared -Wall -Wextra -Werror \
    "$root/bench/bringup/MadCount.cpp" -o "$madcount" -ldl -libumad
fi
bench_workdir bench-mcast
bench_net

sms=(opensm ibsm)
[[ -z $only ]] || sms=("$only")
for sm in "${sms[@]}"; do
  d=$work/$sm
  rm -rf "$d" && mkdir -p "$d"
  echo "== $sm on radix $radix (results as they come):" >&2
  "$harness" "${limits[@]}" "$net" -- "$scenario" "$d" "$sm" "$ibsm" "$client" "$window" \
    "$madcount" "$mft_counter" "$check_sources" "$quiet" "$single_diff" 2>"$d/scenario.err" ||
    { echo "$0: the $sm scenario failed; see $d (use --keep)" >&2; tail -5 "$d/scenario.err" >&2; }
  grep -E '^  [a-z_0-9]+ ' "$d/scenario.err" >&2 || true
done

get() { bench_get "$work/$1/results" "$2"; }
shown() { # SM KEY: the value, "no answer" when the SM answered no MCMemberRecord, "-" when not run
  if [[ $(get "$1" answers) == none && $2 != up_s ]]; then echo "no answer"; else
    local v
    v=$(get "$1" "$2")
    echo "${v:--}"
  fi
}
row() { # label key [higher|lower|ratio]: ibsm, OpenSM, the ratio ibsm/OpenSM and the issue's target
  local a b verdict=""
  a=$(shown ibsm "$2") b=$(shown opensm "$2")
  if [[ -n ${3:-} && $a =~ ^[0-9.]+$ && $b =~ ^[0-9.]+$ ]] && awk -v b="$b" 'BEGIN { exit !(b > 0) }'; then
    verdict=$(awk -v a="$a" -v b="$b" -v w="$3" 'BEGIN { r = a / b; printf "%7.2f %-7s", r,
      w == "ratio" ? "" : (w == "higher" ? r >= 2 : r <= 1) ? "met" : "NOT met" }')
  fi
  printf '  %-46s %14s %14s %-15s\n' "$1" "$a" "$b" "$verdict"
}
echo
echo "Multicast, 3-level fat tree radix $radix ($switches switches, $cas CAs), a fresh ibsim per SM;"
echo "every CA port joins 3 groups (IPoIB broadcast, IPv4 all-hosts, IPv6 all-nodes) by proxy"
echo "from one client, window $window; settled = all answered and no MFT Set for $quiet s"
echo "(load average now $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs)"
printf '  %-46s %14s %14s %-15s\n' "" ibsm OpenSM "ratio target"
row "subnet up after, s" up_s
row "joins sent (ports x 3)" requests
row "  answered OK" answers
row "  errors (SA status not OK)" errors
row "  timeouts" timeouts
row "MCMemberRecord answers/s (target ratio >= 2)" answers_per_s higher
row "  latency p50, us" p50_us ratio
row "  latency p99, us" p99_us ratio
row "time to settle, s" settle_s ratio
row "MFT SMPs written (target ratio <= 1)" mft_smps lower
row "  ibsm's own counter ($mft_counter)" mft_smps_counter
row "  the floor: non-empty MFT blocks at the end" mft_blocks_floor ratio
row "single leave after settling: MFT SMPs" single_leave_mft_smps ratio
row "  MFT blocks it changed (ibroute -M before/after)" single_leave_changed_blocks
row "single join after settling: MFT SMPs" single_join_mft_smps ratio
row "  MFT blocks it changed (ibroute -M before/after)" single_join_changed_blocks
row "MFTs judged by mft-check.py" mft_check
row "SM alive after the joins" sm_alive
# The issue's targets, one verdict line each.
verdict() { # LABEL MET(0/1/"") DETAIL
  local v="not measured"
  [[ -z $2 ]] || v=$([[ $2 == 1 ]] && echo met || echo "NOT met")
  printf 'verdict: %-48s %-8s (%s)\n' "$1" "$v" "$3"
}
ratio_met() { # KEY higher|lower -> 1/0, "" when either side is missing
  local a b
  a=$(get ibsm "$1") b=$(get opensm "$1")
  [[ $a =~ ^[0-9.]+$ && $b =~ ^[0-9.]+$ ]] || return 0
  awk -v a="$a" -v b="$b" -v w="$2" 'BEGIN { if (b <= 0) exit; r = a / b
    print (w == "higher" ? r >= 2 : r <= 1) ? 1 : 0 }'
}
echo
verdict "MFT SMPs at most OpenSM's" "$(ratio_met mft_smps lower)" \
  "ibsm $(shown ibsm mft_smps), OpenSM $(shown opensm mft_smps)"
verdict "join throughput at least 2x OpenSM's" "$(ratio_met answers_per_s higher)" \
  "ibsm $(shown ibsm answers_per_s)/s, OpenSM $(shown opensm answers_per_s)/s"
for op in leave join; do
  n=$(get ibsm "single_${op}_mft_smps") c=$(get ibsm "single_${op}_changed_blocks")
  met=""
  [[ $n =~ ^[0-9]+$ && $c =~ ^[0-9]+$ ]] && met=$((n == c ? 1 : 0))
  verdict "a single $op writes only the blocks it changes" "$met" \
    "ibsm ${n:--} MFT SMPs, ${c:-not counted (--single-diff)} blocks changed"
done
if [[ $(get ibsm answers) == none ]]; then
  echo "ibsm does not answer MCMemberRecord (the probe's status: $(get ibsm probe_status))."
fi
[[ -z $keep ]] || echo "logs, traces and results kept in $work"
