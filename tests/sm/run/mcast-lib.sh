# Shared by the multicast run tests (mcast-*.sh), sourced after
# run-checks.sh: the wait for every port's LID, sa-client on the asker's
# node, the proxy join and the MFT read-back. They read $asker (the node
# sa-client runs on) and $CLIENT (path/to/sa-client).
# shellcheck shell=bash disable=SC2154  # asker, CLIENT: the sourcing test sets them

# Every port has a LID (ibnetdiscover.lids, which read_mfts reads too).
lids_ready() {
  quiet ibnetdiscover | ibnetdiscover_lids >ibnetdiscover.lids &&
    [[ -s ibnetdiscover.lids ]] && ! grep -qE ' (none|0x0000) ' ibnetdiscover.lids
}

# The value of KEY in sa-client's "key value" output FILE: value FILE KEY.
value() { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1"; }

client() { # OUTFILE ARGS...: sa-client on the asker's node
  local out=$1
  shift
  SIM_HOST=$asker "$CLIENT" "$@" >"$out" 2>"$out.err"
}

# Joins GUIDS by proxy, recording the answers in RECORD (mft-check.py's
# --members); a failed join is a failure of the test.
mcast_join() { # RECORD MGID STATE GUIDS... [-- extra sa-client args]
  local rec=$1 mgid=$2 state=$3
  shift 3
  local guids=() extra=()
  while [[ $# -gt 0 && $1 != -- ]]; do guids+=("$1"); shift; done
  [[ $# -gt 0 ]] && { shift; extra=("$@"); }
  client step.out mcast join --mgid "$mgid" --join-state "$state" --retries 2 \
    --port-guid "$(IFS=,; echo "${guids[*]}")" --record "$rec" "${extra[@]}" ||
    fail "join $mgid state $state: $(grep -E '^(errors|timeouts|error) ' step.out | tr '\n' ' ')"
}

# The MFTs of every switch in ibnetdiscover.lids, read with ibroute -M into
# mfts.txt (the fabric into fabric.txt). Four readers at a time: ibsim
# takes 10 clients, the SM and sa-client are two.
read_mfts() {
  quiet ibnetdiscover >fabric.txt
  rm -rf mft.d && mkdir mft.d
  awk '$3 == "sw" { print $2 }' ibnetdiscover.lids |
    SIM_HOST=$asker xargs -P 4 -I{} sh -c 'ibroute -M $(($1)) >"mft.d/$1" 2>/dev/null' _ {}
  cat mft.d/* >mfts.txt
}
