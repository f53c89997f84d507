# Checks shared by the `ibsm run` tests: each reads the fabric back with
# infiniband-diags (never trusting ibsm's own word) and compares it with the
# dry run (`ibsm route`) of the same net file. Sourced, not run:
#
#   source run-checks.sh                  # sets `failures`, defines the checks
#   route_dry_run "$IBSIM_NETFILE" dry    # dry/opensm-lfts.dump, dry/guid2lid
#   check_lids_as_planned dry/guid2lid    # ibnetdiscover: every port, that LID
#   check_lfts_as_planned dry             # dump_fts == the dry run, entry by entry
#   finish "what was checked"             # exit status: 0 when nothing failed
#
# Needs $IBSM (the ibsm binary) and the environment run-with-ibsim.sh gives
# (LD_PRELOAD, IBSIM_SOCKNAME, IBSIM_CONSOLE, IBSIM_NETFILE, the scratch
# directory with ibsim.log as the current directory).
#
# What ibsm did is read from its typed counters, never from its log: a
# daemon's `ibsm status --json` (ibsm_status, wait_for_status) and the JSON
# that `ibsm run --stats FILE` writes when it ends (stats, stats_hold), with
# jq. Logs are only shown to a human when a check fails.

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Prints the count of failures, and the ibsm logs named, when any check failed.
finish() {
  local what=$1
  shift
  if [[ $failures -ne 0 ]]; then
    local log
    for log in "$@"; do
      [[ -r $log ]] && { echo "--- $log ---" >&2; tail -n 40 "$log" >&2; }
    done
  fi
  echo "$what: $failures failures"
  [[ $failures -eq 0 ]]
}

# The diags print "ibwarn: sim_connect: attached..." from umad2sim on stderr.
quiet() { "$@" 2>/dev/null; }

# Runs CMD... once more when it crashed, i.e. exited by a signal: a status
# of 128 or more (128 + the signal; `timeout CMD` passes it on, and its own
# 124 is no crash). The diags crash now and then on a loaded machine:
# ibqueryerrors segfaults, printing nothing (seen with OpenSM as master too).
# Only for commands that just read, so that the second run reads what the
# first would have. CMD's output is held until it ends and only the last
# run's is printed (a run cut short leaves nothing half written); a crash is
# noted on stderr, with CMD's. Returns the last run's status.
once_more_on_crash() {
  local held rc
  held=$(mktemp) || return 1
  "$@" >"$held"
  rc=$?
  if ((rc >= 128)); then
    echo "$* crashed (exit $rc); once more" >&2
    "$@" >"$held"
    rc=$?
  fi
  cat "$held"
  rm -f "$held"
  return "$rc"
}

# Sends one line to ibsim's console.
console() { printf '%s\n' "$1" >"$IBSIM_CONSOLE"; }

# Waits until FILE has a line matching the extended regex PATTERN, or SECONDS
# pass (then returns 1). It looks every 10 ms, so it returns within a few
# milliseconds of the line: the unlink test depends on that.
wait_for_line() {
  local file=$1 pattern=$2 seconds=$3
  wait_until "$seconds" grep -qE "$pattern" "$file"
}

# Runs COMMAND every 10 ms until it succeeds (returns 0) or SECONDS pass (1).
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" 2>/dev/null; do
    ((SECONDS < deadline)) || return 1
    sleep 0.01
  done
}

# Node names of a net file ("Switch 8 "name"", "Hca 2 "name"" headers).
net_nodes() { sed -n 's/^\(Switch\|Hca\|Ca\)[[:space:]]\+[0-9]\+[[:space:]]\+"\([^"]*\)".*/\2/p' "$1"; }

