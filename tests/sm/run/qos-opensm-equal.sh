#!/usr/bin/env bash
# OpenSM and ibsm side by side with one QoS configuration (issue 30): the
# SL2VL and VLArbitration tables of every port and the PathRecords of a set
# of queries must be what OpenSM gives.
#
# Both SMs read one source: tests/data/qos/opensm-qos.conf (qos TRUE, the
# qos_* options with per-port-type sets that differ) with the paths of
# qos-policy.conf and partitions.conf appended is OpenSM's config, and
# `ibsm config import` of that very file is ibsm's. Each SM runs as master
# on the first CA of the net file, one after the other, each on a fresh
# simulator of the same net file (started here; the one run-with-ibsim.sh
# started stays idle), so that ibsm cannot inherit a table OpenSM wrote.
# --enhanced-port0 SWITCH gives that switch an enhanced port 0 in both
# simulators (ibsim's default is a base port 0, for which OpenSM programs
# none of the qos_sw0_* tables), so that the sw0 set is compared too.
# OpenSM numbers the fabric; ibsm is given the LIDs it left (as
# sa-equivalence.sh does), so the queries name the same ports. ibsm runs
# the ENGINE given: on a dragonfly one that uses one VL, as OpenSM's
# engines do there (the dragonfly engine's VL layers keep SL2VL tables of
# their own: run with `dragonfly`, this test fails on 3024 lines of them).
#
# Tables, read with smpquery from a CA once the subnet is up, in parallel:
#   - every CA port: `smpquery sl2vl LID`, `smpquery vlarb LID`;
#   - every switch, every output port P from 0 to its last port:
#     `smpquery sl2vl LID P` (which reads every input port 0..N for P, so
#     every (in, out) pair) and `smpquery vlarb LID P` (a base port 0 has
#     no VLArbitration tables, and smpquery says so).
#   Not compared: PortInfo:VLHighLimit (qos_*_high_limit), which ibsim does
#   not keep (its PortInfo Set stores LID, SM LID, LMC, states, OperVLs);
#   OperVLs, which neither SM derives from qos_*_max_vls (ibsim's VLCap
#   VL0-7 on every port is what both set).
# PathRecords, asked with saquery PR --slid/--dlid from another CA (single
# records, which umad2sim carries): plain, with --pkey, --service_id,
# --qos_class and --sl (see `queries` below for what each exercises); the
# SL, MTU, rate, packet life and PKey of each answer, or its exit status.
# The first CAs of the file are named by qos-policy.conf's port groups
# (GUIDs from 0x100001); on fat-tree-2level-k12-trunk2-slowlink they sit on
# leaf0, whose cable to spine1 runs at 1x: a path from another leaf to them
# may or may not cross it depending on the routes each SM chose, so the
# queries between leaf0 and other leaves are only those whose level caps
# the rate at 2.5 Gb/s (rate-limit 2) anyway.
#
# The two sides' normalised text is compared with diff: on a difference the
# first lines of the diff are printed and the test fails, but for the known
# differences listed in `known` (each with its reason).
#
#   run-with-ibsim.sh NETFILE -- qos-opensm-equal.sh path/to/ibsm ENGINE \
#                                 [--enhanced-port0 SWITCH]... [--keep DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
data=$(cd "$here/../../data/qos" && pwd)
harness=$(cd "$here/../ibsim" && pwd)/run-with-ibsim.sh
source "$here/run-checks.sh"

# --- Reading one side (inside its simulator) -------------------------------

# ibnetdiscover on stdin -> "sw LID NPORTS NAME" per switch and "ca LID PORT
# NAME" per CA port, sorted by kind and LID.
fabric_ports() {
  awk '/^Switch/ { n = $2; split($0, q, "\""); name = q[4]
         if (match($0, /base port 0 lid [0-9]+/)) { l = substr($0, RSTART, RLENGTH); sub(/.* /, "", l); print "sw", l, n, name }
         next }
       /^(Ca|Hca)/ { split($0, q, "\""); name = q[4]; ca = 1; next }
       /^$/ { ca = 0; next }
       ca && /^\[[0-9]+\]/ && match($0, /# lid [0-9]+/) { l = substr($0, RSTART, RLENGTH); sub(/.* /, "", l)
         p = $1; sub(/\].*/, "", p); sub(/^\[/, "", p); print "ca", l, p, name }' | sort -k1,1 -k2,2n
}

