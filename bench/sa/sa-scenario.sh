#!/usr/bin/env bash
# One SM's run for scripts/bench-sa.sh, inside tests/sm/ibsim/run-with-ibsim.sh:
#
#   sa-scenario.sh OUTDIR KIND IBSM SA_CLIENT WINDOW COUNT SEED
#
# KIND (ibsm or opensm) is master on the first CA of the net file; once every
# port has a LID, a second CA sends COUNT PathRecord Gets to random CA port
# GIDs with WINDOW outstanding (sa-client pathload, seed SEED). A single probe
# first: an SM that does not answer it (ibsm before issue 12) is reported as
# not answering, and no load is sent. The SM's VmHWM (peak resident memory,
# /proc) is read before and after the load. Writes OUTDIR/results as
# "key value" lines.
set -u
out=$1 kind=$2 IBSM=$3 client=$4 window=$5 count=$6 seed=$7
source "$(dirname "$0")/../../tests/sm/run/run-checks.sh"
cd "$out" || exit 2
: >results
result() { echo "$1 $2" >>results; echo "  $1 $2" >&2; }
vm() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null; } # kB
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
node_sm=${cas[0]} asker=${cas[1]}
sm_guid=$(node_port_guid "$node_sm")
dir=$out/$kind
mkdir -p "$dir"
started=$SECONDS
case $kind in
  opensm)
    printf '%s\n' 'force_log_flush TRUE' 'max_wire_smps 64' 'max_wire_smps2 64' >"$dir/opensm.conf"
    start_opensm "$dir" "$node_sm" 0
    pid=$opensm_pid
    ;;
  ibsm)
    printf '%s\n' '[sm]' "control_socket = \"$dir/control.sock\"" >"$dir/ibsm.toml"
    start_ibsm "$dir" "$node_sm" 0
    pid=$ibsm_pid
    ;;
esac
lids_ready() {
  quiet ibnetdiscover | ibnetdiscover_lids >ibnetdiscover.lids &&
    [[ -s ibnetdiscover.lids ]] && ! grep -qE ' (none|0x0000) ' ibnetdiscover.lids
}
if ! wait_sminfo_master "$asker" "$sm_guid" 300 || ! wait_until 300 lids_ready; then
  result up no
  exit 1
fi
result up_s $((SECONDS - started))
awk '$3 == "ca" { print $1 }' ibnetdiscover.lids >targets
result targets "$(wc -l <targets)"
hwm_before=$(vm "$pid" VmHWM)
result hwm_before_kib "$hwm_before"
SIM_HOST=$asker "$client" pathload --targets targets --window 1 --count 1 --timeout-ms 2000 \
  >probe 2>probe.err
if [[ $(awk '$1 == "answers" { print $2 }' probe) != 1 ]]; then
  result answers none
  kill -0 "$pid" 2>/dev/null && result sm_after_probe alive || result sm_after_probe exited
  stop_pid "$pid" TERM 10
  exit 0
fi
SIM_HOST=$asker "$client" pathload --targets targets --window "$window" --count "$count" \
  --seed "$seed" >load 2>load.err
for k in answers timeouts errors seconds answers_per_s p50_us p99_us; do
  result "$k" "$(awk -v k="$k" '$1 == k { print $2 }' load)"
done
hwm_after=$(vm "$pid" VmHWM)
result hwm_after_kib "$hwm_after"
[[ -n $hwm_before && -n $hwm_after ]] && result hwm_growth_kib $((hwm_after - hwm_before))
result rss_after_kib "$(vm "$pid" VmRSS)"
stop_pid "$pid" TERM 10
