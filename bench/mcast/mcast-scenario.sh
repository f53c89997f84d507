#!/usr/bin/env bash
# One SM's run for scripts/bench-mcast.sh, inside tests/sm/ibsim/run-with-ibsim.sh:
#
#   mcast-scenario.sh OUTDIR KIND IBSM SA_CLIENT WINDOW MADCOUNT_SO MFT_COUNTER CHECK_SOURCES QUIET_S
#                     [SINGLE_DIFF]
#
# KIND (ibsm or opensm) is master on the first CA of the net file with the
# partitions.conf `Default=0x7fff, ipoib : ALL=full;`, its MADs traced by
# MADCOUNT_SO (bench/bringup/MadCount.cpp: one "EPOCH_NS METHOD ATTRIBUTE"
# line per MAD it sends, the same wrapper for both SMs). Once every port has
# a LID, a probe (a Get of the broadcast group's MCMemberRecord) tells
# whether the SM answers MCMemberRecord; an SM that does not is reported as
# not answering and nothing more is sent. Then the second CA joins every CA
# port, by proxy, to the broadcast group ff12:401b:ffff::ffff:ffff, the IPv4
# all-hosts group ff12:401b:ffff::1 and the IPv6 all-nodes group
# ff12:601b:ffff::1 (the MGIDs IPoIB makes for 224.0.0.1 and ff02::1), port
# by port as hosts would, with the full component mask of a create (the IP
# groups are created by their first joiner, with the broadcast group's
# parameters as IPoIB does), WINDOW outstanding.
#
# Settled: every join answered and no MFT Set (SubnSet of attribute 0x001B)
# in the trace for QUIET_S seconds; the settle time runs from the first join
# sent to the later of the last answer and the last MFT Set. MFT SMPs are the
# MFT Sets of the trace in that time (and ibsm's own counter MFT_COUNTER, a
# jq path into `ibsm status --json`, when it has it). Then the MFTs are read
# with ibroute -M and walked by tests/sm/run/mft-check.py (from CHECK_SOURCES
# members of each group), which also counts the non-empty MFT blocks: the
# fewest MFT Sets that program these trees on empty switches. One port
# leaves the IPv4 group and joins it again: the MFT Sets each costs, counted
# the same way. With SINGLE_DIFF 1, the MFTs are read back again after the
# leave and after the join, and mft-check.py --changed-from counts the
# blocks each changed: what the single leave or join had to write at least.
# Writes OUTDIR/results as "key value" lines.
set -u
out=$1 kind=$2 IBSM=$3 client=$4 window=$5 madcount=$6 mft_counter=$7 check_sources=$8 quiet_s=$9
single_diff=${10:-0}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/sm/run/run-checks.sh"
cd "$out" || exit 2
: >results
result() { echo "$1 $2" >>results; echo "  $1 $2" >&2; }
value() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
node_sm=${cas[0]} asker=${cas[1]}
sm_guid=$(node_port_guid "$node_sm")
dir=$out/$kind
mkdir -p "$dir"
echo 'Default=0x7fff, ipoib : ALL=full;' >"$dir/partitions.conf"
trace=$dir/trace
: >"$trace"
started=$SECONDS
case $kind in
  opensm)
    printf '%s\n' 'force_log_flush TRUE' 'max_wire_smps 64' 'max_wire_smps2 64' \
      "partition_config_file $dir/partitions.conf" >"$dir/opensm.conf"
    SIM_HOST=$node_sm OSM_TMP_DIR=$dir OSM_CACHE_DIR=$dir MADCOUNT_TRACE=$trace \
      LD_PRELOAD="$madcount:$LD_PRELOAD" opensm -F "$dir/opensm.conf" -f "$dir/log" \
      >"$dir/stdout" 2>&1 &
    pid=$!
    ;;
  ibsm)
    printf '%s\n' '[sm]' "control_socket = \"$dir/control.sock\"" \
      "partitions_file = \"$dir/partitions.conf\"" >"$dir/ibsm.toml"
    SIM_HOST=$node_sm MADCOUNT_TRACE=$trace LD_PRELOAD="$madcount:$LD_PRELOAD" "$IBSM" run \
      -F "$dir/ibsm.toml" --state-dir "$dir/state" --log-file "$dir/ibsm.log" \
      --stats "$dir/stats.json" >"$dir/stdout" 2>"$dir/stderr" &
    pid=$!
    ;;
esac
lids_ready() {
  quiet ibnetdiscover | ibnetdiscover_lids >ibnetdiscover.lids &&
    [[ -s ibnetdiscover.lids ]] && ! grep -qE ' (none|0x0000) ' ibnetdiscover.lids
}
if ! wait_sminfo_master "$asker" "$sm_guid" 900 || ! wait_until 900 lids_ready; then
  result up no
  stop_pid "$pid" TERM 10
  exit 1
