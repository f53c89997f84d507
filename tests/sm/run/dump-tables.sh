#!/usr/bin/env bash
# `ibsm dump` from a running daemon, judged by what infiniband-diags read
# back from the switches. `ibsm run` (as a daemon, engine ENGINE, max_vls
# VLS) brings a fresh ibsim fabric up; then, with the subnet up:
#   - `ibsm dump lfts` lists exactly the entries `dump_fts` reads back, entry
#     by entry on every switch (the entry at LinearFDBTop, which dump_fts
#     leaves out, read with smpdump: check_lfts_as_planned);
#   - `ibsm dump guid2lid` gives every port the LID ibnetdiscover shows, and
#     no port is missing (check_lids_as_planned);
#   - once every CA port has joined the IPoIB broadcast group as a full
#     member (sa-client, by proxy, as hosts' IPoIB would), `ibsm dump mfts`
#     lists exactly the MLIDs and ports of every switch that `dump_fts -M`
#     reads back, and at least one;
#   - `ibsm dump sl2vl` (VLS > 1) lists the tables `smpquery sl2vl` reads
#     from every switch output port and CA port it names, and none is missing;
#   - `ibsm route --previous dump_fts.txt` (dump_fts read by LftDumpParse)
#     finds no entry of the dry run's tables that differs;
#   - each dump equals, byte for byte, the dry run's file of the same name
#     (`ibsm route` with the same config and the dumped guid2lid; its
#     multicast plan assumes every CA port joined, as they did);
#   - `ibsm dump all -o DIR` writes those files, and a second time refuses
#     (exit 2) to replace them without --force, leaving them as they were.
# Prints the figures of each comparison.
#
#   run-with-ibsim.sh NETFILE -- dump-tables.sh path/to/ibsm path/to/sa-client ENGINE [VLS]
set -u
usage="usage: $0 path/to/ibsm path/to/sa-client ENGINE [VLS]"
IBSM=${1:?$usage}
CLIENT=${2:?$usage}
engine=${3:?$usage}
vls=${4:-1}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
here=$(pwd)
sock=$here/sm/control.sock

mkdir -p sm
cat >sm/ibsm.toml <<TOML
[routing]
engine = "$engine"
max_vls = $vls
[sm]
control_socket = "$sock"
TOML

# `ibsm dump` is no ibsim client: it talks to the daemon's socket only.
dump() { env -u LD_PRELOAD "$IBSM" dump --socket "$sock" "$@"; }

# ibroute -M / dump_fts -M / mfts.dump on stdin -> "0xSWITCHGUID16 0xMLID
# PORT,PORT..." sorted; port i is an 'x' in column 12 + 2i.
mft_entries() {
  awk '/^Multicast mlids/ { match($0, /guid 0x[0-9a-fA-F]+/); sw = tolower(substr($0, RSTART + 5, RLENGTH - 5)); next }
       /^0x[0-9a-fA-F]+ / && sw != "" { ports = "";
         for (c = 13; c <= length($0); c += 2) if (substr($0, c, 1) == "x") ports = ports "," (c - 13) / 2;
         if (ports != "") print sw, tolower($1), substr(ports, 2) }' | sort
}

start_ibsm sm "$(net_cas "$net" | head -n 1)" 10
if ! wait_for_status "$sock" .up 90; then
  fail "the subnet is not up within 90 s:"$'\n'"$(tail -n 5 sm/ibsm.log 2>/dev/null)"
  stop_pid "$ibsm_pid"
  finish "dump on $(basename "$net" .net)" sm/ibsm.log
  exit
fi
echo "ibsm: $(ibsm_status_json "$sock" | stats_summary)"

# Every CA port joins the IPoIB broadcast group, from the second CA.
quiet ibnetdiscover | ibnetdiscover_lids >ibnetdiscover.lids
awk '$3 == "ca" { print $1 }' ibnetdiscover.lids >ca.ports
SIM_HOST=$(net_cas "$net" | sed -n 2p) "$CLIENT" mcast join --mgid ff12:401b:ffff::ffff:ffff \
  --join-state 0x1 --ports ca.ports --retries 2 >join.out 2>&1 ||
  fail "the joins failed: $(grep -E '^(errors|timeouts|error) ' join.out | tr '\n' ' ')"
# The daemon programs joins in passes between sweeps: wait until its dump
# and the switches agree, each time read afresh.
mfts_agree() {
  dump mfts 2>/dev/null | mft_entries >held.mft
  quiet dump_fts -M >dump_fts_M.txt
  mft_entries <dump_fts_M.txt >live.mft
  [[ -s held.mft ]] && cmp -s held.mft live.mft
}
if wait_until 30 mfts_agree; then
  echo "MFTs match dump_fts -M: $(wc -l <held.mft) entries on $(cut -d' ' -f1 held.mft | sort -u | wc -l) switches, $(wc -l <ca.ports) members"
