#!/usr/bin/env bash
# `ibsm run --once` with a wide mad.window while busy loops compete for the
# CPU, on a fresh ibsim fabric: it must come up, not hang. Under umad2sim a
# write that blocks on its full socket to ibsim holds the lock umad2sim's
# receiver thread needs to drain ibsim's answers, while ibsim spins on our
# full queue (sm/transport/SimSendGate.h); a wide window, and resends while
# ibsim is starved of CPU, fill that socket. The transport keeps such writes
# instead (UmadBackpressureIbsim counts them). Checked here: it exits 0
# within LIMIT seconds with the subnet up, and iblinkinfo shows every cabled
# port Active.
#
#   run-with-ibsim.sh NETFILE -- wide-window-under-hog.sh path/to/ibsm [WINDOW [HOGS [LIMIT]]]
set -u
IBSM=${1:?usage: $0 path/to/ibsm [WINDOW [HOGS [LIMIT]]]}
window=${2:-128}
hogs=${3:-2}
limit=${4:-60}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE

printf '[mad]\nwindow = %d\n' "$window" >wide.toml
hog_pids=()
stop_hogs() {
  local pid
  for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hog_pids[@]}"; do wait "$pid" 2>/dev/null; done
  hog_pids=()
}
trap stop_hogs EXIT
for ((i = 0; i < hogs; i++)); do
  (while :; do :; done) &
  hog_pids+=($!)
done

start=$SECONDS
timeout -k 5 "$limit" "$IBSM" run -F "$PWD/wide.toml" --once --state-dir state --log-file ibsm.log \
  --stats stats.json >verdict.txt 2>stderr.txt
rc=$?
took=$((SECONDS - start))
stop_hogs
if [[ $rc -eq 124 || $rc -eq 137 ]]; then
  fail "ibsm run --once at mad.window $window beside $hogs busy loops did not end within $limit s (hung)"
elif [[ $rc -ne 0 ]]; then
  fail "ibsm run --once exited $rc:"$'\n'"$(cat stderr.txt)"
else
  stats_hold stats.json '.exit.reason == "up" and .up' ||
    fail "ibsm did not end with the subnet up: $(stats stats.json .exit)"
  echo "ibsm at mad.window $window beside $hogs busy loops: up in $took s; $(stats_summary <stats.json)"
  check_links_active "$net"
fi
finish "wide window under a CPU hog" ibsm.log stderr.txt