fi
result up_s $((SECONDS - started))
bcast=ff12:401b:ffff::ffff:ffff ipv4=ff12:401b:ffff::1 ipv6=ff12:601b:ffff::1
SIM_HOST=$asker "$client" mcast get --mgid "$bcast" --timeout-ms 5000 >probe 2>probe.err
if [[ $(value probe status) != 0x0000 ]]; then
  result answers none
  result probe_status "$(awk '$1 == "status" { print $2 "_" $3; exit }' probe)"
  stop_pid "$pid" TERM 10
  exit 0
fi
awk '$3 == "ca" { print $1 }' ibnetdiscover.lids | sort -u >targets
result targets "$(wc -l <targets)"

mft_sets_since() { # NS: MFT Sets in the trace from epoch ns NS on -> "count last_ns"
  awk -v t="$1" '$1 >= t && $2 == "0x02" && $3 == "0x001b" { n++; last = $1 }
                 END { printf "%d %.0f\n", n, last }' "$trace"
}
now_ns() { date +%s%N; }
# Waits until no MFT Set came for QUIET_S s after the later of FROM_NS and
# the last answer END_NS; prints "count last_ns" of the MFT Sets since FROM_NS.
settle() {
  local from=$1 end=$2 count last
  for ((i = 0; i < 1800; i++)); do
    read -r count last < <(mft_sets_since "$from")
    ((last > end)) || last=$end
    (($(now_ns) - last > quiet_s * 1000000000)) && break
    sleep 0.5
  done
  echo "$count $last"
}
counter() { [[ $kind == ibsm ]] && ibsm_status "$dir/control.sock" "$mft_counter // empty" 2>/dev/null; }

# Every CA port joins the three groups.
counter_before=$(counter)
SIM_HOST=$asker "$client" mcast join --mgid "$bcast,$ipv4,$ipv6" --create --ports targets \
  --window "$window" --retries 3 --timeout-ms 5000 --record members.rec >join.out 2>join.err
for k in requests answers errors timeouts retried answers_per_s p50_us p99_us; do
  result "$k" "$(value join.out "$k")"
done
result join_s "$(value join.out seconds)"
t0=$(value join.out start_unix_ns) t1=$(value join.out end_unix_ns)
read -r mft_smps last < <(settle "$t0" "$t1")
result settle_s "$(awk -v a="$t0" -v b="$last" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
result mft_smps "$mft_smps"
counter_after=$(counter)
[[ -n $counter_before && -n $counter_after ]] && result mft_smps_counter $((counter_after - counter_before))
result sm_alive "$(kill -0 "$pid" 2>/dev/null && echo yes || echo no)"

# The trees, judged from outside.
quiet ibnetdiscover >fabric.txt
dump_mfts() { # FILE: every switch's MFT, ibroute -M
  rm -rf mft.d && mkdir mft.d
  awk '$3 == "sw" { print $2 }' ibnetdiscover.lids |
    SIM_HOST=$asker xargs -P 4 -I{} sh -c 'ibroute -M $(($1)) >"mft.d/$1" 2>/dev/null' _ {}
  cat mft.d/* >"$1"
}
dump_mfts mfts.txt
python3 "$root/tests/sm/run/mft-check.py" --fabric fabric.txt --mfts mfts.txt --members members.rec \
  --max-sources "$check_sources" --count-blocks >check.out 2>&1
result mft_check "$(tail -n 1 check.out | sed 's/.*: //; s/ /_/g')"
result mft_blocks_floor "$(awk '$1 == "nonempty_blocks" { print $2 }' check.out)"

# One port leaves the IPv4 group, then joins it again.
one=$(sed -n "$(($(wc -l <targets) / 2))p" targets)
single() { # VERB KEY
  SIM_HOST=$asker "$client" mcast "$1" --mgid "$ipv4" --port-guid "$one" --create \
    --retries 3 --timeout-ms 5000 --record members.rec >"single.$1" 2>&1
  local a b n last
  a=$(value "single.$1" start_unix_ns) b=$(value "single.$1" end_unix_ns)
  read -r n last < <(settle "$a" "$b")
  result "single_${1}_mft_smps" "$n"
  result "single_${1}_status" "$( (($(value "single.$1" answers) == 1)) && echo ok || echo failed)"
  [[ $single_diff == 1 ]] || return 0
  dump_mfts "mfts.$1.txt"
  python3 "$root/tests/sm/run/mft-check.py" --fabric fabric.txt --mfts "mfts.$1.txt" \
    --members members.rec --max-sources 1 --changed-from "$2" >"check.$1.out" 2>&1
  result "single_${1}_changed_blocks" "$(awk '$1 == "changed_blocks" { print $2 }' "check.$1.out")"
}
single leave mfts.txt
single join mfts.leave.txt
stop_pid "$pid" TERM 10
