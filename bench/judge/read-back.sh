#!/usr/bin/env bash
# Brings a fresh ibsim fabric up with one SM and reads back what the judge
# (judge-routes.py) needs, the way a host's tools read it (scripts/bench-engines.sh
# runs it under tests/sm/ibsim/run-with-ibsim.sh):
#   OUT/topology   ibnetdiscover (cabling, GUIDs, the LIDs the SM gave)
#   OUT/lfts       dump_fts, with the entry at LinearFDBTop (which dump_fts
#                  leaves out) read from each switch by sl2vl_read --lft-block
#   OUT/sl2vl      the SL2VL table of every pair of cabled ports of every switch
#                  (bench/judge/Sl2VlRead.cpp, SL2VL_READ=path; one pair checked
#                  against smpquery sl2vl), as 'switch 0xGUID in_port N out_port M :
#                  v0 ... v15' (SL_TABLES=first: only the first switch's)
#   OUT/pair-sls   the SA's PathRecord SL of every CA pair (sa-client pathsls),
#                  when PAIR_SLS=1
#   OUT/up         seconds to SUBNET UP; OUT/engine what routed (OpenSM's log)
#
#   read-back.sh OUT opensm ENGINE [OPENSM-ARGS...]
#   read-back.sh OUT ibsm PATH/TO/IBSM
# SA_CLIENT=path/to/sa-client for PAIR_SLS.
set -u
out=$(realpath -m "$1")
sm=$2
shift 2
mkdir -p "$out/sm"
die() { echo "read-back: $*" >&2; [[ -n ${pid:-} ]] && kill "$pid" 2>/dev/null; exit 1; }
start=$(date +%s.%N)

if [[ $sm == opensm ]]; then
  engine=$1
  shift
  printf 'max_wire_smps 64\nmax_wire_smps2 64\nsweep_interval 0\nforce_log_flush TRUE\n' >"$out/sm/opensm.conf"
  OSM_TMP_DIR=$out/sm OSM_CACHE_DIR=$out/sm opensm -F "$out/sm/opensm.conf" -f "$out/sm/log" \
    -R "$engine" "$@" >"$out/sm/stdout" 2>&1 &
  pid=$!
  for _ in $(seq 1 1800); do
    grep -qs 'SUBNET UP' "$out/sm/log" && break
    kill -0 "$pid" 2>/dev/null || die "opensm -R $engine exited: $(tail -3 "$out/sm/log" 2>/dev/null)"
    sleep 0.1
  done
  grep -qs 'SUBNET UP' "$out/sm/log" || die "opensm -R $engine: no SUBNET UP in 180 s"
  # What routed: OpenSM names the engine it fell back to.
  used=$(sed -nE 's/.*osm_ucast_mgr_process: ([a-zA-Z0-9_-]+) tables configured.*/\1/p' "$out/sm/log" | tail -1)
  echo "${used:-?}" >"$out/engine"
else
  ibsm=$1
  cat >"$out/sm/ibsm.toml" <<EOF
[routing]
engine = "auto"
max_vls = 8
[sm]
state_dir = "$out/sm/state"
control_socket = "$out/sm/control.sock"
EOF
  "$ibsm" run --once -F "$out/sm/ibsm.toml" --log-file "$out/sm/ibsm.log" --stats "$out/sm/stats.json" \
    >"$out/sm/stdout" 2>&1 || die "ibsm run --once failed: $(tail -3 "$out/sm/stdout")"
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("engine", "?"))' "$out/sm/stats.json" \
    >"$out/engine" 2>/dev/null || echo auto >"$out/engine"
fi
awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", e - s }' >"$out/up"

