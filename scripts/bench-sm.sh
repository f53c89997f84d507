#!/usr/bin/env bash
# The running SM benchmark: ibsm and OpenSM side by side, each as a master
# with a standby of its own kind on a freshly started ibsim 3-level fat tree,
# through the same scenario (bench/bringup/sm-scenario.sh):
#   (a) light sweeps with nothing changed: the master's MADs per interval
#   bring-up: the master's start to its first "up", time and SMPs
#   (b) one spine cable pulled (Unlink): time from the Unlink to the master's
#       "up" (ibsm: its status's last_up_unix_ms; OpenSM: its SUBNET UP log
#       line) and the SMPs sent in between (LFT Sets apart), then the tables
#       checked (every switch reaches every LID, no entry into the dead
#       ports) and the busiest link under them (`ibsm route --previous`)
#   (c) the master killed (SIGKILL): time from the kill to the standby's
#       detection (its leaving STANDBY: ibsm's status recent_states, OpenSM's
#       log), each SM at its own default polling unless --poll-ms/--retries
#       (issue 32: ibsm's <= 5 s, OpenSM's 4 polls 10 s apart); from the
#       detection to its "up" and to sminfo naming it, then links Active and
#       every route checked
# MADs are counted for both SMs by one umad_send() wrapper (MadCount.cpp,
# with its per-MAD time-stamped trace). OpenSM gets max_wire_smps 64.
# Each figure with a target (issue 15) prints the ratio ibsm/OpenSM and
# whether it is met.
#
#   scripts/bench-sm.sh [--radix N] [--interval S] [--poll-ms MS] [--retries R]
#                       [--only ibsm|opensm] [--bringup-only] [--reroute-only]
#                       [--ibsm BINARY] [--keep DIR]
#
#   --radix N      fat-tree radix (default 24: 720 switches, 3456 CAs)
#   --interval S   light-sweep interval of both SMs, seconds (default 10)
#   --poll-ms MS   SM-to-SM polling timeout of both (default: each SM's own)
#   --retries R    polls missed before the standby acts (default: each SM's own)
#   --only SM      run one side only (the other column shows "-")
#   --bringup-only the bring-up alone (no standby, (a), (b) or (c)): a
#                  minute instead of several, for work on the bring-up
#   --reroute-only the bring-up, (a) and (b), without the standby and the
#                  failover (c): for work on the reroute; (c)'s rows show "-"
#   --ibsm BINARY  measure this ibsm instead of building one
#   --keep DIR     keep logs, traces and results in DIR
#
# Builds ibsm (Release) in BUILD_DIR (default build-bench/) unless --ibsm.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"
scenario=$root/bench/bringup/sm-scenario.sh

radix=24 interval=10 poll_ms=default retries=default only="" ibsm="" keep="" bringup_only=0 reroute_only=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --interval) interval=$2; shift 2 ;;
    --poll-ms) poll_ms=$2; shift 2 ;;
    --retries) retries=$2; shift 2 ;;
    --bringup-only) bringup_only=1; shift ;;
    --reroute-only) reroute_only=1; shift ;;
    *) bench_option "$@"; shift "$bench_shift" ;;
  esac
done
bench_check ibsm opensm
bench_positive "$interval"
[[ $poll_ms == default ]] || bench_positive "$poll_ms"
[[ $retries == default ]] || bench_positive "$retries"
if [[ -z $ibsm ]]; then
  bench_build ibsm
  ibsm=$build/sm/cli/ibsm
fi
[[ -x $ibsm ]] || { echo "$0: $ibsm is not an executable" >&2; exit 2; }
madcount=$build/bench-sm/madcount.so
mkdir -p "$(dirname "$madcount")"
if [[ ! $madcount -nt $root/bench/bringup/MadCount.cpp ]]; then
  g++ -std=c++20 -O2 -fPIC -shared -Wall -Wextra -Werror \
    "$root/bench/bringup/MadCount.cpp" -o "$madcount" -ldl -libumad
fi
bench_workdir bench-sm
bench_net
spine=core0 port=1 # a core-to-aggregation cable

