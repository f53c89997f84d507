#!/usr/bin/env bash
# `ibsm path` agrees hop by hop with ibtracert. `ibsm run` brings the fabric
# up as a daemon (with ENGINE and up to 4 VLs when given); then for a sample
# of pairs -- CA to CA, CA to switch, switch to CA, by LID -- the route
# `ibsm path --json` prints is compared with `ibtracert SLID DLID`, every
# hop's out port, the next node's GUID (a CA's port GUID) and its in port:
#   - against the daemon (its held tables);
#   - offline, `ibsm path --topology` on the same net file (routed here as
#     the dry run routes it, which equals the live tables) and `--dir` on a
#     dry run's output: the same hops, and the same VLs as the daemon's;
#   - every pair is delivered; a LID no port owns is refused (exit 2 offline).
# Prints how many pairs were compared.
#
#   run-with-ibsim.sh NETFILE -- path-vs-ibtracert.sh path/to/ibsm [ENGINE]
set -u
IBSM=${1:?usage: $0 path/to/ibsm [ENGINE]}
engine=${2:-}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
here=$(pwd)

{
  printf '[sm]\ncontrol_socket = "%s"\nstate_dir = "%s"\n' "$here/control.sock" "$here/state"
  [[ -n $engine ]] && printf '[routing]\nengine = "%s"\nmax_vls = 4\n' "$engine"
} >ibsm.toml
sock=$here/control.sock
# The client side of ibsm path never touches the fabric: no umad2sim.
ibsm_path() { env -u LD_PRELOAD "$IBSM" path "$@" 2>>path-stderr.txt; }

route_dry_run "$net" dry -F ibsm.toml
"$IBSM" run -F ibsm.toml --log-file ibsm.log --stats stats.json 2>stderr.txt &
pid=$!
if ! wait_for_status "$sock" .up 90; then
  fail "the subnet is not up within 90 s: $(ibsm_status_json "$sock" | head -c 400)"
  stop_pid $pid
  finish "path vs ibtracert" ibsm.log
  exit
fi
check_lids_as_planned dry/guid2lid

# "OUT GUID IN" per hop, from ibtracert's "[OUT] -> TYPE port {GUID}[IN] lid ..." lines.
tracert_hops() {
  sed -nE 's/^\[([0-9]+)\] -> [a-z]+ port \{(0x[0-9a-f]+)\}\[([0-9]+)\].*/\1 \2 \3/p'
}
# The same from `ibsm path --json`: each hop's out port, then the next hop's
# GUID (the destination's port GUID when it is a CA) and in port.
path_hops() {
  jq -r '. as $p | [range(0; (.hops | length) - 1)] | .[] as $i
         | $p.hops[$i + 1] as $n
         | "\($p.hops[$i].out_port) \(if $n.type == "switch" then $n.guid else $p.to.port_guid end) \($n.in_port)"'
}
path_vls() { jq -r '[.hops[] | .vl] | map(tostring) | join(" ")'; }
g16() { printf '0x%016x' "$(($1))"; }

