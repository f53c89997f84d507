#!/usr/bin/env bash
# Every routing engine on every fabric, judged by one walker (issue 33).
#
# For each fabric (the sample net files of tests/data/topologies and the
# generated kinds below) and each engine:
#   - OpenSM (minhop, updn, ftree, dfsssp, sssp, nue, lash): `opensm -R ENGINE`
#     brings a fresh ibsim fabric up (dfsssp, lash and nue with -Q, so their
#     SL2VL tables are programmed; nue with --nue_max_num_vls 0: every VL the
#     ports have), then its tables are read back from the switches:
#     ibnetdiscover, dump_fts (+ the LinearFDBTop entry by smpdump), every
#     switch port pair's SL2VL table (bench/judge/Sl2VlRead.cpp, checked
#     against smpquery on one pair), and for dfsssp, lash and nue the SL the
#     SA answers for every CA pair (`sa-client pathsls`: PathRecord Gets by
#     SLID/DLID); the other engines' pairs are on SL 0, as their SA answers;
#   - ibsm: `ibsm route -R auto` offline on the same net file (its
#     opensm-lfts.dump, guid2lid, sl2vl.dump and pair-sls: the SLs its SA
#     answers, every other pair on SL 0), and `ibsm-live`: `ibsm run --once`
#     on ibsim, read back as OpenSM's tables are, then a daemon on the same
#     state directory answers `sa-client pathsls` for every CA pair (see
#     live_read_back);
# then bench/judge/judge-routes.py walks every ordered pair of CA ports
# through the tables read back. The judge is independent of the engine it
# judges: it reads only what the diags read from the fabric (or, for the
# offline ibsm rows, the dump files the live SM would program), and shares no
# code with ibsm's engines or its report.
#
# One table: fabric x engine -> busiest inter-switch link by CA-to-CA routes
# (all pairs, and per class: compute, hosts above the leaves, aggregation
# nodes), longest path (inter-switch links), VLs used, pairs unrouted, credit
# loop free. Then ibsm's row against dfsssp's on each fabric.
#
#   scripts/bench-engines.sh [--fabrics LIST] [--engines LIST] [--quick]
#                            [--keep DIR] [--ibsm BIN] [--list] [--check]
#                            [--judge-only] [--net FILE]...
#
# LIST: comma-separated names (--list prints the fabrics). --net FILE adds a
# fabric of one's own (an ibsim net file or an ibnetdiscover capture, which
# ibsim runs as it is), named by the file's base name, to what is run. --quick: two small
# fabrics, updn, dfsssp and ibsm (for CI). --check: exit 1 unless every row is
# complete, ibsm's rows route every pair without a credit loop, and ibsm's
# busiest link is at most updn's on every fabric where both ran. --keep DIR keeps the fabrics, read-backs and results.tsv there.
# BUILD_DIR (default build) holds ibsm, sa-client and sl2vl_read (or IBSM... --ibsm,
# SA_CLIENT and SL2VL_READ name them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# live_read_back OUT IBSM (run under run-with-ibsim.sh, as `bench-engines.sh
# --live-read-back OUT IBSM`): the ibsm-live row's read-back (read-back.sh:
# `ibsm run --once`, then the tables), then the SL ibsm's SA answers each CA
# pair. --once leaves no SA behind, so a daemon on the same config and state
# directory (the same LIDs, the same routes) takes the programmed fabric; its
# LFTs must read back as those judged; `sa-client pathsls` asks it every pair,
# as read-back.sh asks OpenSM's SA (OUT/pair-sls); the daemon is stopped.
live_read_back() {
  local out=$1 ibsm=$2 pid up=0
  PAIR_SLS=0 "$root/bench/judge/read-back.sh" "$out" ibsm "$ibsm" || return 1
  "$ibsm" run -F "$out/sm/ibsm.toml" --log-file "$out/sm/ibsm-sa.log" >"$out/sm/sa-stdout" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    if env -u LD_PRELOAD "$ibsm" status --json --socket "$out/sm/control.sock" 2>/dev/null |
      python3 -c 'import json, sys; sys.exit(0 if json.load(sys.stdin).get("up") else 1)' 2>/dev/null; then
      up=1
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  local rc=0
  if ((!up)); then
    echo "read-back: the ibsm daemon for the SA's SLs was not up in 120 s" >&2
    rc=1
  elif ! dump_fts >"$out/lfts-sa" 2>/dev/null ||
    ! head -n "$(wc -l <"$out/lfts-sa")" "$out/lfts" | cmp -s - "$out/lfts-sa"; then
    echo "read-back: the daemon answering the SA holds other LFTs than those judged ($out/lfts-sa)" >&2
    rc=1
  else
    awk '/^\[[0-9]+\]\([0-9a-f]+\)/ { if (match($0, /# lid [0-9]+/)) print substr($0, RSTART + 6, RLENGTH - 6) }' \
      "$out/topology" | sort -un >"$out/ca-lids"
    "${SA_CLIENT:?}" pathsls --lids "$out/ca-lids" --window 32 --timeout-ms 2000 >"$out/pair-sls" \
      2>"$out/pair-sls.err" || { echo "read-back: ibsm's SA left pairs unanswered (see $out/pair-sls)" >&2; rc=1; }
  fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  return $rc
}
if [[ ${1:-} == --live-read-back ]]; then
  [[ $# -eq 3 ]] || { echo "$0: --live-read-back OUT IBSM" >&2; exit 2; }
  live_read_back "$2" "$3"
  exit
fi
build=$(realpath -m "${BUILD_DIR:-$root/build}")
ibsm=$build/sm/cli/ibsm
nets=() fabrics="" engines="minhop,updn,ftree,dfsssp,sssp,nue,lash,ibsm" keep="" check=0 list=0 judge_only=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --fabrics | --engines | --keep | --ibsm | --net)
      [[ $# -ge 2 ]] || { echo "$0: $1 needs a value" >&2; exit 2; } ;;&
    --fabrics) fabrics=$2; shift 2 ;;
    --engines) engines=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --ibsm) ibsm=$(realpath "$2"); shift 2 ;;
    --quick) fabrics=${fabrics:-fat-tree-2level-k12-trunk2-slowlink,dragonfly-a4-p2-h2}
      engines=updn,dfsssp,ibsm; shift ;;
    --check) check=1; shift ;;
    --net) nets+=("$(realpath "$2")"); shift 2 ;;
    --judge-only) judge_only=1; shift ;;
    --list) list=1; shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "$0: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