ibnetdiscover >"$out/topology" 2>/dev/null || die "ibnetdiscover failed"
dump_fts >"$out/lfts" 2>/dev/null || die "dump_fts failed"
# Every switch's cabled ports -> sl2vl_read's input "LID 0xGUID P1 P2 ...".
awk '/^Switch/ { if (ports != "") print head ports; match($0, /base port 0 lid [0-9]+/);
                 head = substr($0, RSTART + 16, RLENGTH - 16) " 0x" substr($3, 4, 16); ports = ""; next }
     /^\[/ && head != "" { p = $1; gsub(/[^0-9]/, "", p); ports = ports " " p }
     /^$/ { if (ports != "") print head ports; head = ""; ports = "" }
     END { if (ports != "") print head ports }' "$out/topology" >"$out/switch-ports"
# dump_fts stops one short of LinearFDBTop (the subnet's top LID): that entry
# from each switch's LFT block, read by sl2vl_read --lft-block; smpdump, the
# diags' reader, must read the same block of the first switch.
top=$(grep -oE '\blid [0-9]+' "$out/topology" | awk '$2 > m { m = $2 } END { print m + 0 }')
"${SL2VL_READ:?}" --lft-block $((top / 64)) <"$out/switch-ports" >"$out/lft-top" 2>"$out/lft-top.err" ||
  die "sl2vl_read --lft-block: $(head -3 "$out/lft-top.err")"
awk -v top="$top" '{ printf "Unicast lids [0x%x-0x%x] of switch Lid %d guid %s (top):\n0x%04x %03d : (top)\n",
                     top, top, $4, $2, top, $(8 + top % 64) }' "$out/lft-top" >>"$out/lfts"
read -r lid guid _ <"$out/switch-ports"
diag=$(smpdump "$lid" 0x19 $((top / 64)) 2>/dev/null | grep -E '^[0-9a-f]{4}( [0-9a-f]{4})+$' | tr -d ' \n' |
  cut -c $((2 * (top % 64) + 1))-$((2 * (top % 64) + 2)))
mine=$(awk -v g="$guid" -v top="$top" '$2 == g { print $(8 + top % 64) }' "$out/lft-top")
[[ -n $diag && $((16#$diag)) -eq ${mine:--1} ]] ||
  die "sl2vl_read and smpdump disagree on LID $top at switch LID $lid: '$mine' against '$diag'"
[[ ${SL_TABLES:-all} == first ]] && sed -i 1q "$out/switch-ports"
"${SL2VL_READ:?}" --window 32 <"$out/switch-ports" >"$out/sl2vl" 2>"$out/sl2vl.err" ||
  die "sl2vl_read: $(head -3 "$out/sl2vl.err")"
# smpquery, the diags' reader, must read the same table of one port pair.
read -r lid guid p1 p2 _ <"$out/switch-ports"
if [[ -n ${p2:-} ]]; then
  diag=$(smpquery sl2vl "$lid" "$p2" 2>/dev/null | sed -nE "s/^ports: in +$p1, out +$p2: \|(.*)\|$/\1/p" | tr '|' ' ' | xargs)
  mine=$(awk -v g="$guid" -v i="$p1" -v o="$p2" '$2 == g && $4 == i && $6 == o { $1 = $2 = $3 = $4 = $5 = $6 = $7 = ""; print }' "$out/sl2vl" | xargs)
  [[ "$diag" == "$mine" ]] || die "sl2vl_read and smpquery disagree on LID $lid $p1->$p2: '$mine' against '$diag'"
fi
if [[ ${PAIR_SLS:-0} == 1 ]]; then
  awk '/^\[[0-9]+\]\([0-9a-f]+\)/ { if (match($0, /# lid [0-9]+/)) print substr($0, RSTART + 6, RLENGTH - 6) }' \
    "$out/topology" | sort -un >"$out/ca-lids"
  "${SA_CLIENT:?}" pathsls --lids "$out/ca-lids" --window 32 --timeout-ms 2000 >"$out/pair-sls" 2>"$out/pair-sls.err" ||
    echo "read-back: sa-client pathsls left pairs unanswered (see $out/pair-sls)" >&2
fi
[[ -n ${pid:-} ]] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
exit 0