# One smpquery job line: "KEY<TAB>ARGS..." -> its normalised output, each
# line prefixed by KEY (the Lid in smpquery's headers is left out: the key
# names the port).
read_job() {
  local key=$1
  shift
  SIM_HOST=$asker smpquery "$@" 2>&1 | grep -v '^ibwarn' |
    sed -E 's/(Lid|lid) [0-9]+ ?//; s/[ \t]+$//' | sed "s|^|$key: |"
}
# "NNNNN<TAB>KEY<TAB>ARGS" -> reads/NNNNN.
read_numbered() {
  local i key args
  IFS=$'\t' read -r i key args <<<"$1"
  # shellcheck disable=SC2086 # the arguments are words
  read_job "$key" $args >"reads/$i"
}
export -f read_job read_numbered

# Every port's SL2VL and VLArbitration tables into FILE, read 4 at a time.
read_tables() {
  local out=$1 jobs=jobs.txt
  : >"$jobs"
  while read -r kind lid n name; do
    if [[ $kind == ca ]]; then
      printf '%s\t%s\n' "$name/P$n sl2vl" "sl2vl $lid" "$name/P$n vlarb" "vlarb $lid" >>"$jobs"
    else
      for ((p = 0; p <= n; p++)); do
        printf '%s\t%s\n' "$name out $p sl2vl" "sl2vl $lid $p" "$name out $p vlarb" "vlarb $lid $p" >>"$jobs"
      done
    fi
  done <ports.txt
  mkdir -p reads
  # Each job writes reads/NNNNN; the files are joined in job order.
  awk -F'\t' '{ printf "%05d\t%s\t%s\n", NR, $1, $2 }' "$jobs" |
    xargs -P 4 -n 1 -d '\n' bash -c 'read_numbered "$1"' _
  cat reads/* >"$out"
  echo "$(wc -l <"$jobs") smpquery reads, $(wc -l <"$out") lines" >&2
}

# saquery PR answers -> "QUERY | field = value" for the fields judged.
read_paths() {
  local out=$1 q i=0 rc
  : >"$out"
  for q in "${queries[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086 # a query is words
    SIM_HOST=$asker timeout 30 saquery PR $q >"pr.$i" 2>"pr.$i.err"
    rc=$?
    awk -v q="$q" '$1 ~ /^(sl|mtu|rate|pkt_life|pkey)\.+/ { f = $1; v = f; sub(/\.+.*/, "", f); sub(/^[a-z_]+\.+/, "", v); print q " | " f " = " v }' "pr.$i" >>"$out"
    echo "$q | exit status = $rc" >>"$out"
  done
}

