#!/usr/bin/env bash
# `ibsm path` against a running master under a QoS policy (issue 30), and
# the policy edited under it. The SL the path walks is the QoS level's, the
# SL the SA answers in a PathRecord (saquery -p) for the same pair; after
# the policy's DEFAULT level moves to another SL, SIGHUP makes the SA and
# the path both answer the new one. A query naming a QoS class a rule
# matches gets that rule's level from the path. With qos.enabled every
# port's SL2VL is programmed (SL s on VL s % 4): each switch hop of the path
# shows the VL `smpquery sl2vl` reads from that switch for its in and out
# port and the SL walked.
#
#   run-with-ibsim.sh fat-tree-3level-k8.net -- path-qos-sighup.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
mapfile -t cas < <(sed -n 's/^\(Hca\|Ca\)[[:space:]]\+[0-9]\+[[:space:]]\+"\([^"]*\)".*/\2/p' "$net")

# DEFAULT on SL $1; QoS class 7 on SL 4 (level 'bulk').
write_policy() {
  printf '%s\n' 'qos-levels' '  qos-level' '    name: DEFAULT' "    sl: $1" '  end-qos-level' \
    '  qos-level' '    name: bulk' '    sl: 4' '  end-qos-level' 'end-qos-levels' \
    'qos-match-rules' '  qos-match-rule' '    qos-class: 7' '    qos-level-name: bulk' \
    '  end-qos-match-rule' 'end-qos-match-rules' >sm/qos-policy.conf.new
  mv sm/qos-policy.conf.new sm/qos-policy.conf
}

mkdir -p sm
write_policy 1
ibsm_conf sm/ibsm.toml "$PWD/sm" 1000 2 2
printf '[qos]\nenabled = true\nsl2vl = "%s"\npolicy_file = "%s"\n' \
  "0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3" "$PWD/sm/qos-policy.conf" >>sm/ibsm.toml
start_ibsm sm "${cas[0]}" 10
sock=sm/control.sock
wait_for_status $sock .up 60 || fail "the subnet is not up within 60 s"

src=${cas[1]}
dst=${cas[$((${#cas[@]} - 1))]}
ibsm_path() { env -u LD_PRELOAD "$IBSM" path "$src" "$dst" --json --socket $sock "$@" 2>>sm/path-stderr; }
# The SL of the SA's PathRecord from src to dst, as src asks it (decimal).
sa_sl() {
  local pr
  pr=$(SIM_HOST=$src quiet timeout 20 saquery -t 500 -p --src-to-dst "$1:$2") || return 1
  printf '%d\n' "$(sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-f]*\)$/\1/p' <<<"$pr" | head -n 1)"
}

# Each switch hop of the walk $1 on the VL its switch holds for SL $2.
check_vls() {
  local lid in out vl held n=0
  while read -r lid in out vl; do
    held=$(quiet smpquery sl2vl "$lid" "$out" |
      sed -nE "s/^ports: in +$in, out +$out: \|(.*)\|\$/\1/p" | tr '|' ' ' |
      awk -v col=$(($2 + 1)) '{ print $col + 0 }')
    [[ -n $held && $held == "$vl" ]] ||
      fail "switch LID $lid in $in out $out: the path shows VL $vl for SL $2, smpquery sl2vl '$held'"
    n=$((n + 1))
  done < <(jq -r '.hops[] | select(.type == "switch" and .out_port != null) |
                  "\(.lid) \(.in_port) \(.out_port) \(.vl)"' <<<"$1")
  [[ $n -gt 0 ]] || fail "the walk has no switch hop: $1"
  echo "  $n switch hops on the VLs smpquery sl2vl reads for SL $2"
}

# Both the path and the SA, for the plain query: SL $1 of level DEFAULT.
check_sl() {
  local walk sl level slid dlid sa
  walk=$(ibsm_path) || fail "ibsm path $src $dst failed: $walk"
  sl=$(jq -r .sl <<<"$walk")
  level=$(jq -r .qos_level <<<"$walk")
  slid=$(jq -r .from.lid <<<"$walk")
  dlid=$(jq -r .to.lid <<<"$walk")
  sa=$(sa_sl "$slid" "$dlid") || fail "saquery -p --src-to-dst $slid:$dlid got no answer"
  echo "$2: path SL $sl (QoS level $level), the SA's PathRecord SL $sa"
  [[ $sl == "$1" && $level == DEFAULT ]] || fail "$2: the path walks SL $sl of level $level, not SL $1 of DEFAULT"
  [[ $sa == "$sl" ]] || fail "$2: the SA answers SL $sa, the path SL $sl"
  check_vls "$walk" "$sl"
}

check_sl 1 "policy with DEFAULT on SL 1"
bulk=$(ibsm_path --qos-class 7 | jq -r '"\(.sl) \(.qos_level)"')
[[ $bulk == "4 bulk" ]] || fail "--qos-class 7: the path walks '$bulk', not '4 bulk'"

write_policy 3
replans='.sweeps_by_kind | .replan + .heavy'
swept=$(ibsm_status $sock "$replans")
kill -HUP "$ibsm_pid"
wait_for_status $sock "($replans) > $swept" 30 || fail "no sweep within 30 s of SIGHUP"
check_sl 3 "after SIGHUP with DEFAULT on SL 3"

stop_pid "$ibsm_pid" TERM 10 || fail "ibsm did not stop on SIGTERM"
finish "path and SA under a QoS policy reloaded on SIGHUP" sm/ibsm.log
