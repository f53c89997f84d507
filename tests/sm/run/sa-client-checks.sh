#!/usr/bin/env bash
# What hosts ask an SA, through tests/tools/sa-client, against an SM that is
# master on the first CA of NETFILE (issue 12):
#  1. ServiceRecord round trip: register (Set, lease 60 s) from a CA, get it
#     back (Get: the same ID, GID, name), delete it, and get NO_RECORDS; a
#     record of lease 2 s is gone 5 s later; another port cannot delete a
#     record (asserted of ibsm only: OpenSM lets it, which is printed).
#  2. InformInfo: a CA subscribes to trap 65; the last CA's cable is pulled
#     (ibsim's Unlink); a Report of trap 65 naming that CA's port GID must come
#     (and is answered with a ReportResp). Then trap 64 when the cable is back
#     (ReLink). The time from the console command to the Report is printed;
#     ibsm's status must count both notices and the Reports acknowledged.
#  3. PathRecord load: 500 Gets to random CA port GIDs, 8 outstanding: every
#     one answered.
# Values are read from what sa-client prints (`key value` lines).
#
#   sa-client-checks.sh path/to/ibsm path/to/sa-client opensm|ibsm NETFILE
set -u
IBSM=${1:?usage: $0 path/to/ibsm path/to/sa-client opensm|ibsm NETFILE}
CLIENT=${2:?} sm=${3:?} net=${4:?}
here=$(cd "$(dirname "$0")" && pwd)
if [[ -z ${IBSIM_SOCKNAME:-} ]]; then
  exec "$here/../ibsim/run-with-ibsim.sh" "$net" -- "$here/$(basename "$0")" \
    "$(realpath "$IBSM")" "$(realpath "$CLIENT")" "$sm" "$net"
fi
source "$here/run-checks.sh"
start=$SECONDS
mapfile -t cas < <(net_cas "$IBSIM_NETFILE")
node_sm=${cas[0]} asker=${cas[1]} subscriber=${cas[2]:-${cas[1]}} victim=${cas[-1]}
sm_guid=$(node_port_guid "$node_sm")
victim_guid=$(node_port_guid "$victim")
dir=$PWD/$sm
mkdir -p "$dir"
case $sm in
  opensm)
    printf '%s\n' 'force_log_flush TRUE' >"$dir/opensm.conf"
    start_opensm "$dir" "$node_sm" 0
    sm_pid=$opensm_pid
    ;;
  ibsm)
    printf '%s\n' '[sm]' "control_socket = \"$dir/control.sock\"" >"$dir/ibsm.toml"
    start_ibsm "$dir" "$node_sm" 0
    sm_pid=$ibsm_pid
    ;;
  *) echo "unknown SM $sm" >&2; exit 2 ;;
esac
lids_ready() {
  quiet ibnetdiscover | ibnetdiscover_lids >ibnetdiscover.lids &&
    [[ -s ibnetdiscover.lids ]] && ! grep -qE ' (none|0x0000) ' ibnetdiscover.lids
}
wait_sminfo_master "$asker" "$sm_guid" 60 || fail "$sm on $node_sm is not master after 60 s"
wait_until 60 lids_ready || fail "ports without a LID after 60 s"
[[ $failures -eq 0 ]] || { finish "sa-client against $sm" "$dir/log" "$dir/ibsm.log"; exit 1; }

