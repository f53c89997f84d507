#!/usr/bin/env bash
# Bring-up under SMP loss (issue 17): `ibsm run --once` on a fresh ibsim
# 3-level fat tree whose every switch drops RATE percent of the MADs at each
# of its ports (ibsim console `Error "switch" RATE`, set before the SM
# starts), then the judges with the drops lifted. Not in CI: a run at 10%
# takes minutes.
#
#   scripts/loss-bringup.sh [--degrade N [--seed S]] [RATE] [RADIX]   (defaults: 10 8)
#   scripts/loss-bringup.sh --net FILE [RATE]
#
# --degrade N cuts N random inter-switch cables of the generated tree
# (`ibsm topo generate --degrade`, seed S, default 1); --net brings up an
# ibsim net file of your own instead (every switch in it gets the rate).
#
# Prints one line of figures (from ibsm's --stats file, never its log):
#   converged yes|no, wall seconds, heavy sweeps (take-over included), SMPs
#   sent (retries included), retries, timeouts (requests lost after every
#   attempt), and how the run ended;
# then, with the drops lifted, walks every switch-to-LID route through the
# tables the switches hold (check_all_pairs_walk). Exit status 0 when it
# converged and every route walks.
#
# Environment: IBSM (default build/sm/cli/ibsm), IBSM_CONFIG (a TOML for
# ibsm, default none), KEEP (a directory to copy ibsm's log, stats and the
# walk into).
set -u
if [[ ${1:-} == --inner ]]; then
  # Inside run-with-ibsim.sh: the scratch directory, ibsim's console at hand.
  rate=$2
  source "$IBSM_CHECKS"
  mapfile -t switches < <(sed -n 's/^Switch[[:space:]]\+[0-9]\+[[:space:]]\+"\([^"]*\)".*/\1/p' "$IBSIM_NETFILE")
  for sw in "${switches[@]}"; do console "Error \"$sw\" $rate"; done
  console "Dump"
  wait_for_line ibsim.log '# +dumped [0-9]+ nodes' 30 || fail "ibsim did not answer Dump"
  marked=$(grep -cP "# err_rate $rate(\t|$)" ibsim.log)
  [[ $rate -eq 0 || $marked -ge ${#switches[@]} ]] ||
    fail "ibsim's Dump shows the error rate on $marked ports of ${#switches[@]} switches"
  config=()
  [[ -n ${IBSM_CONFIG:-} ]] && config=(-F "$IBSM_CONFIG")
  t0=$(date +%s.%N)
  "$IBSM" run --once "${config[@]}" --state-dir state --log-file ibsm.log --stats stats.json \
    >verdict.txt 2>stderr.txt
  rc=$?
  t1=$(date +%s.%N)
  for sw in "${switches[@]}"; do console "Error \"$sw\" 0"; done
  converged=no
  stats_hold stats.json '.exit.reason == "up" and .up' && converged=yes
  [[ -s stats.json ]] || echo '{}' >stats.json
  printf 'rate %s%%: converged %s, %.1f s, %s heavy sweeps, %s SMPs sent, %s retries, %s timeouts; exit %s (%s)\n' \
    "$rate" "$converged" "$(bc <<<"$t1 - $t0")" \
    "$(stats stats.json '(.sweeps_by_kind.heavy // 0) + (.sweeps_by_kind.takeover // 0)')" \
    "$(stats stats.json '.mads_sent // "?"')" "$(stats stats.json '.mad_retries // "?"')" \
    "$(stats stats.json '.mad_timeouts // "?"')" "$rc" "$(stats stats.json '.exit.reason // "?"')"
  [[ $converged == yes ]] || fail "not converged: $(stats stats.json '.exit.details // [] | join("; ")' | head -c 2000)"
  # The drops lifted: ask ibsim something and wait for its answer, so the
  # judges below never meet a lost MAD.
  console "Dump"
  sleep 1
  check_all_pairs_walk
  if [[ -n ${KEEP:-} ]]; then
    mkdir -p "$KEEP"
    cp ibsm.log stats.json walk.out stderr.txt "$KEEP"/ 2>/dev/null
  fi
  finish "loss $rate% at every switch" ibsm.log
  exit
fi

usage="usage: $0 [--degrade N [--seed S] | --net FILE] [RATE] [RADIX]"
degrade=0
seed=1
netfile=
while [[ ${1:-} == --* ]]; do
  case $1 in
    --degrade) degrade=${2:-}; shift 2 ;;
    --seed) seed=${2:-}; shift 2 ;;
    --net) netfile=${2:-}; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
rate=${1:-10}
radix=${2:-8}
[[ $rate =~ ^[0-9]+$ && $rate -le 100 ]] || { echo "$usage" >&2; exit 2; }
[[ $degrade =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ ]] || {
  echo "$0: --degrade and --seed take a whole number" >&2
  exit 2
}
[[ -z $netfile || -r $netfile ]] || { echo "$0: cannot read net file $netfile" >&2; exit 2; }
[[ $radix =~ ^[0-9]+$ && $((radix % 2)) -eq 0 && $radix -ge 4 ]] || {
  echo "$0: RADIX must be even and at least 4" >&2
  exit 2
}
root=$(cd "$(dirname "$0")/.." && pwd)
export IBSM=${IBSM:-$root/build/sm/cli/ibsm}
export IBSM_CHECKS=$root/tests/sm/run/run-checks.sh
[[ -x $IBSM ]] || { echo "$0: no ibsm at $IBSM (build first)" >&2; exit 2; }
[[ -n ${IBSM_CONFIG:-} ]] && export IBSM_CONFIG=$(realpath "$IBSM_CONFIG")
[[ -n ${KEEP:-} ]] && export KEEP=$(realpath -m "$KEEP")
work=$(mktemp -d "${TMPDIR:-/tmp}/loss-bringup.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [[ -n $netfile ]]; then
  net=$work/$(basename "$netfile")
  cp "$netfile" "$net" || exit 2
else
  net=$work/fat-tree-k$radix.net
  cut=()
  [[ $degrade -gt 0 ]] && cut=(--degrade "$degrade" --seed "$seed")
  "$IBSM" topo generate fat-tree --levels 3 --radix "$radix" "${cut[@]}" -o "$net" >/dev/null || exit 2
fi
"$root/tests/sm/ibsim/run-with-ibsim.sh" -N 8192 -S 2048 -P 65536 "$net" -- \
  bash "$root/scripts/loss-bringup.sh" --inner "$rate"