if [[ ${1:-} == --side ]]; then
  out=$2 sm=$3 IBSM=$4 conf=$5 engine=$6 guid2lid=${7:-}
  mkdir -p "$out"
  mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
  node_sm=${cas[0]} asker=${cas[-2]}
  export asker
  sm_guid=$(node_port_guid "$node_sm")
  dir=$PWD/$sm
  mkdir -p "$dir"
  case $sm in
    opensm)
      cp "$conf" "$dir/opensm.conf"
      start_opensm "$dir" "$node_sm" 0
      sm_pid=$opensm_pid
      ;;
    ibsm)
      "$IBSM" config import "$conf" -o "$dir/ibsm.toml" 2>"$dir/import.err" ||
        { cat "$dir/import.err" >&2; fail "ibsm config import $conf failed"; exit 1; }
      mkdir -p "$dir/state"
      cp "$guid2lid" "$dir/state/guid2lid"
      SIM_HOST=$node_sm "$IBSM" run -F "$dir/ibsm.toml" -R "$engine" --control-socket "$dir/control.sock" \
        --state-dir "$dir/state" --log-file "$dir/ibsm.log" >"$dir/stdout" 2>"$dir/stderr" &
      sm_pid=$!
      ;;
  esac
  wait_sminfo_master "$asker" "$sm_guid" 60 || fail "$sm on $node_sm is not master after 60 s"
  if [[ $sm == opensm ]]; then
    wait_for_line "$dir/log" 'SUBNET UP' 60 || fail "OpenSM: no SUBNET UP in 60 s"
    grep -E 'PARSE ERROR|ERR ' "$dir/log" | head -5 >&2
    grep -q 'PARSE ERROR' "$dir/log" && fail "OpenSM could not parse a file it was given"
  else
    wait_for_status "$dir/control.sock" .up 60 || fail "ibsm: the subnet is not up after 60 s"
  fi
  [[ $failures -eq 0 ]] || { finish "$sm side" "$dir/log" "$dir/ibsm.log" "$dir/stderr"; exit 1; }
  sleep 2 # a light sweep after SUBNET UP writes nothing more; let it pass
  # An enhanced port 0 is read as a base one is (run-checks.sh knows "base").
  quiet ibnetdiscover | sed 's/ enhanced port 0 lid / base port 0 lid /' >ibnetdiscover.txt
  ibnetdiscover_lids <ibnetdiscover.txt >ibnetdiscover.lids
  lids_as_guid2lid ibnetdiscover.lids >"$out/fabric.guid2lid"
  if [[ -n $guid2lid ]]; then
    diff -q <(guid2lid_lids "$guid2lid") <(cut -d' ' -f1,2 ibnetdiscover.lids) >/dev/null ||
      fail "$sm does not carry the LIDs it was given"
  fi
  fabric_ports <ibnetdiscover.txt >ports.txt
  cp ports.txt "$out/ports.txt"
  read_tables "$out/tables.txt"

  # The ports the queries name, from the file order of the CAs (GUID order).
  lid_of() { awk -v n="$1" '$1 == "ca" && $4 == n { print $2; exit }' ports.txt; }
  a=$(lid_of "${cas[0]}") b=$(lid_of "${cas[1]}") l=$(lid_of "${cas[6]}") m=$(lid_of "${cas[7]}")
  x=$(lid_of "${cas[8]}") y=$(lid_of "${cas[-1]}")
  sw=$(awk '$1 == "sw" { print $2; exit }' ports.txt)
  queries=(
    "--slid $x --dlid $y"                               # DEFAULT
    "--slid $a --dlid $b"                               # DEFAULT: storage's rule needs its PKey named
    "--slid $a --dlid $b --pkey 0x8001"                 # storage: destination group and PKey
    "--slid $x --dlid $b --pkey 0x8001"                 # storage, across leaves (rate-limit 2)
    "--slid $x --dlid $y --pkey 0x8001"                 # DEFAULT: not to a storage port
    "--slid $x --dlid $y --pkey 0x8002"                 # bulk: a rule by PKey, a level with a PKey
    "--slid $x --dlid $y --pkey 0x7fff"                 # DEFAULT in the default partition
    "--slid $x --dlid $y --pkey 0x8003"                 # qos-ulps ipoib, pkey 0x0003: SL 7
    "--slid $x --dlid $y --service_id 0x1234"           # mpi: service-id range
    "--slid $x --dlid $y --service_id 0x1234 --pkey 0x8002" # mpi: the first rule wins
    "--slid $l --dlid $x --service_id 0x2001"           # login: source group, service-id list
    "--slid $m --dlid $y --service_id 0x4000"           # login: the single service id
    "--slid $x --dlid $l --service_id 0x2001"           # DEFAULT: x is no login port
    "--slid $l --dlid $y --service_id 0x3000"           # qos-ulps any, service-id: SL 3
    "--slid $x --dlid $y --service_id 0x12715"          # qos-ulps sdp, port-num 10005: SL 6
    "--slid $x --dlid $y --service_id 0x12720"          # DEFAULT: sdp port 10016, out of range
    "--slid $x --dlid $sw"                              # management: destination switches
    "--slid $sw --dlid $y"                              # management: source switches
    "--slid $x --dlid $y --qos_class 3"                 # management by QoS class
    "--slid $x --dlid $y --service_id 0x1234 --sl 2"    # mpi, the SL asked is the level's
    "--slid $x --dlid $y --service_id 0x1234 --sl 0"    # mpi: another SL asked, no path
  )
  read_paths "$out/paths.txt"
  kill -0 "$sm_pid" 2>/dev/null || fail "$sm exited during the reads"
  stop_pid "$sm_pid" TERM 10
  finish "$sm side: $(wc -l <ports.txt) ports, ${#queries[@]} PathRecord queries" \
    "$dir/log" "$dir/ibsm.log" "$dir/stderr"
  exit
fi

# --- The comparison -------------------------------------------------------
usage="usage: $0 path/to/ibsm ENGINE [--enhanced-port0 SWITCH]... [--keep DIR]"
IBSM=$(realpath "${1:?$usage}")
engine=${2:?$usage}
shift 2
keep="" esp0=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --enhanced-port0) esp0+=("$2"); shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "$0: unknown argument $1"$'\n'"$usage" >&2; exit 2 ;;
  esac