# `key value` of sa-client's output FILE (the first line with that key).
value() { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1"; }
client() { # OUTFILE NODE ARGS...: runs sa-client on NODE, returns its exit status
  local out=$1 node=$2
  shift 2
  SIM_HOST=$node "$CLIENT" "$@" >"$out" 2>"$out.err"
}

# 1. ServiceRecord
id=0x5a4a554447450001
client sr.register "$asker" service register --id "$id" --name sa-judge --lease 60 ||
  fail "service register exits $?: $(value sr.register status)"
client sr.get "$asker" service get --id "$id" || fail "service get exits $?: $(value sr.get status)"
[[ $(value sr.get service_name) == sa-judge && $(value sr.get service_id) == "$id" &&
  $(value sr.get service_lease) -gt 0 ]] ||
  fail "service get does not return what was registered:"$'\n'"$(cat sr.get)"
client sr.delete "$asker" service delete --id "$id" --name sa-judge ||
  fail "service delete exits $?: $(value sr.delete status)"
client sr.gone "$asker" service get --id "$id"
[[ $(value sr.gone status) == "0x0300 NO_RECORDS" ]] ||
  fail "service get after delete: status $(value sr.gone status), not 0x0300 NO_RECORDS"
echo "ServiceRecord: register, get, delete, get -> $(value sr.gone status)"
# A lease ends: registered for 2 s, gone 5 s later.
client sr.short "$asker" service register --id "$((id + 1))" --name sa-judge-lease --lease 2 ||
  fail "service register (lease 2 s) exits $?: $(value sr.short status)"
sleep 5
client sr.expired "$asker" service get --id "$((id + 1))"
[[ $(value sr.expired status) == "0x0300 NO_RECORDS" ]] ||
  fail "a record of lease 2 s is still there after 5 s: status $(value sr.expired status)"
echo "ServiceRecord: lease 2 s, get 5 s later -> $(value sr.expired status)"
# Another port's record cannot be deleted (issue 12). OpenSM 3.3.23 deletes
# it (status OK): observed and printed, asserted only of ibsm.
asker_guid=$(node_port_guid "$asker")
client sr.mine "$asker" service register --id "$((id + 2))" --name sa-judge-owned --lease 60 ||
  fail "service register exits $?: $(value sr.mine status)"
client sr.foreign "$subscriber" service delete --id "$((id + 2))" --name sa-judge-owned \
  --service-guid "$asker_guid"
client sr.still "$asker" service get --id "$((id + 2))"
echo "ServiceRecord: delete of $asker's record from $subscriber -> $(value sr.foreign status), then get -> $(value sr.still status)"
if [[ $sm == ibsm ]]; then
  [[ $(value sr.foreign status) != "0x0000 OK" && $(value sr.still status) == "0x0000 OK" ]] ||
    fail "another port deleted $asker's ServiceRecord"
fi

# 2. InformInfo: trap 65 on Unlink, trap 64 on ReLink. The subscriber opens
# the issm device: ibsim hands a Report (a request on QP1) to SM clients only.
subscribe_and() { # TRAP CONSOLE-COMMAND
  local trap=$1 command=$2 out=inform.$1
  client "$out" "$subscriber" inform subscribe --trap "$trap" --wait 30 --issm &
  local pid=$!
  wait_until 10 grep -q '^status 0x0000' "$out" ||
    { fail "inform subscribe (trap $trap): $(value "$out" status)"; wait "$pid"; return; }
  sleep 1 # the SM sweeps once for the subscriber's new IsSM capability (trap 144)
  local t0=$EPOCHREALTIME
  console "$command"
  wait "$pid" || fail "no Report of trap $trap after '$command': $(tail -n 1 "$out")"
  local ms=$(((${EPOCHREALTIME/./} - ${t0/./}) / 1000))
  local gid
  gid=$(value "$out" report_gid)
  [[ ${gid#*:} == "$(printf '0x%016x' "$victim_guid")" ]] ||
    fail "the Report of trap $trap names GID $gid, not port $victim_guid of $victim"
  echo "InformInfo: trap $trap after '$command': Report $(value "$out" report), GID $gid, $ms ms after the command"
}
subscribe_and 65 "Unlink \"$victim\"[1]"
subscribe_and 64 "ReLink \"$victim\"[1]"
if [[ $sm == ibsm ]]; then
  # The SM's own counters (ibsm(8), sa.notices_by_trap and sa.reports).
  wait_for_status "$dir/control.sock" '.sa.notices_by_trap."65" >= 1 and
      .sa.notices_by_trap."64" >= 1 and .sa.reports.acknowledged >= 2' 5 ||
    fail "ibsm's status does not count the notices and Reports: $(ibsm_status_json "$dir/control.sock" | jq -c .sa)"
  echo "ibsm notices: $(ibsm_status_json "$dir/control.sock" | jq -c '.sa | {notices_by_trap, reports}')"
fi

# 3. PathRecord load
awk '$3 == "ca" { print $1 }' ibnetdiscover.lids >targets
client pathload "$asker" pathload --targets targets --window 8 --count 500 --seed 7 ||
  fail "pathload exits $?"
[[ $(value pathload answers) == 500 ]] ||
  fail "pathload: $(value pathload answers) of 500 answered ($(value pathload timeouts) timeouts, $(value pathload errors) errors)"
echo "PathRecord: $(value pathload answers) answers, $(value pathload answers_per_s)/s, p50 $(value pathload p50_us) us, p99 $(value pathload p99_us) us (window 8)"

kill -0 "$sm_pid" 2>/dev/null || fail "$sm exited during the checks"
stop_pid "$sm_pid" TERM 10
finish "sa-client against $sm ($((SECONDS - start)) s)" "$dir/log" "$dir/ibsm.log"