# Link ends of a net file: each cable once per end, whether the file lists it
# from one end or both.
net_link_ends() {
  awk '/^(Switch|Hca|Ca|Rt)[ \t]/ { split($0, q, "\""); node = q[2]; next }
       /^\[[0-9]+\]/ { split($0, q, "\""); lp = $1; gsub(/[^0-9]/, "", lp);
                       rp = q[3]; sub(/^[^[]*\[/, "", rp); sub(/\].*/, "", rp);
                       a = node "[" lp "]"; b = q[2] "[" rp "]";
                       seen[a < b ? a " " b : b " " a] = 1 }
       END { n = 0; for (k in seen) n++; print 2 * n }' "$1"
}

# The net file without the cable NODE[PORT] (both of its lines).
net_without_cable() {
  local file=$1 node=$2 port=$3
  awk -v node="$node" -v port="$port" '
    /^(Switch|Hca|Ca|Rt)[ \t]/ { split($0, q, "\""); cur = q[2] }
    /^\[[0-9]+\]/ { split($0, q, "\""); lp = $1; gsub(/[^0-9]/, "", lp);
                    rp = q[3]; sub(/^[^[]*\[/, "", rp); sub(/\].*/, "", rp);
                    if ((cur == node && lp == port) || (q[2] == node && rp == port)) next }
    { print }' "$file"
}

# "NODE PORT" at the far end of the cable NODE[PORT] in a net file.
net_far_end() {
  awk -v n="$2" -v p="$3" '/^(Switch|Hca|Ca|Rt)[ \t]/ { split($0, q, "\""); cur = q[2] }
    /^\[[0-9]+\]/ { split($0, q, "\""); lp = $1; gsub(/[^0-9]/, "", lp);
                    if (cur == n && lp == p) { rp = q[3]; sub(/^[^[]*\[/, "", rp); sub(/\].*/, "", rp); print q[2], rp } }' "$1"
}

# `ibsm route` of a net file into DIR; fails the test when it does not route
# every pair (--check).
route_dry_run() {
  local net=$1 dir=$2
  shift 2
  mkdir -p "$dir"
  "$IBSM" route --topology "$net" --out "$dir" --check "$@" >"$dir/summary" 2>&1 ||
    fail "dry run of $net failed or left pairs unrouted:"$'\n'"$(cat "$dir/summary")"
}

# ibnetdiscover on stdin -> "0xPORTGUID16 0xLID4 TYPE" (TYPE sw or ca) for
# every port that carries a LID (switch port 0, every CA port), sorted. A port
# without a LID comes out as LID "none".
ibnetdiscover_lids() {
  awk 'function g16(g) { g = tolower(g); return "0x" substr("0000000000000000", 1, 16 - length(g)) g }
       /^switchguid=0x/ { sw = $0; sub(/^switchguid=0x/, "", sw); sub(/\(.*/, "", sw); next }
       /^Switch/ && sw != "" { n = "none";
         if (match($0, /base port 0 lid [0-9]+/)) { s = substr($0, RSTART, RLENGTH); sub(/.* /, "", s); n = sprintf("0x%04x", s) }
         print g16(sw), n, "sw"; sw = ""; next }
       /^\[[0-9]+\]\([0-9a-fA-F]+\)/ { g = $0; sub(/^\[[0-9]+\]\(/, "", g); sub(/\).*/, "", g); n = "none";
         if (match($0, /# lid [0-9]+/)) { s = substr($0, RSTART, RLENGTH); sub(/.* /, "", s); n = sprintf("0x%04x", s) }
         print g16(g), n, "ca" }' | sort
}

# ibnetdiscover on stdin -> "0xNODEGUID16 PORT LID" for every CA or router
# port that has a LID: the node and port a `ca`/`router` line of sl2vl.dump
# names, and the LID smpquery reaches it by.
end_port_lids() {
  awk 'function g16(g) { g = tolower(g); return "0x" substr("0000000000000000", 1, 16 - length(g)) g }
       /^(caguid|rtguid)=0x/ { node = $0; sub(/^[a-z]+=0x/, "", node); next }
       /^switchguid=/ { node = ""; next }
       /^\[[0-9]+\]\([0-9a-fA-F]+\)/ && node != "" { p = $0; sub(/^\[/, "", p); sub(/\].*/, "", p);
         if (match($0, /# lid [0-9]+/)) { s = substr($0, RSTART, RLENGTH); sub(/.* /, "", s); if (s > 0) print g16(node), p, s } }' | sort
}

# live_sl2vl DUMP GUID2LID OUT: the tables DUMP (an sl2vl.dump) names, as
# `smpquery sl2vl` reads them back, in DUMP's line form, sorted into OUT:
# every input port of each switch output port a `switch` line names (the
# switch's LID from GUID2LID), and the one table of each CA or router port
# a `ca`/`router` line names (its LID from ibnetdiscover, whose end ports
# it leaves in ./end-port.lids).
live_sl2vl() {
  local dump=$1 guid2lid=$2 out=$3 guid port lid kind
  : >"$out"
  while read -r guid port; do
    lid=$(awk -v g="$guid" 'tolower($1) == g { print $2 }' "$guid2lid")
    [[ -n $lid ]] || { fail "switch $guid of $dump has no LID in $guid2lid"; continue; }
    quiet smpquery sl2vl "$((lid))" "$port" |
      sed -nE 's/^ports: in +([0-9]+), out +([0-9]+): \|(.*)\|$/\1 \2 \3/p' | tr '|' ' ' |
      awk -v g="$guid" '{ printf "switch %s in_port %d out_port %d :", g, $1, $2;
                          for (i = 3; i <= NF; i++) printf " %d", $i; print "" }' >>"$out"
  done < <(awk '$1 == "switch" { print tolower($2), $6 }' "$dump" | sort -u)
  if grep -qE '^(ca|router) ' "$dump"; then
    quiet ibnetdiscover | end_port_lids >end-port.lids
    while read -r kind guid port; do
      lid=$(awk -v g="$guid" -v p="$port" '$1 == g && $2 == p { print $3 }' end-port.lids)
      [[ -n $lid ]] || { fail "$kind $guid port $port of $dump has no LID on the fabric"; continue; }
      quiet smpquery sl2vl "$lid" |
        sed -nE 's/^ports: in +0, out +0: \|(.*)\|$/\1/p' | tr '|' ' ' |
        awk -v k="$kind" -v g="$guid" -v p="$port" '{ printf "%s %s port %d :", k, g, p;
                                                     for (i = 1; i <= NF; i++) printf " %d", $i; print "" }' >>"$out"
    done < <(awk '$1 == "ca" || $1 == "router" { print $1, tolower($2), $4 }' "$dump")
  fi
  sort -o "$out" "$out"
}

# guid2lid (OpenSM's format: "0xGUID 0xBASELID 0xTOPLID") -> "0xGUID16 0xLID4", sorted.
guid2lid_lids() { awk 'NF >= 2 { print tolower($1), tolower($2) }' "$1" | sort; }

# Every port ibnetdiscover shows has the LID of GUID2LID, and no other port
# exists. Leaves the ibnetdiscover capture in ./ibnetdiscover.lids.
check_lids_as_planned() {
  local guid2lid=$1
  quiet ibnetdiscover | ibnetdiscover_lids >ibnetdiscover.lids
  [[ -s ibnetdiscover.lids ]] || { fail "ibnetdiscover shows no ports"; return; }
  grep -q ' none ' ibnetdiscover.lids &&
    fail "ports without a LID:"$'\n'"$(grep ' none ' ibnetdiscover.lids | head)"
  local diff
  diff=$(diff <(guid2lid_lids "$guid2lid") <(cut -d' ' -f1,2 ibnetdiscover.lids)) ||
    fail "LIDs on the fabric (>) differ from $guid2lid (<):"$'\n'"$(head -20 <<<"$diff")"
}

# Every cabled port is Active per iblinkinfo, and there are as many of them
# as the net file NET has link ends (minus MISSING ends of cables cut since).
check_links_active() {
  local net=$1 missing=${2:-0}
  local links expected
  links=$(quiet iblinkinfo | grep '==(' | grep -v 'Down/ *Polling')
  expected=$(($(net_link_ends "$net") - missing))
  local active
  active=$(grep -c 'Active/ *LinkUp' <<<"$links")
  [[ $active -eq $expected ]] ||
    fail "iblinkinfo shows $active Active link ends, the fabric has $expected:"$'\n'"$(grep -v 'Active/' <<<"$links" | head)"
}

# dump_fts / opensm-lfts.dump on stdin -> "0xSWITCHGUID16 0xLID4 PORT", sorted.
lft_entries() {
  awk '/^Unicast lids/ { match($0, /guid 0x[0-9a-fA-F]+/); sw = tolower(substr($0, RSTART + 5, RLENGTH - 5)); next }
       /^0x[0-9a-fA-F]+ [0-9]+ / { print sw, tolower($1), $2 + 0 }' | sort
}

# LFT entry LID of the switch with LID SWLID, read with smpdump (the tools do
# not print the entry at LinearFDBTop on some versions).
lft_entry() {
  local swlid=$1 lid=$2
  local block=$((lid / 64)) index=$((lid % 64))
  quiet smpdump "$swlid" 0x19 "$block" | grep -E '^[0-9a-f]{4}( [0-9a-f]{4})+$' | tr -d ' \n' |
    cut -c $((2 * index + 1))-$((2 * index + 2))
}

# The LFTs on the switches (dump_fts) are those of the dry run in DRY,
# entry by entry. Leaves the dump in ./dump_fts.txt.
check_lfts_as_planned() {
  local dry=$1
  quiet dump_fts >dump_fts.txt
  lft_entries <dump_fts.txt >live.lft
  lft_entries <"$dry/opensm-lfts.dump" >dry.lft
  [[ -s live.lft ]] || { fail "dump_fts shows no LFT entries"; return; }
  local extra
  extra=$(comm -13 dry.lft live.lft)
  [[ -z $extra ]] && extra=$(comm -23 dry.lft live.lft | while read -r sw lid out; do
    # An entry dump_fts did not print: read it from the switch itself.
    local swlid
    swlid=$(awk -v g="$sw" 'tolower($1) == g { print $2 }' "$dry/guid2lid")
    local held
    held=$(lft_entry "$((swlid))" "$((lid))")
    [[ -n $held && $((16#$held)) -eq $out ]] || echo "$sw $lid $out (switch holds ${held:-?})"
  done)
  [[ -z $extra ]] || {
    fail "LFTs on the switches differ from the dry run:"$'\n'"$(diff dry.lft live.lft | head -20)"
    return
  }
  echo "LFTs match the dry run: $(wc -l <dry.lft) entries on $(cut -d' ' -f1 dry.lft | sort -u | wc -l) switches"
}

# Every switch forwards every LID of GUID2LID somewhere (per dump_fts.txt,
# left by check_lfts_as_planned).
check_every_lid_routed() {
  local guid2lid=$1
  local lids short
  lids=$(guid2lid_lids "$guid2lid" | wc -l)
  short=$(lft_entries <dump_fts.txt | cut -d' ' -f1 | uniq -c | awk -v n="$lids" '$1 != n')
  [[ -z $short ]] || fail "switches forwarding fewer than the $lids LIDs (count, GUID):"$'\n'"$short"
}

# No switch table in ./dump_fts.txt (left by check_lfts_as_planned) sends
# anything into SWITCH[PORT], a port whose cable is gone.
check_nothing_forwards_into() {
  local sw=$1 port=$2
  local table into
  table=$(awk -v n="$sw" '/^Unicast lids/ { here = index($0, "(" n "):") > 0; next }
    here && /^0x[0-9a-f]+ [0-9]+ /' dump_fts.txt)
  [[ -n $table ]] || { fail "dump_fts shows no table for \"$sw\""; return; }
  into=$(awk -v p="$port" '$2 + 0 == p' <<<"$table")
  [[ -z $into ]] || fail "\"$sw\" still forwards into its dead port $port:"$'\n'"$(head -5 <<<"$into")"
}

# ibtracert walks a few CA->CA and CA->switch routes through the LFTs
# (needs ./ibnetdiscover.lids from check_lids_as_planned).
check_traces() {
  local cas switches
  mapfile -t cas < <(awk '$3 == "ca" { print $2 }' ibnetdiscover.lids | sort)
  mapfile -t switches < <(awk '$3 == "sw" { print $2 }' ibnetdiscover.lids | sort)
  local n=${#cas[@]} m=${#switches[@]}
  [[ $n -ge 2 && $m -ge 1 ]] || { fail "too few LIDs to trace ($n CA, $m switch)"; return; }
  local pairs=("${cas[0]} ${cas[n - 1]}" "${cas[n - 1]} ${cas[0]}" "${cas[n / 2]} ${cas[1]}"
    "${cas[0]} ${switches[m - 1]}" "${cas[n - 1]} ${switches[0]}" "${cas[n / 3]} ${switches[m / 2]}")
  local pair from to out
  for pair in "${pairs[@]}"; do
    read -r from to <<<"$pair"
    from=$((from)) to=$((to))
    out=$(quiet ibtracert "$from" "$to")
    grep -qE "^To (ca|switch) .* lid $to-" <<<"$out" || fail "ibtracert $from $to does not arrive:"$'\n'"$out"
  done
}

# --- Two SMs on one fabric (failover-*, handover-*, light-sweep-* tests) ---

# Port GUID (0x...) of the CA port the node NODE's clients use.
node_port_guid() { SIM_HOST=$1 quiet smpquery nodeinfo -D 0 | sed -n 's/^PortGuid:\.*//p'; }

# "GUID LID STATE" of the master as sminfo asked from node ASKER names it
# ("0x1000ff 208 SMINFO_MASTER"); nothing when no SM answers.
sminfo_from() {
  SIM_HOST=$1 quiet sminfo |
    sed -nE 's/^sminfo: sm lid ([0-9]+) sm guid (0x[0-9a-f]+),.* state [0-9]+ (SMINFO_[A-Z]+).*/\2 \1 \3/p'
}

# Waits until sminfo from ASKER names GUID as SMINFO_MASTER, or SECONDS pass.
wait_sminfo_master() {
  local asker=$1 guid=$2 seconds=$3
  sminfo_is() { local g _ s; read -r g _ s < <(sminfo_from "$1"); [[ -n $g && $((g)) -eq $(($2)) && $s == SMINFO_MASTER ]]; }
  wait_until "$seconds" sminfo_is "$asker" "$guid"
}

# The SM_Key every SM of a two-SM test is given. It must be the same for all:
# OpenSM ignores the SMInfo of an SM whose key differs from its own (ERR 2F18,
# "non-matching sm_key") and becomes a second master. The defaults agree
# (0x1 for both; interop-opensm-defaults.sh); a key of our own shows that a
# configured key works both ways.
two_sm_key=0x0000000000c0ffee

# An OpenSM config in FILE: SM-to-SM polling every POLL_MS with RETRIES
# retries, light sweeps every SWEEP seconds, its log flushed line by line (it
# is read while OpenSM runs) and the wide SMP window of the benchmarks.
# POLL_MS or RETRIES "default": the option left out, the SM's own default.
opensm_conf() {
  local file=$1 poll_ms=${2:-1000} retries=${3:-2} sweep=${4:-10}
  {
    [[ $poll_ms == default ]] || echo "sminfo_polling_timeout $poll_ms"
    [[ $retries == default ]] || echo "polling_retry_number $retries"
    printf '%s\n' "sweep_interval $sweep" "sm_key $two_sm_key" 'force_log_flush TRUE' \
      'max_wire_smps 64' 'max_wire_smps2 64'
  } >"$file"
}

# An ibsm daemon config in FILE with the same meanings and SM_Key, and its own control
# socket (DIR/control.sock) so that tests running side by side never meet.
ibsm_conf() {
  local file=$1 dir=$2 poll_ms=${3:-1000} retries=${4:-2} sweep=${5:-10}
  {
    printf '%s\n' '[sm]' "sweep_interval = $sweep"
    [[ $poll_ms == default ]] || echo "polling_timeout_ms = $poll_ms"
    [[ $retries == default ]] || echo "polling_retries = $retries"
    printf '%s\n' "sm_key = \"$two_sm_key\"" "control_socket = \"$dir/control.sock\""
  } >"$file"
}

# Starts OpenSM on node NODE with priority PRIO in the fresh directory DIR
# (config DIR/opensm.conf, which opensm_conf may have written; log DIR/log).
# Sets opensm_pid.
start_opensm() {
  local dir=$1 node=$2 prio=$3
  mkdir -p "$dir"
  [[ -r $dir/opensm.conf ]] || opensm_conf "$dir/opensm.conf"
  SIM_HOST=$node OSM_TMP_DIR=$dir OSM_CACHE_DIR=$dir \
    opensm -F "$dir/opensm.conf" -f "$dir/log" -p "$prio" >"$dir/stdout" 2>&1 &
  opensm_pid=$!
}

# Starts `ibsm run` on node NODE with priority PRIO in DIR (config
# DIR/ibsm.toml, which ibsm_conf may have written; log DIR/ibsm.log, state in
# DIR/state, its final status in DIR/stats.json). Sets ibsm_pid.
start_ibsm() {
  local dir=$1 node=$2 prio=$3
  mkdir -p "$dir"
  [[ -r $dir/ibsm.toml ]] || ibsm_conf "$dir/ibsm.toml" "$(cd "$dir" && pwd)"
  SIM_HOST=$node "$IBSM" run -F "$dir/ibsm.toml" --priority "$prio" --state-dir "$dir/state" \
    --log-file "$dir/ibsm.log" --stats "$dir/stats.json" >"$dir/stdout" 2>"$dir/stderr" &
  ibsm_pid=$!
}

# Sends SIGNAL to PID and waits up to SECONDS for it to exit; returns its
# exit status (or 124 after a SIGKILL when it would not stop).
stop_pid() {
  local pid=$1 signal=${2:-TERM} seconds=${3:-5}
  kill -"$signal" "$pid" 2>/dev/null
  if ! wait_until "$seconds" eval "! kill -0 $pid"; then
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 124
  fi
  wait "$pid" 2>/dev/null
}

# Counts the lines of FILE matching the extended regex PATTERN.
count_lines() { grep -cE "$2" "$1" 2>/dev/null || true; }

# ibnetdiscover.lids (from check_lids_as_planned or ibnetdiscover_lids) as a
# guid2lid file, for fabrics an SM other than ibsm has numbered.
lids_as_guid2lid() { awk '$2 != "none" { print $1, $2, $2 }' "$1"; }

# Every switch reaches every LID: walks the tables of dump_fts from every
# switch to every LID the fabric (ibnetdiscover) carries, port by port along
# the cables, and fails on a missing entry, a dead end, a loop or a wrong
# arrival. A CA's routes start at its switch, so this covers every pair.
# Leaves ./walk.fabric, ./walk.fts and ./walk.out behind.
check_all_pairs_walk() {
  quiet ibnetdiscover >walk.fabric
  quiet dump_fts >walk.fts
  # dump_fts stops one short of LinearFDBTop: read that entry from each switch.
  local extra=walk.top guid swlid top port
  : >"$extra"
  awk 'function g16(x) { x = tolower(x); return "0x" substr("0000000000000000", 1, 16 - length(x)) x }
       /^switchguid=0x/ { s = $0; sub(/^switchguid=0x/, "", s); sub(/\(.*/, "", s); s = g16(s) }
       /^Switch/ && match($0, /base port 0 lid [0-9]+/) { l = substr($0, RSTART, RLENGTH); sub(/.* /, "", l); print s, l }' \
    walk.fabric | sort >walk.swlids
  awk '/^Unicast lids/ { match($0, /guid 0x[0-9a-fA-F]+/); g = tolower(substr($0, RSTART + 5, RLENGTH - 5));
                         match($0, /-0x[0-9a-fA-F]+\]/); print g, substr($0, RSTART + 1, RLENGTH - 2) }' walk.fts |
    sort >walk.tops
  while read -r guid swlid top; do
    port=$(lft_entry "$swlid" "$((top))")
    [[ -n $port ]] && echo "$guid $((top)) $((16#$port))" >>"$extra"
  done < <(join walk.swlids walk.tops)
  awk -v extra="$extra" '
    function hex(x,  i, n) { x = tolower(x); sub(/^0x/, "", x); for (i = 1; i <= length(x); i++) n = n * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1; return n + 0 }
    function g16(x) { x = tolower(x); sub(/^0x/, "", x); return "0x" substr("0000000000000000", 1, 16 - length(x)) x }
    BEGIN { while ((getline line < extra) > 0) { split(line, f, " "); lft[f[1], f[2] + 0] = f[3] + 0 } }
    FNR == 1 { file++ }
    file == 1 && /^switchguid=0x/ { s = $0; sub(/^switchguid=0x/, "", s); sub(/\(.*/, "", s); cur = g16(s); next }
    file == 1 && /^Switch/ { if (match($0, /base port 0 lid [0-9]+/)) { l = substr($0, RSTART, RLENGTH); sub(/.* /, "", l); swlid[cur] = l + 0; lids[l + 0] = 1 }; next }
    file == 1 && /^(Ca|Hca)/ { cur = ""; next }
    file == 1 && cur != "" && /^\[[0-9]+\]/ {
      p = $1; gsub(/[^0-9]/, "", p); split($0, q, "\""); r = q[2];
      if (r ~ /^S-/) { link[cur, p + 0] = g16(substr(r, 3)) }
      else if (match($0, /# "[^"]*" lid [0-9]+/)) { l = substr($0, RSTART, RLENGTH); sub(/.* /, "", l); link[cur, p + 0] = "ca " l; lids[l + 0] = 1 }
      next }
    file == 2 && /^Unicast lids/ { match($0, /guid 0x[0-9a-fA-F]+/); sw = g16(substr($0, RSTART + 5, RLENGTH - 5)); tables[sw] = 1; next }
    file == 2 && /^0x[0-9a-fA-F]+ [0-9]+ / { lft[sw, hex($1)] = $2 + 0; next }
    END {
      # Per destination, a switch once walked is known good or bad: later
      # walks stop there (a radix-24 tree has 3M switch-to-LID routes).
      for (d in lids) {
        d += 0
        delete known
        for (s in swlid) {
          if (!(s in tables)) { if (!(s in untabled)) { untabled[s] = 1; bad++; print "no table for switch " s }; continue }
          walks++; cur = s; n = 0; res = 0
          for (h = 0; h < 64 && res == 0; h++) {
            if (cur in known) { res = known[cur]; break }
            path[n++] = cur
            if (swlid[cur] == d) { res = 1; break }
            if (!((cur, d) in lft)) { res = -1; why = "no entry at " cur; break }
            p = lft[cur, d]
            if (p == 0 || !((cur, p) in link)) { res = -1; why = "port " p " of " cur " leads nowhere"; break }
            nx = link[cur, p]
            if (nx ~ /^ca /) { res = substr(nx, 4) + 0 == d ? 1 : -1; why = "arrives at CA LID " substr(nx, 4); break }
            cur = nx
          }
          if (res == 0) { res = -1; why = "loop" }
          for (i = 0; i < n; i++) known[path[i]] = res
          if (res != 1) { bad++; if (bad <= 10) printf "switch %s to LID %d: %s\n", s, d, why }
        }
      }
      printf "walked %d switch-to-LID routes, %d broken\n", walks, bad + 0
    }' walk.fabric walk.fts >walk.out
  tail -n 1 walk.out
  grep -q ' 0 broken$' walk.out && ! grep -q '^walked 0 ' walk.out ||
    fail "routes broken:"$'\n'"$(head -10 walk.out)"
}

# dump_fts on stdin -> "0xSWITCHGUID16 BLOCK HASH" per 64-entry LFT block, to
# count the blocks two dumps differ in (changed_blocks).
lft_blocks() {
  lft_entries | awk 'function hex(x,  i, n) { x = tolower(x); sub(/^0x/, "", x); for (i = 1; i <= length(x); i++) n = n * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1; return n + 0 }
                     { b = int(hex($2) / 64); k = $1 " " b; v[k] = v[k] " " $2 ":" $3 }
                     END { for (k in v) print k, v[k] }' | sort
}

# Number of 64-entry blocks in which the block lists A and B (lft_blocks) differ.
changed_blocks() { comm -3 "$1" "$2" | awk '{ print $1, $2 }' | sort -u | wc -l; }

# The lines of FILE after its first MARK lines (MARK: a `wc -l` taken earlier).
log_since() { tail -n +$(($2 + 1)) "$1" 2>/dev/null; }

# Waits until a line after the first MARK lines of FILE matches PATTERN.
wait_for_line_since() {
  local file=$1 mark=$2 pattern=$3 seconds=$4
  has_line_since() { log_since "$1" "$2" | grep -qE "$3"; }
  wait_until "$seconds" has_line_since "$file" "$mark" "$pattern"
}

# "state: X" of a running ibsm, asked over its control socket SOCKET.
ibsm_state() { "$IBSM" status --socket "$1" 2>/dev/null | sed -n 's/^state: *//p' | head -n 1; }

# `ibsm status --json` of the daemon on SOCKET. The control command is no
# ibsim client: without umad2sim it starts faster and takes none of ibsim's
# ten client slots.
ibsm_status_json() { env -u LD_PRELOAD "$IBSM" status --json --socket "$1" 2>/dev/null; }
# The jq FILTER of that status, raw: `ibsm_status sm/control.sock .state`.
ibsm_status() { ibsm_status_json "$1" | jq -r "$2"; }
# Whether the jq FILTER of that status holds (is true). No answer (no
# daemon yet) is false: jq 1.6 -e says true on empty input.
status_holds() {
  local json
  json=$(ibsm_status_json "$1") && [[ -n $json ]] && jq -e "$2" >/dev/null 2>&1 <<<"$json"
}
# Waits until the jq FILTER of the status of SOCKET holds, or SECONDS pass.
wait_for_status() { wait_until "$3" status_holds "$1" "$2"; }
# The jq FILTER of a --stats FILE, raw; stats_hold: whether it holds.
stats() { jq -r "$2" "$1"; }
stats_hold() { [[ -s $1 ]] && jq -e "$2" "$1" >/dev/null 2>&1; }
# LFT blocks the daemon on SOCKET has written since it started (every sweep).
lft_blocks_written() { ibsm_status "$1" .tables_total.lft.written; }
# One line of what a --stats file or a status says: how it ended, sweeps, MADs.
stats_summary() {
  jq -r '"\(.exit.reason // .state): up \(.up), \(.sweeps) sweeps (\(.sweeps_by_kind.heavy) heavy, \(.sweeps_by_kind.takeover) takeover, \(.sweeps_by_kind.reroute) reroute), \(.switches) switches, \(.ca_ports) CA ports, \(.routed_pairs) pairs routed by \(.engine), \(.mads_sent) MADs"'
}

# CA node names of a net file, in file order (the nodes an SM or a diag can run on).
net_cas() { sed -n 's/^\(Hca\|Ca\)[[:space:]]\+[0-9]\+[[:space:]]\+"\([^"]*\)".*/\2/p' "$1"; }