elif [[ ! -s held.mft ]]; then
  fail "ibsm dump mfts lists no entry after $(wc -l <ca.ports) ports joined"
else
  fail "ibsm dump mfts (<) differs from dump_fts -M (>):"$'\n'"$(diff held.mft live.mft | head -10)"
fi

dump all -o held 2>dump.err || fail "ibsm dump all -o held failed:"$'\n'"$(cat dump.err)"
dump lfts >stdout.lfts 2>/dev/null || fail "ibsm dump lfts failed"
cmp -s stdout.lfts held/opensm-lfts.dump || fail "ibsm dump lfts (stdout) differs from held/opensm-lfts.dump"

# LFTs and LIDs against what the switches and ports hold.
check_lfts_as_planned held
check_lids_as_planned held/guid2lid

# SL2VL against smpquery sl2vl of every switch output port and CA port the dump names.
if [[ $vls -gt 1 ]]; then
  if [[ ! -s held/sl2vl.dump ]]; then
    fail "ibsm dump sl2vl wrote no sl2vl.dump on $vls VLs:"$'\n'"$(cat dump.err)"
  else
    live_sl2vl held/sl2vl.dump held/guid2lid live.sl2vl
    sort held/sl2vl.dump >held.sl2vl
    missing=$(comm -23 held.sl2vl live.sl2vl)
    if [[ -n $missing ]]; then
      fail "$(wc -l <<<"$missing") of $(wc -l <held.sl2vl) tables of ibsm dump sl2vl differ from smpquery sl2vl:"$'\n'"$(head -5 <<<"$missing")"
    else
      echo "smpquery sl2vl shows all $(wc -l <held.sl2vl) tables of ibsm dump sl2vl ($(grep -c '^ca ' held.sl2vl) of them CA ports')"
    fi
  fi
fi

# Byte for byte the dry run's files, for the same config and LIDs.
"$IBSM" route -F sm/ibsm.toml -t "$net" --guid2lid held/guid2lid -o dry >dry.summary 2>&1 ||
  fail "the dry run failed:"$'\n'"$(cat dry.summary)"
for file in opensm-lfts.dump mfts.dump guid2lid sl2vl.dump; do
  if [[ ! -e dry/$file && ! -e held/$file ]]; then continue; fi
  if cmp -s "dry/$file" "held/$file"; then
    echo "ibsm dump's $file is the dry run's ($(wc -l <"held/$file") lines)"
  else
    fail "ibsm dump's $file differs from the dry run's:"$'\n'"$(diff "dry/$file" "held/$file" 2>&1 | head -10)"
  fi
done

# The same judged by the repository's dump parser (LftDumpParse): the dry
# run, whose tables are `ibsm dump lfts` (above), compared with dump_fts.
"$IBSM" route -F sm/ibsm.toml -t "$net" --guid2lid held/guid2lid --previous dump_fts.txt \
  --rebalance -o prev --json >prev.json 2>prev.err || fail "ibsm route --previous dump_fts.txt failed:"$'\n'"$(cat prev.err)"
read -r differ compared < <(jq -r '.previous.entries | "\(.differ) \(.compared)"' prev.json)
if [[ $differ == 0 && ${compared:-0} -gt 0 ]]; then
  echo "ibsm route --previous dump_fts.txt: 0 of $compared entries differ"
else
  fail "ibsm route --previous dump_fts.txt: ${differ:-?} of ${compared:-?} entries differ from ibsm dump lfts"
fi

# A second dump into the same directory replaces nothing without --force.
cp held/guid2lid kept.guid2lid
echo "# edited" >>held/guid2lid
dump all -o held >/dev/null 2>again.err
rc=$?
[[ $rc -eq 2 ]] || fail "ibsm dump all -o over existing files exited $rc, not 2"
grep -q -- '--force' again.err || fail "the refusal does not say how to replace:"$'\n'"$(cat again.err)"
[[ $(tail -n 1 held/guid2lid) == "# edited" ]] || fail "ibsm dump replaced held/guid2lid without --force"
dump all -o held --force >/dev/null 2>&1 || fail "ibsm dump all -o held --force failed"
cmp -s kept.guid2lid held/guid2lid || fail "--force did not replace held/guid2lid"

stop_pid "$ibsm_pid" || fail "ibsm did not stop on SIGTERM"
finish "ibsm dump on $(basename "$net" .net) ($engine, $vls VLs), $((SECONDS - start)) s" sm/ibsm.log