mapfile -t cas < <(awk '$3 == "ca" { print $2 }' ibnetdiscover.lids)
mapfile -t sws < <(awk '$3 == "sw" { print $2 }' ibnetdiscover.lids)
n=${#cas[@]}
m=${#sws[@]}
pairs=()
# Every 8th CA to a CA far away in LID order and to its neighbour; a few
# switches as source and as destination (about 40 pairs: ibtracert costs a
# few SMPs per hop, and every pair is asked three ways).
for ((i = 0; i < n; i += n / 16 > 0 ? n / 16 : 1)); do
  pairs+=("${cas[i]} ${cas[(i * 7 + n / 2) % n]}" "${cas[i]} ${cas[(i + 1) % n]}")
done
for ((i = 0; i < m; i += m / 4 + 1)); do
  pairs+=("${cas[(i * 5) % n]} ${sws[i]}" "${sws[i]} ${cas[(i * 3 + 1) % n]}")
done

compared=0
vl_hops=0
for pair in "${pairs[@]}"; do
  read -r from to <<<"$pair"
  from=$((from)) to=$((to))
  [[ $from -eq $to ]] && continue
  trace=$(quiet ibtracert "$from" "$to" | tracert_hops)
  [[ -n $trace ]] || { fail "ibtracert $from $to shows no hop"; continue; }
  live=$(ibsm_path "$from" "$to" --json --socket "$sock") ||
    { fail "ibsm path $from $to (daemon) exited $?: $live $(tail -1 path-stderr.txt)"; continue; }
  offline=$(ibsm_path "$from" "$to" --json -t "$net" -F ibsm.toml) ||
    { fail "ibsm path $from $to --topology exited $?: $(tail -1 path-stderr.txt)"; continue; }
  fromdir=$(ibsm_path "$from" "$to" --json -t "$net" --dir dry -F ibsm.toml) ||
    { fail "ibsm path $from $to --dir exited $?: $(tail -1 path-stderr.txt)"; continue; }
  [[ $(path_hops <<<"$live") == "$trace" ]] ||
    fail "ibsm path $from $to (daemon) differs from ibtracert:"$'\n'"$(diff <(echo "$trace") <(path_hops <<<"$live"))"
  [[ $(path_hops <<<"$offline") == "$trace" ]] ||
    fail "ibsm path $from $to --topology differs from ibtracert:"$'\n'"$(diff <(echo "$trace") <(path_hops <<<"$offline"))"
  [[ $(path_hops <<<"$fromdir") == "$trace" ]] ||
    fail "ibsm path $from $to --dir differs from ibtracert"
  [[ $(path_vls <<<"$live") == "$(path_vls <<<"$offline")" ]] ||
    fail "ibsm path $from $to: VLs of the daemon ($(path_vls <<<"$live")) and offline ($(path_vls <<<"$offline")) differ"
  vl_hops=$((vl_hops + $(jq '[.hops[] | select(.vl != null and .vl > 0)] | length' <<<"$live")))
  # "LID IN OUT VL" of each switch hop, for the SL2VL check below.
  jq -r '.hops[] | select(.type == "switch" and .in_port != null and .out_port != null and .vl != null)
         | "\(.lid) \(.in_port) \(.out_port) \(.vl)"' <<<"$live" >>switch-vls.txt
  compared=$((compared + 1))
done
echo "compared $compared pairs with ibtracert (daemon, --topology, --dir); $vl_hops hops on a VL above 0"
[[ $compared -ge 20 ]] || fail "only $compared pairs compared"
if [[ $engine == dragonfly ]]; then
  [[ $vl_hops -gt 0 ]] || fail "no sampled dragonfly route climbs a VL: the SL2VL tables were not read"
  # The VL of SL 0 each hop names is what the switch's SL2VL table holds for
  # that in/out pair (smpquery sl2vl LID OUT: "ports: in  I, out  O: | 0| 1|...|").
  checked=0
  while read -r lid out; do
    quiet smpquery sl2vl "$lid" "$out" |
      sed -nE 's/^ports: in +([0-9]+), out +([0-9]+): \| *([0-9]+)\|.*/\1 \3/p' >sl2vl.now
    while read -r in vl; do
      held=$(awk -v i="$in" '$1 == i { print $2 }' sl2vl.now)
      [[ $held == "$vl" ]] || fail "switch LID $lid in $in out $out: ibsm path says VL$vl, the switch maps SL 0 to VL${held:-?}"
      checked=$((checked + 1))
    done < <(awk -v l="$lid" -v o="$out" '$1 == l && $3 == o { print $2, $4 }' switch-vls.txt | sort -u)
  done < <(awk '{ print $1, $3 }' switch-vls.txt | sort -u | head -30)
  echo "SL2VL: $checked switch hops' VLs read back with smpquery sl2vl"
  [[ $checked -gt 0 ]] || fail "no switch hop's VL was checked against smpquery sl2vl"
fi

# Names resolve as LIDs do; an unknown LID is bad input.
first=$(awk -v l="${cas[0]}" '$2 == l { print $1 }' ibnetdiscover.lids)
byguid=$(ibsm_path "$first" "$((${cas[1]}))" --json --socket "$sock" | path_hops)
bylid=$(ibsm_path "$((${cas[0]}))" "$((${cas[1]}))" --json --socket "$sock" | path_hops)
[[ -n $byguid && $byguid == "$bylid" ]] || fail "FROM as port GUID $first and as LID give different hops"
ibsm_path 1 49000 -t "$net" -F ibsm.toml >/dev/null
rc=$?
[[ $rc -eq 2 ]] || fail "a LID no port owns: exit $rc, expected 2"

stop_pid $pid || fail "ibsm did not stop on SIGTERM"
finish "$(basename "$net" .net): ibsm path vs ibtracert, $compared pairs, $((SECONDS - start)) s" ibsm.log