sms=(ibsm opensm)
[[ -z $only ]] || sms=("$only")
for sm in "${sms[@]}"; do
  echo "== $sm on radix $radix (results as they come):" >&2
  rm -rf "${work:?}/$sm" && mkdir -p "$work/$sm" # OpenSM appends to an old log
  SCENARIO_BRINGUP_ONLY=$bringup_only SCENARIO_REROUTE_ONLY=$reroute_only "$harness" "${limits[@]}" "$net" -- "$scenario" "$work/$sm" "$sm" "$madcount" "$ibsm" \
    "$interval" "$poll_ms" "$retries" "$spine" "$port" 2>"$work/$sm/scenario.err" ||
    { echo "$0: the $sm scenario failed; see $work/$sm (use --keep)" >&2; tail -20 "$work/$sm/scenario.err" >&2; }
  grep -E '^  [a-z_]+ ' "$work/$sm/scenario.err" >&2 || true
done

get() { bench_get "$work/$1/results" "$2"; } # SM key -> value ("" when that SM did not run)
# SM DETAIL_KEY METHOD:ATTR... -> the sum of those kinds' SMPs in its detail
# ("Get:0x0011=10431,..."); "" when that SM did not run.
kind_count() {
  local d
  d=$(get "$1" "$2")
  [[ -n $d ]] || return 0
  shift 2
  tr ',' '\n' <<<"$d" | awk -F= -v want=" $* " 'index(want, " " $1 " ") { n += $2 } END { print n + 0 }'
}
# (c)'s floor: what any new master must learn or set on this fabric, from
# the net file (LMC 0, LIDs packed, so LIDs = switches + CA ports), each
# thing once -- a table block read or written, one of the two, not both:
#   NodeInfo  every cable crossed once (its far end identified) + the SM's
#             node; the cable (b) pulled is gone by (c)
#   PortInfo  every port with a cable (its state), each switch's port 0 (its
#             LID); OpenSM reads no more
#   SwitchInfo one a switch; LFT: every block up to the top, on every switch
#   MFT       none: the new SA starts with no groups, and the entries the old
#             master left may stay until the joins come back (OpenSM sends
#             none; ibsm clears them, its mft-prune)
#   PKey      the blocks of the tables the plan manages (the new master's own
#             count: PROG-0306 of its takeover, blocks written + read)
#   PortInfo Sets: every port holding a LID (CA ports, switch port 0) told
#             the new MasterSMLID, where its traps go; the CA ports'
#             ClientReregister (the new SA starts empty) rides on the same Set
# NodeDescription is not in it: nothing routes or comes up by it (both SMs
# read it for the SA's NodeRecords).
takeover_floor() {
  local ends lids links pkey log
  ends=$(grep -c '^\[' "$net") # cable ends, each cable listed under both its nodes
  lids=$((switches + cas))
  links=$((ends / 2 - 1)) # (b) pulled one before (c)
  log=$work/ibsm/standby/ibsm.log
  pkey=""
  if [[ -r $log ]]; then
    pkey=$(awk '/SM-0105 taking over/ { t = 1 } t && /PROG-0306/ {
        match($0, /[0-9]+ PKey blocks written \([0-9]+ read\)/); split(substr($0, RSTART, RLENGTH), a, /[^0-9]+/)
        print a[1] + a[2]; exit }' "$log")
  fi
  local -A floor=(
    [NodeInfo]=$((links + 1))
    [PortInfo]=$((2 * links + switches))
    [SwitchInfo]=$switches
    [LFT]=$((switches * ((lids + 1 + 63) / 64)))
    [MFT]=0
    [PKey]=$pkey
    [PortInfoSet]=$((cas + switches)) # one port a CA in the generated trees
  )
  local -A kinds=(
    [NodeInfo]="Get:0x0011" [PortInfo]="Get:0x0015" [SwitchInfo]="Get:0x0012 Set:0x0012"
    [LFT]="Get:0x0019 Set:0x0019" [MFT]="Get:0x001b Set:0x001b" [PKey]="Get:0x0016 Set:0x0016"
    [PortInfoSet]="Set:0x0015" [NodeDescription]="Get:0x0010"
  )
  local -A label=(
    [NodeInfo]="NodeInfo Gets" [PortInfo]="PortInfo Gets" [SwitchInfo]="SwitchInfo"
    [LFT]="LFT blocks" [MFT]="MFT blocks" [PKey]="PKey blocks"
    [PortInfoSet]="PortInfo Sets (floor: MasterSMLID)"
    [NodeDescription]="NodeDescription Gets"
  )
  local order=(NodeInfo PortInfo SwitchInfo LFT MFT PKey PortInfoSet NodeDescription)
  echo
  echo "(c) takeover SMPs by kind, detection to up, against the floor (what a new master must learn or set):"
  printf '  %-44s %10s %10s %10s %12s\n' "" ibsm OpenSM floor "ibsm-floor"
  local k a b f total_a=0 total_b=0 total_f=0 rest_a rest_b
  for k in "${order[@]}"; do
    # shellcheck disable=SC2086 # each kind is one or more words
    a=$(kind_count ibsm failover_detail ${kinds[$k]}) b=$(kind_count opensm failover_detail ${kinds[$k]})
    f=${floor[$k]:-0}
    printf '  %-44s %10s %10s %10s %12s\n' "${label[$k]}" "${a:--}" "${b:--}" "$f" \
      "$([[ -n $a ]] && echo $((a - f)) || echo -)"
    total_a=$((total_a + ${a:-0})) total_b=$((total_b + ${b:-0})) total_f=$((total_f + f))
  done
  a=$(get ibsm failover_mads) b=$(get opensm failover_mads)
  rest_a=$([[ -n $a ]] && echo $((a - total_a)) || echo -)
  rest_b=$([[ -n $b ]] && echo $((b - total_b)) || echo -)
  printf '  %-44s %10s %10s %10s %12s\n' "other SMPs" "$rest_a" "$rest_b" 0 "$rest_a"
  printf '  %-44s %10s %10s %10s %12s\n' "all" "${a:--}" "${b:--}" "$total_f" "$([[ -n $a ]] && echo $((a - total_f)) || echo -)"
  if [[ $b =~ ^[0-9]+$ ]] && ((b > 0)); then
    awk -v f="$total_f" -v b="$b" -v a="${a:-0}" -v p="${floor[PKey]:-0}" 'BEGIN {
      printf "  floor / OpenSM SMPs: %.3f (issue 32 target 0.5: %s); ibsm / floor %.3f\n",
        f / b, f <= 0.5 * b ? "reachable" : "below the floor, " int(0.5 * b) " < " f, a / f
      printf "  floor without the PKey tables (no partitions managed): %d, %.3f of OpenSM\n", f - p, (f - p) / b }'
  fi
  # ibsm's takeover sweep by part, from the standby's log: its discovery
  # (DISC-0101, descriptions taken from the standby's own), the reads sent
  # while the plan was made (PROG-0312), each programming phase that sent
  # anything (PROG-0301), the sweep line (SM-0406) and the descriptions
  # read after up (SM-0487).
  if [[ -r $log ]]; then
    echo "  ibsm's takeover sweep by part (its log):"
    awk '/DISC-0101/ { d = $0 } /SM-0105 taking over/ { t = 1; sub(/.*DISC-0101 /, "", d); print "    discovery: " d }
      !t { next }
      /PROG-0312/ { sub(/.*PROG-0312 /, ""); print "    read ahead: " $0 }
      /PROG-0301 phase/ && !/: 0 SMPs/ && !s { sub(/.*PROG-0301 phase /, ""); print "    phase " $0 }
      /SM-0406/ && !s { sub(/.*SM-0406 sweep: /, ""); print "    sweep: " $0; s = 1 }
      s && /SM-0487/ { sub(/.*SM-0487 /, ""); print "    after up: " $0; exit }' "$log"
  fi
}
row() { # label key [TARGET]: with a target, the ratio ibsm/OpenSM and whether it is met
  local a b
  a=$(get ibsm "$2") b=$(get opensm "$2")
  printf '  %-56s %10s %10s' "$1" "${a:--}" "${b:--}"
  if [[ -n ${3:-} && $a =~ ^[0-9.]+$ && $b =~ ^[0-9.]+$ ]] && awk -v b="$b" 'BEGIN { exit !(b > 0) }'; then
    awk -v a="$a" -v b="$b" -v t="$3" \
      'BEGIN { printf " %7.2f %s", a / b, t == "-" ? "" : a <= b * t ? "met (<= " t ")" : "NOT met (<= " t ")" }'
  fi
  echo
}
echo
echo "Running SM, 3-level fat tree radix $radix ($switches switches, $cas CAs), fresh ibsim per SM;"
if [[ $poll_ms == default && $retries == default ]]; then
  polling="SM-to-SM polling at each SM's defaults (ibsm 1000 ms x 3, OpenSM 10000 ms x 4)"
