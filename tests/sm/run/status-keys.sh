#!/usr/bin/env bash
# What `ibsm status --json` and the metrics file show is a contract with
# scripts and dashboards: their keys and metric names must not move when the
# code that fills them does. A daemon brings the fabric up, waits for its
# second counter pass, is asked for a light sweep (`ibsm sweep`), a heavy one
# (`ibsm sweep --heavy`) and answers saquery's NodeRecord; then the key set of
# its status JSON (every path, array indices as []) and the metric names with
# their label keys (and each family's TYPE) of `ibsm metrics` and of the
# metrics file equal the lists checked in under DATA (generated with the
# binary of the commit before the counters were declared once), and the
# values this sequence fixes hold: sweeps by kind, switches, CA ports, the
# SA's NodeRecord count.
#
#   run-with-ibsim.sh NETFILE -- status-keys.sh path/to/ibsm DATA
#
# IBSM_UNDER_TEST=path/to/ibsm runs another binary (main's, to show that the
# lists hold for both); IBSM_WRITE_GOLDEN=1 writes the lists into DATA
# instead of comparing them.
set -u
IBSM=${IBSM_UNDER_TEST:-${1:?usage: $0 path/to/ibsm DATA}}
data=${2:?DATA}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
mapfile -t cas < <(net_cas "$net")
asker=${cas[-1]}

# No scheduled sweep within the test: every sweep is one this script asks for.
# Counter passes every 2 s: the second one gives the ports' rates.
mkdir -p metrics
printf '[sm]\ncontrol_socket = "%s"\nsweep_interval = 0\n[health]\nmetrics_file = "%s"\n' \
  "$PWD/control.sock" "$PWD/metrics/ibsm.prom" >ibsm.toml
printf 'counter_interval = 2\n' >>ibsm.toml
sock=control.sock

# Every key path of a JSON document, array indices as [], sorted.
json_keys() {
  jq -r '[paths | map(if type == "number" then "[]" else tostring end) | join(".")] | unique[]'
}
# Metric sample names with their label keys (values dropped), and the
# families' TYPE lines.
metric_names() {
  sed -nE -e 's/^# TYPE /TYPE /p' -e '/^[a-z]/{s/="([^"\\]|\\.)*"//g;s/ [^ ]*$//;p}' | sort -u
}
# Compares the list LIST (a file) with DATA/NAME, or writes it there.
same_as_golden() {
  local list=$1 name=$2
  if [[ ${IBSM_WRITE_GOLDEN:-0} == 1 ]]; then
    cp "$list" "$data/$name"
    echo "wrote $data/$name ($(wc -l <"$list") lines)"
    return
  fi
  diff -u "$data/$name" "$list" >"$list.diff" ||
    fail "$name differs from the list checked in (- checked in, + this run):"$'\n'"$(cat "$list.diff")"
}

"$IBSM" run -F ibsm.toml --state-dir state --log-file ibsm.log --stats stats.json 2>stderr.txt &
pid=$!
if wait_for_status $sock '.up and .health.counters.passes >= 2' 60; then
  sweeps() { ibsm_status $sock '.sweeps'; }
  before=$(sweeps)
  env -u LD_PRELOAD "$IBSM" sweep --socket $sock >/dev/null || fail "ibsm sweep failed"
  wait_for_status $sock ".sweeps > $before and .phase == \"MASTER (idle)\"" 20 ||
    fail "no light sweep after ibsm sweep"
  before=$(sweeps)
  env -u LD_PRELOAD "$IBSM" sweep --heavy --socket $sock >/dev/null || fail "ibsm sweep --heavy failed"
  wait_for_status $sock ".sweeps > $before and .up and .phase == \"MASTER (idle)\"" 30 ||
    fail "no heavy sweep after ibsm sweep --heavy"

  lid=$(ibsm_status $sock .lid)
  SIM_HOST=$asker quiet timeout 20 saquery -t 500 NR "$lid" >/dev/null ||
    fail "saquery NR $lid got no answer"
  wait_for_status $sock '.sa.by_attribute.NodeRecord == 1' 5 || fail "the SA did not count the NodeRecord"
  # The file follows the heavy sweep (written after every sweep that planned).
  wait_until 10 grep -q '^ibsm_sweeps_total{kind="heavy"} 1$' metrics/ibsm.prom ||
    fail "metrics/ibsm.prom does not count the heavy sweep"

  ibsm_status_json $sock >status.json
  json_keys <status.json >status-keys.txt
  same_as_golden status-keys.txt status-keys.txt
  env -u LD_PRELOAD "$IBSM" metrics --socket $sock | metric_names >metrics-names.txt
  same_as_golden metrics-names.txt metrics-names.txt
  metric_names <metrics/ibsm.prom >file-names.txt
  diff -u metrics-names.txt file-names.txt >/dev/null ||
    fail "the metrics file names other metrics than ibsm metrics: $(diff metrics-names.txt file-names.txt)"

  # The values this sequence fixes.
  switches=$(grep -cE '^Switch[[:space:]]' "$net")
  ca_ports=$(sed -n 's/^\(Hca\|Ca\)[[:space:]]\+\([0-9]\+\).*/\2/p' "$net" | paste -sd+ - | bc)
  expect='.sweeps_by_kind == {"discovery": 1, "heavy": 1, "takeover": 1, "light_quiet": 1,
    "light_changed": 0, "reroute": 0, "replan": 0, "rebalance": 0}
    and .sweeps == 4 and .sweeps_failed == 0 and .fabric_walks == 2
    and .switches == '$switches' and .ca_ports == '$ca_ports'
    and .last_sweep.kind == "heavy" and .last_heavy.kind == "heavy"
    and .sa.received == 1 and .sa.answered == 1 and .times_master == 1'
  jq -e "$expect" status.json >/dev/null ||
    fail "the status does not hold $expect:"$'\n'"$(jq -c '{sweeps, sweeps_by_kind, sweeps_failed,
      fabric_walks, switches, ca_ports, k: .last_sweep.kind, sa: .sa.received, m: .times_master}' status.json)"
  prom='ibsm_sweeps_total{kind="light_quiet"} 1|ibsm_sweeps_total{kind="takeover"} 1|ibsm_switches '$switches'|ibsm_ca_ports '$ca_ports
  [[ $(grep -cxE "$prom" metrics/ibsm.prom) -eq 4 ]] ||
    fail "metrics/ibsm.prom does not hold $prom: $(grep -E '^ibsm_(sweeps_total|switches|ca_ports)' metrics/ibsm.prom)"
else
  fail "the subnet is not up with two counter passes within 60 s"
fi

kill -TERM "$pid"
wait "$pid"
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm exited $rc after SIGTERM:"$'\n'"$(tail -5 stderr.txt)"

finish "$(basename "$net" .net): status keys and metric names, $((SECONDS - start)) s" ibsm.log
