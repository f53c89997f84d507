# Checks shared by the partition tests of `ibsm run`: the PKey tables the
# ports hold (smpquery pkeys, never ibsm's own word) against the offline plan
# of the live fabric (`ibsm partitions --topology <ibnetdiscover>`). Sourced
# after run-checks.sh, not run:
#
#   three_partitions FILE            # full/limited mix, ALL_CAS=limited, by GUID
#   plan_tables FILE plan.tables     # "NAME PORT PKEYS..." of every planned port
#   plan_tables_from plan.tables --config ibsm.toml   # the same, sources as given
#   check_tables_as_planned plan.tables 'h0_0_0 1' 'edge0_0 0' 'edge0_0 3' ...
#   pkey_blocks_written SOCKET           # PKey blocks the daemon wrote since start

# "sw NAME LID" and "ca NAME PORT LID" for every node of an ibnetdiscover capture.
topo_lids() {
  awk '/^Switch/ { n = $0; sub(/^[^#]*# "/, "", n); sub(/".*/, "", n);
                   l = $0; sub(/.*base port 0 lid /, "", l); sub(/ .*/, "", l); print "sw", n, l; ca = ""; next }
       /^(Ca|Hca)/ { ca = $0; sub(/^[^#]*# "/, "", ca); sub(/".*/, "", ca); next }
       /^$/ { ca = ""; next }
       ca != "" && /^\[[0-9]+\]/ { p = $0; sub(/^\[/, "", p); sub(/\].*/, "", p);
                   l = $0; sub(/.*# lid /, "", l); sub(/ .*/, "", l); print "ca", ca, p, l }' "$1"
}

# Writes a partitions.conf with three partitions to FILE: 'mix' (two CAs full,
# two limited, by port GUID), 'storage' (ALL_CAS=limited), 'mgmt' (two CAs,
# default membership). Needs the CA names of the net file.
three_partitions() {
  local file=$1 cas g=()
  mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
  local i
  for i in 1 2 9 17 33 34; do g+=("$(node_port_guid "${cas[$i]}")"); done
  cat >"$file" <<CONF
# three partitions (tests/sm/run/partitions-checks.sh)
mix=0x0a0a, ipoib, mtu=4096 : ${g[0]}=full, ${g[1]}=limited,
    ${g[2]}=full, ${g[3]}=limited ;
storage=0x0b0b : ALL_CAS=limited ;
mgmt=0x0c0c : ${g[4]}, ${g[5]} ;
CONF
}

# The offline plan of the live fabric as "NAME PORT PKEY..." lines in OUT,
# planned from partitions.conf FILE.
plan_tables() { plan_tables_from "$2" --partitions "$1"; }

# The same, the partitions read as `ibsm partitions ARGS...` reads them (e.g.
# --config ibsm.toml); the whole plan is left in plan.txt.
plan_tables_from() {
  local out=$1
  shift
  quiet ibnetdiscover >live.topo
  local sm_guid
  sm_guid=$(node_port_guid "$(net_cas "$IBSIM_NETFILE" | head -n 1)")
  "$IBSM" partitions --topology live.topo "$@" --sm-guid "$sm_guid" >plan.txt ||
    fail "ibsm partitions refused $*"
  sed -nE 's/^  "([^"]+)"\[([0-9]+)\] \([^)]*\)( enforce)?: (0x.*)$/\1 \2 \4/p' plan.txt >"$out"
}

# The non-empty entries of the PKey table smpquery reads from NAME PORT.
held_pkeys() {
  local name=$1 port=$2 kind lid
  read -r kind lid < <(awk -v n="$name" -v p="$port" \
    '$1 == "sw" && $2 == n { print "sw", $3 } $1 == "ca" && $2 == n && $3 == p { print "ca", $4 }' live.lids)
  [[ -n ${lid:-} ]] || { echo "no-such-port"; return; }
  if [[ $kind == sw ]]; then quiet smpquery pkeys "$lid" "$port"; else quiet smpquery pkeys "$lid"; fi |
    grep -E '^ *[0-9]+:' | grep -oE '0x[0-9a-f]{4}' | grep -v '^0x0000$' | tr '\n' ' ' | sed 's/ $//'
}

# Every sampled "NAME PORT" holds exactly the table PLAN gives it.
check_tables_as_planned() {
  local plan=$1 sample
  shift
  topo_lids live.topo >live.lids
  for sample in "$@"; do
    local want got
    want=$(awk -v s="$sample" '$1 " " $2 == s { $1 = $2 = ""; sub(/^ +/, ""); print }' "$plan")
    [[ -n $want ]] || { fail "the plan has no table for $sample"; continue; }
    got=$(held_pkeys $sample)
    echo "$sample: $got"
    [[ $got == "$want" ]] || fail "$sample holds '$got', planned '$want'"
  done
}

# PKey blocks the daemon on SOCKET has written since it started (its status).
pkey_blocks_written() { ibsm_status "$1" .tables_total.pkey.written; }