else
  polling="SM-to-SM polling $poll_ms ms x $retries retries"
fi
echo "light sweeps every $interval s, $polling, OpenSM max_wire_smps 64"
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; times move with the load, SMP counts do not)"
printf '  %-56s %10s %10s %7s %s\n' "" ibsm OpenSM ratio "(target)"
row "bring-up of the master, ms" bringup_ms 0.25
row "    SMPs sent" bringup_mads -
if ((bringup_only == 0)); then
  row "(a) light sweep, no change: MADs per interval" quiet_per_interval 0.5
  row "(b) Unlink ${spine}[$port] to up line, ms" reroute_ms 0.5
  row "    Unlink to the last LFT block written, ms" reroute_last_lft_ms 0.25
  row "      Unlink to the master's first SMP (trap seen), ms" reroute_first_smp_ms -
  row "      Unlink to its first LFT block written, ms" reroute_first_lft_ms -
  row "    SMPs sent in between" reroute_mads 0.25
  row "    of which LFT blocks written (0x19 Sets)" reroute_lft_blocks -
  row "    CPU s of the SM and the simulator" reroute_cpu_s 0.5
  row "    routes verified (walk, nothing into dead ports)" reroute_verified
  row "    busiest link after the reroute, routes" reroute_busiest_routes -
  row "    its routes over the mean link's" reroute_busiest_over_mean -
  row "(c) failover: detection to the new master's up line, ms" failover_up_ms 0.35
  row "    detection to sminfo naming it (tool latency in), ms" failover_sminfo_ms -
  row "    detection to up and sminfo both, ms" failover_verified_ms 0.35
  row "    SMPs sent in between" failover_mads 0.5
  row "    CPU s of the SM and the simulator (from the kill)" failover_cpu_s 0.5
  row "      of which the SM's own" failover_sm_cpu_s -
  row "    master killed to detection, ms" failover_detect_ms
  d=$(get ibsm failover_detect_ms)
  if [[ $d =~ ^[0-9]+$ && $poll_ms == default && $retries == default ]]; then
    printf '  %-56s %10s %s\n' "    ibsm's detection at its defaults (issue 32: <= 5000)" "$d" \
      "$( ((d <= 5000)) && echo met || echo 'NOT met')"