# The catalogue: NAME|sample FILE or NAME|KIND ARGS (ibsm topo generate).
catalogue=()
for f in "$root"/tests/data/topologies/*.net; do catalogue+=("$(basename "$f" .net)|sample $f"); done
for r in 8 12; do
  h=$((r / 2))
  catalogue+=(
    "ft$r-plain|fat-tree --radix $r --levels 3"
    "ft$r-an3|fat-tree --radix $r --levels 3 --aggregation-nodes"
    "ft$r-an2|fat-tree --radix $r --levels 2 --aggregation-nodes"
    "ft$r-io-spines|fat-tree --radix $r --levels 2 --io-hosts 1:$h"
    "ft$r-io-cores|fat-tree --radix $r --levels 3 --io-hosts 2:$h"
    "ft$r-director2|fat-tree --radix $r --levels 3 --director-pods 2"
    "ft$r-rails|fat-tree --radix $r --levels 3 --rails $h"
    "ft$r-rails-an-io|fat-tree --radix $r --levels 3 --rails $h --aggregation-nodes --io-hosts 2:$h"
    "ft$r-rails-an-io-cut8|fat-tree --radix $r --levels 3 --rails $h --aggregation-nodes --io-hosts 2:$h --degrade 8 --seed 1"
    "ft$r-director2-rails-an-io|fat-tree --radix $r --levels 3 --director-pods 2 --rails $h --aggregation-nodes --io-hosts 2:$h"
  )
done
catalogue+=(
  "ft12-cut8|fat-tree --radix 12 --levels 3 --degrade 8 --seed 1"
  "ft8-cut20|fat-tree --radix 8 --levels 3 --degrade 20 --seed 1"
  "df-a6p3h3|dragonfly -a 6 -p 3 -H 3"
  "df-a4p2h2-cut5|dragonfly -a 4 -p 2 -H 2 --degrade 5 --seed 1"
  "dfplus-9g-4x4|dragonfly-plus --groups 9 --leaves 4 --spines 4 --hosts-per-leaf 4 --global-per-spine 2"
)
for f in "${nets[@]}"; do
  n=$(basename "$f")
  catalogue+=("${n%.*}|sample $f")
  [[ -z $fabrics || ",$fabrics," == *",${n%.*},"* ]] || fabrics+=",${n%.*}"
done
if ((list)); then printf '%s\n' "${catalogue[@]}" | sed 's/|/\t/'; exit 0; fi
((judge_only)) && [[ -z $keep ]] && { echo "$0: --judge-only judges what --keep DIR holds" >&2; exit 2; }

SA_CLIENT=${SA_CLIENT:-$build/tests/tools/sa-client} SL2VL_READ=${SL2VL_READ:-$build/tests/tools/sl2vl_read}
for t in "$ibsm" "$SA_CLIENT" "$SL2VL_READ"; do
  [[ -x $t ]] || { echo "$0: $t is missing: ninja -C $build ibsm sa-client sl2vl_read" >&2; exit 2; }
done
SA_CLIENT=$(realpath "$SA_CLIENT") SL2VL_READ=$(realpath "$SL2VL_READ")
command -v opensm >/dev/null || { echo "$0: opensm is not installed" >&2; exit 2; }
if [[ -n $keep ]]; then
  mkdir -p "$keep"
  work=$(realpath "$keep")
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bench-engines.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
chosen=()  # in --fabrics' order
if [[ -z $fabrics ]]; then chosen=("${catalogue[@]}"); else
  IFS=, read -r -a wanted <<<"$fabrics"
  for w in "${wanted[@]}"; do
    for entry in "${catalogue[@]}"; do [[ ${entry%%|*} == "$w" ]] && chosen+=("$entry"); done
  done
fi
[[ ${#chosen[@]} -gt 0 ]] || { echo "$0: --fabrics $fabrics: none of them is known (--list)" >&2; exit 2; }
IFS=, read -r -a engine_list <<<"$engines"
for e in "${engine_list[@]}"; do
  [[ " minhop updn ftree dfsssp sssp nue lash ibsm ibsm-live " == *" $e "* ]] ||
    { echo "$0: --engines: '$e' is no engine this bench runs" >&2; exit 2; }
done

harness=$root/tests/sm/ibsim/run-with-ibsim.sh
readback=$root/bench/judge/read-back.sh
judge=$root/bench/judge/judge-routes.py
export SA_CLIENT SL2VL_READ
results=$work/results.tsv
cols="fabric engine routed_by busiest busiest_compute busiest_upper busiest_an longest longest_compute longest_upper longest_an vls unrouted pairs credit_loop_free up_s wall_s cpu_s"
echo "$cols" | tr ' ' '\t' >"$results"

# ibsim's limits for NET (its defaults hold 256 switches), with room to spare.
limits() {
  awk '/^(Switch|Hca|Ca|Rt)[ \t]/ { n++; p += $2; if ($1 == "Switch") { s++; p++ } }
       END { printf "-N %d -S %d -P %d\n", n * 2 + 64, s * 2 + 64, p * 2 + 256 }' "$1"
}

# row FABRIC ENGINE DIR JUDGE-ARGS...: judges, appends one line to results.
row() {
  local fabric=$1 engine=$2 dir=$3
  shift 3
  local by up
  by=$(cat "$dir/engine" 2>/dev/null || echo "$engine")
  up=$(cat "$dir/up" 2>/dev/null || echo -)
  if ! python3 "$judge" "$@" --json "$dir/judge.json" >"$dir/judge.out" 2>"$dir/judge.err"; then
    echo "  $engine: the judge failed: $(head -2 "$dir/judge.err")" >&2
    printf '%s\t%s\t%s\n' "$fabric" "$engine" "judge-failed" >>"$results"
    return
  fi
  python3 - "$dir/judge.json" "$fabric" "$engine" "$by" "$up" "$(cat "$dir/time" 2>/dev/null)" >>"$results" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
wall, cpu = (sys.argv[6].split() + ["-", "-"])[:2]
keys = ["busiest", "busiest_compute", "busiest_upper", "busiest_an", "longest", "longest_compute",
        "longest_upper", "longest_an", "vls", "unrouted", "pairs", "credit_loop_free"]
print("\t".join(sys.argv[2:5] + [str(j[k]) for k in keys] + [sys.argv[5], wall, cpu]))
PY
  echo "  $engine ($by): $(grep -E '^(busiest|longest|vls|vl_list|unrouted|credit_loop_free) ' "$dir/judge.out" | tr '\n' ' ')" >&2
}

# timed DIR CMD...: runs CMD, DIR/time = "wall cpu" (user+sys of CMD and its children).
timed() {
  local dir=$1
  shift
  /usr/bin/time -f '%e %U %S' -o "$dir/time.raw" "$@"
  local rc=$?
  awk '{ printf "%.1f %.1f\n", $1, $2 + $3 }' "$dir/time.raw" >"$dir/time" 2>/dev/null
  return $rc
}

# ibsm_offline NAME FDIR NET: `ibsm route -R auto` on the net file, judged on
# the cabling and GUIDs read back from ibsim (ibsim names GUIDs as ibsm's
# reader does) with ibsm's own LIDs, LFTs and SL2VL tables.
ibsm_offline() {
  local name=$1 fdir=$2 net=$3 dir=$2/ibsm
  ((judge_only)) || timed "$dir" "$ibsm" route -t "$net" -R auto -o "$dir/out" --force >"$dir/route.out" 2>&1 || {
    echo "  ibsm route failed: $(tail -2 "$dir/route.out")" >&2
    printf '%s\tibsm\troute-failed\n' "$name" >>"$results"
    return
  }
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["engine"])' "$dir/out/report.json" \
    >"$dir/engine" 2>/dev/null || true
  [[ -z $topo && -s $fdir/topology-run/topology ]] && topo=$fdir/topology-run/topology
  if [[ -z $topo ]]; then  # a read-back only for the cabling and GUIDs
    SL_TABLES=first "$harness" "${lim[@]}" "$net" -- "$readback" "$fdir/topology-run" opensm minhop \
      >"$fdir/topology-run.log" 2>&1 || {
      echo "  no topology read back for ibsm's row" >&2
      printf '%s\tibsm\tno-topology\n' "$name" >>"$results"
      return
    }
    topo=$fdir/topology-run/topology
  fi
  local args=(--topology "$topo" --lfts "$dir/out/opensm-lfts.dump" --guid2lid "$dir/out/guid2lid")
  [[ -s $dir/out/sl2vl.dump ]] && args+=(--sl2vl "$dir/out/sl2vl.dump")
  if [[ -s $dir/out/pair-sls ]]; then
    pair_sls_by_lid "$topo" "$dir/out/guid2lid" "$dir/out/pair-sls" >"$dir/pair-sls" || {
      echo "  ibsm's pair-sls: no source LID for some pair (see $dir/pair-sls)" >&2
      printf '%s\tibsm\tno-pair-sls\n' "$name" >>"$results"
      return
    }
    args+=(--pair-sls "$dir/pair-sls")
  fi
  row "$name" ibsm "$dir" "${args[@]}"
}

# pair_sls_by_lid TOPOLOGY GUID2LID PAIR-SLS: the dry run's per-pair SLs
# ('node 0xNODEGUID port N dlid 0xLID sl K') as sa-client pathsls prints
# them ('path SLID DLID SL'), the source port's LID from guid2lid by the port
# GUID ibnetdiscover names for the node's port: what ibsm's SA would answer.
pair_sls_by_lid() {
  python3 - "$@" <<'PY'
import re, sys
topo, guid2lid, pairs = sys.argv[1:4]
port_guid, node = {}, None
for line in open(topo):
    m = re.match(r'(?:caguid|switchguid)=0x([0-9a-fA-F]+)', line)
    if m:
        node = int(m.group(1), 16)
        continue
    m = re.match(r'\[(\d+)\]\(([0-9a-fA-F]+)\)', line)
    if m and node is not None:
        port_guid[(node, int(m.group(1)))] = int(m.group(2), 16)
lid_of = {}
for line in open(guid2lid):
    w = line.split()
    if len(w) >= 2 and w[0].startswith("0x"):
        lid_of[int(w[0], 16)] = int(w[1], 16)
missing = 0
for line in open(pairs):
    w = line.split()
    if len(w) != 8 or w[0] != "node":
        continue
    node, port, dlid, sl = int(w[1], 16), int(w[3], 0), int(w[5], 16), int(w[7], 0)
    # A switch's port 0 has the switch's GUID as its port GUID.
    guid = port_guid.get((node, port), node if port == 0 else None)
    if guid not in lid_of:
        missing += 1
        continue
    print(f"path {lid_of[guid]} {dlid} {sl}")
sys.exit(1 if missing else 0)
PY
}

# on_ibsim NAME FDIR NET ENGINE: the SM (an OpenSM engine, or ibsm-live)
# brings a fresh ibsim fabric up; its tables read back and judged.
on_ibsim() {
  local name=$1 fdir=$2 net=$3 engine=$4 dir=$2/$4 extra=() sls=0 tables=first
  case $engine in
    dfsssp | lash) extra=(-Q) sls=1 tables=all ;;
    nue) extra=(-Q --nue_max_num_vls 0) sls=1 tables=all ;;
    ibsm-live) tables=all sls=1 ;;  # the SL ibsm's SA answers per pair (sssp, ftree-vl: SL 1+)
  esac
  local read=("$readback" "$dir")
  if [[ $engine == ibsm-live ]]; then read=("$root/scripts/bench-engines.sh" --live-read-back "$dir" "$ibsm")
  else read+=(opensm "$engine" "${extra[@]}"); fi
  if ((judge_only)) && [[ ! -s $dir/topology ]]; then
    printf '%s\t%s\tno-read-back\n' "$name" "$engine" >>"$results"
    return
  elif ((!judge_only)) && ! PAIR_SLS=$sls SL_TABLES=$tables timed "$dir" "$harness" "${lim[@]}" "$net" -- \
    "${read[@]}" >"$dir/run.log" 2>&1; then
    echo "  $engine: no read-back: $(grep -m2 'read-back:' "$dir/run.log")" >&2
    printf '%s\t%s\tno-read-back\n' "$name" "$engine" >>"$results"
    return
  fi
  [[ -n $topo ]] || topo=$dir/topology
  local args=(--topology "$dir/topology" --lfts "$dir/lfts" --sl2vl "$dir/sl2vl")
  ((sls)) && args+=(--pair-sls "$dir/pair-sls")
  row "$name" "$engine" "$dir" "${args[@]}"
}

for entry in "${chosen[@]}"; do
  name=${entry%%|*} how=${entry#*|}
  fdir=$work/$name
  mkdir -p "$fdir"
  net=$fdir/fabric.net
  # shellcheck disable=SC2086
  if ((judge_only)); then [[ -s $net ]] || continue
  elif [[ $how == sample* ]]; then cp "${how#sample }" "$net"
  else "$ibsm" topo generate $how -o "$net" >/dev/null; fi
  read -r -a lim < <(limits "$net")
  echo "== $name ($(grep -c '^Switch' "$net") switches, $(grep -cE '^(Hca|Ca)' "$net") CAs)" >&2
  topo=""
  for engine in "${engine_list[@]}"; do
    ((judge_only)) || { rm -rf "${fdir:?}/$engine" && mkdir -p "$fdir/$engine"; }
    if [[ $engine == ibsm ]]; then ibsm_offline "$name" "$fdir" "$net"; else on_ibsim "$name" "$fdir" "$net" "$engine"; fi
  done
done

args=("$results")
((check)) && args+=(--check)
python3 "$root/bench/judge/engines-table.py" "${args[@]}"