done
work=$PWD
[[ -z $keep ]] || { mkdir -p "$keep" && work=$(realpath "$keep"); }
start=$SECONDS

# The fabric both sides run: the net file, with the switches named by
# --enhanced-port0 given an enhanced port 0 (ibsim's "enhanced port 0" on
# the switch line), so that OpenSM programs their port 0 from the sw0 set.
net=$work/fabric.net
cp "$IBSIM_NETFILE" "$net"
for sw in "${esp0[@]}"; do
  sed -i -E "s/^(Switch[[:space:]]+[0-9]+[[:space:]]+\"$sw\")[[:space:]]*$/\1 enhanced port 0/" "$net"
  grep -qE "^Switch[[:space:]]+[0-9]+[[:space:]]+\"$sw\" enhanced port 0$" "$net" ||
    { echo "$0: no switch \"$sw\" in $IBSIM_NETFILE" >&2; exit 2; }
done

# One source for both SMs: the fragment with the paths of the policy and partitions.
conf=$work/opensm.conf
{
  cat "$data/opensm-qos.conf"
  printf '%s\n' "qos_policy_file $data/qos-policy.conf" \
    "partition_config_file $data/partitions.conf" 'force_log_flush TRUE'
} >"$conf"

# Each side on a simulator of its own (the one run-with-ibsim.sh started for
# this script stays idle: it runs the net file without the enhanced ports).
side() { env -u LD_PRELOAD "$harness" "$net" -- "$here/$(basename "$0")" --side "$@"; }
echo "== OpenSM as master on $(basename "$IBSIM_NETFILE")${esp0[*]:+, enhanced port 0 on ${esp0[*]}}" >&2
side "$work/side-opensm" opensm "$IBSM" "$conf" "$engine" || fail "the OpenSM side failed"
[[ -s $work/side-opensm/fabric.guid2lid ]] || { finish "OpenSM brought nothing up"; exit 1; }
echo "== ibsm (-R $engine) as master on a fresh simulator, given OpenSM's LIDs" >&2
side "$work/side-ibsm" ibsm "$IBSM" "$conf" "$engine" "$work/side-opensm/fabric.guid2lid" ||
  fail "the ibsm side failed"

# Known differences: an extended regular expression matching a whole diff
# line, and why.
known_patterns=() known_reasons=()
known() { known_patterns+=("$1") known_reasons+=("$2"); }
# A query naming a PKey without the membership bit (0x7fff): OpenSM echoes
# the value asked, ibsm answers the PKey as the source port holds it
# (0xFFFF, a full member), the value the host must put in its packets
# (sm/sa/PathRecords.cpp, PartitionedPathTest). The SL, MTU, rate and packet
# life of those answers are compared as any other.
known '^[<>] --slid [0-9]+ --dlid [0-9]+ --pkey 0x7fff \| pkey = 0x(7FFF|FFFF)$' \
  'a PKey asked without its membership bit: OpenSM echoes it, ibsm gives the source port'"'"'s entry'
compare() { # WHAT FILE
  local what=$1 file=$2 d k seen
  [[ -s $work/side-opensm/$file && -s $work/side-ibsm/$file ]] || { fail "$what: a side read nothing"; return; }
  d=$(diff "$work/side-opensm/$file" "$work/side-ibsm/$file" | grep -E '^[<>]')
  for k in "${!known_patterns[@]}"; do
    seen=$(grep -E "${known_patterns[$k]}" <<<"$d")
    [[ -n $seen ]] || continue
    echo "known difference in $what (${known_reasons[$k]}): $(wc -l <<<"$seen") lines"
    d=$(grep -vE "${known_patterns[$k]}" <<<"$d")
  done
  if [[ -n $d ]]; then
    fail "$what: ibsm (>) differs from OpenSM (<) in $(wc -l <<<"$d") lines:"$'\n'"$(head -20 <<<"$d")"
  else
    echo "$what equal: $(wc -l <"$work/side-opensm/$file") lines"
  fi
}
compare "SL2VL and VLArbitration tables" tables.txt
compare "PathRecords" paths.txt
finish "$(basename "$IBSIM_NETFILE" .net): OpenSM and ibsm (-R $engine) with one QoS configuration, $((SECONDS - start)) s"
