#!/usr/bin/env bash
# `ibsm path` against a running master under a QoS policy (issue 30), and
# the policy edited under it. The SL the path walks is the QoS level's, the
# SL the SA answers in a PathRecord (saquery -p) for the same pair; after
# the policy's DEFAULT level moves to another SL, SIGHUP makes the SA and
# the path both answer the new one. A query naming a QoS class a rule
# matches gets that rule's level from the path.
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
printf '[qos]\npolicy_file = "%s"\n' "$PWD/sm/qos-policy.conf" >>sm/ibsm.toml
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