fi
row "    links Active, routes verified" failover_verified
takeover_floor
fi
for sm in ibsm opensm; do
  l=$(get "$sm" reroute_busiest_link)
  [[ -z $l ]] || echo "  busiest link after the reroute, $sm: $l"
done

# The floor of a fresh fabric's bring-up, SMPs by kind: what any SM must
# send on this fabric (issue 32), from the net file ibsim runs (a fresh
# ibsim's discovery finds all of it: the SM's own count is printed beside).
#   NodeInfo Get        each cable probed once from one end, + the SM's node
#   NodeDescription Get each node once (the SA's NodeRecords carry it)
#   PortInfo Get        switch port 0 and each cable end, once
#   SwitchInfo Get      each switch once (its LFT and MFT caps)
#   PKeyTable           none: a fresh port's table is the reset's (IBA
#                       10.9.2: 0xFFFF at index 0), the default partition
#   PortInfo Set        the LID of each switch port 0; Armed (a CA port's
#                       LID in it) and Active of each cable end (IBA 7.2:
#                       Init -> Armed -> Active, a Set each)
#   SwitchInfo Set      LinearFDBTop of each switch
#   LFT block Set       the blocks up to the top LID on every switch
#   MFT block Set       none: no member has joined a group yet
floor_counts() { # NET -> "nodes switches cables lids lft_blocks"
  awk '/^(Switch|Hca|Ca|Rt)[ \t]/ { nodes++; kind = $1; if (kind == "Switch") s++; next }
       /^\[[0-9]+\][^"]*"/ { ends++; if (kind != "Switch") caports++ }
       END { lids = s + caports
             printf "%d %d %d %d %d\n", nodes, s, ends / 2, lids, s * (int(lids / 64) + 1) }' "$1"
}
kind_of() { # SM KEYS...: the sum of those method:attribute counts of its bring-up
  local d sm=$1 n=0 k v
  shift
  d=$(get "$sm" bringup_detail)
  [[ -n $d ]] || { echo -; return; }
  for k in "$@"; do
    v=$(tr ',' '\n' <<<"$d" | awk -F= -v k="$k" '$1 == k { print $2 }')
    n=$((n + ${v:-0}))
  done
  echo "$n"
}
read -r f_nodes f_switches f_cables f_lids f_blocks < <(floor_counts "$net")
echo
echo "Bring-up SMPs by kind against the floor of this fabric ($f_nodes nodes, $f_cables cables,"
echo "$f_lids LIDs; ibsm discovered $(get ibsm bringup_nodes) nodes, $(get ibsm bringup_cables) cables):"
printf '  %-44s %8s %8s %8s %9s\n' "" floor ibsm OpenSM ibsm-floor
floor_row() { # label floor KEYS...
  local what=$1 f=$2 a b
  shift 2
  a=$(kind_of ibsm "$@") b=$(kind_of opensm "$@")
  printf '  %-44s %8s %8s %8s %9s\n' "$what" "$f" "$a" "$b" \
    "$([[ $a =~ ^[0-9]+$ ]] && echo $((a - f)) || echo -)"
}
floor_row "NodeInfo Get (a cable once, + the SM's node)" $((f_cables + 1)) Get:0x0011
floor_row "NodeDescription Get (a node once)" "$f_nodes" Get:0x0010
floor_row "PortInfo Get (switch port 0, cable ends)" $((f_switches + 2 * f_cables)) Get:0x0015
floor_row "SwitchInfo Get (a switch once)" "$f_switches" Get:0x0012
floor_row "PKeyTable Get and Set (default partition)" 0 Get:0x0016 Set:0x0016
floor_row "PortInfo Set (port 0 LID; Armed, Active)" $((f_switches + 4 * f_cables)) Set:0x0015
floor_row "SwitchInfo Set (LinearFDBTop)" "$f_switches" Set:0x0012
floor_row "LFT block Set (up to the top LID)" "$f_blocks" Set:0x0019
floor_row "MFT block Set (no member yet)" 0 Set:0x001b
floor_total=$((f_cables + 1 + f_nodes + f_switches + 2 * f_cables + f_switches + f_switches +
  4 * f_cables + f_switches + f_blocks))
a=$(get ibsm bringup_mads) b=$(get opensm bringup_mads)
printf '  %-44s %8s %8s %8s %9s\n' "all SMPs of the bring-up" "$floor_total" "${a:--}" "${b:--}" \
  "$([[ $a =~ ^[0-9]+$ ]] && echo $((a - floor_total)) || echo -)"
[[ $a =~ ^[0-9]+$ ]] && awk -v a="$a" -v f="$floor_total" \
  'BEGIN { printf "  ibsm sends %.3fx the floor\n", a / f }'

echo
echo "MADs by method:attribute (hex):"
for key in bringup_detail quiet_detail reroute_detail failover_detail; do
  for sm in ibsm opensm; do
    d=$(get "$sm" "$key")
    [[ -z $d ]] || echo "  $key $sm: ${d//,/ }"
  done
done
[[ -z $keep ]] || echo "logs, traces and results kept in $work"
