#!/usr/bin/env bash
# `ibsm run --once` with the dragonfly engine and two QoS classes (qos.sl2vl
# maps SLs 0-7 to VL 0, SLs 8-15 to VL 1) on a fresh ibsim dragonfly, judged
# by infiniband-diags against the dry run with the same config:
#   - ibsim's ports declare VLCap VL0-3 or more (2 classes x 2 layers = 4
#     VLs; else the test is void);
#   - the dry run says 2 classes x 2 layers = 4 VLs and finds no credit loop
#     on the SLs of either class;
#   - it exits 0 with the subnet up, routed by dragonfly, every cabled port
#     Active, the LFTs the dry run's;
#   - `smpquery sl2vl` on every switch and output port shows each switch
#     table of the dry run's sl2vl.dump (the engine's layers with the
#     classes multiplied in);
#   - read back, the SLs of the two classes use disjoint VLs: 0-1 and 2-3.
#
#   run-with-ibsim.sh NETFILE -- dragonfly-qos-classes.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
here=$(pwd)

cat >ibsm.toml <<EOF
[routing]
engine = "dragonfly"
max_vls = 4
[qos]
enabled = true
sl2vl = "0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1"
[sm]
state_dir = "$here/state"
control_socket = "$here/control.sock"
EOF

vlcap=$(quiet smpquery -D portinfo 0,1 1 | sed -nE 's/^VLCap:\.*VL0-([0-9]+)$/\1/p')
[[ -n $vlcap && $vlcap -ge 3 ]] || fail "ibsim's switch port declares VLCap VL0-${vlcap:-?}: fewer than 4 VLs"

route_dry_run "$net" dry --engine dragonfly -F ibsm.toml
grep -q '^qos VLs: 2 classes x 2 routing VL layers = 4 VLs$' dry/summary ||
  fail "the dry run does not give 2 classes x 2 layers:"$'\n'"$(cat dry/summary)"
grep -q '^  SLs walked: 0, 8 ' dry/summary || fail "the dry run did not walk one SL of each class"

"$IBSM" run --once -F ibsm.toml --log-file ibsm.log --stats stats.json >verdict.txt 2>stderr.txt
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm run --once exited $rc:"$'\n'"$(cat stderr.txt)"
stats_hold stats.json '.exit.reason == "up" and .up' || fail "ibsm did not end with the subnet up: $(stats stats.json .exit)"
stats_hold stats.json '.engine == "dragonfly"' || fail "the live SM did not route with dragonfly: $(stats stats.json .engine)"
check_links_active "$net"
check_lfts_as_planned dry

# smpquery sl2vl on every switch and output port of the dump -> dump lines.
: >live.sl2vl
while read -r guid out; do
  lid=$(awk -v g="$guid" 'tolower($1) == g { print $2 }' dry/guid2lid)
  [[ -n $lid ]] || { fail "switch $guid of sl2vl.dump has no LID in guid2lid"; continue; }
  quiet smpquery sl2vl "$((lid))" "$out" |
    sed -nE 's/^ports: in +([0-9]+), out +([0-9]+): \|(.*)\|$/\1 \2 \3/p' | tr '|' ' ' |
    awk -v g="$guid" '{ printf "switch %s in_port %d out_port %d :", g, $1, $2;
                        for (i = 3; i <= NF; i++) printf " %d", $i; print "" }' >>live.sl2vl
done < <(awk '$1 == "switch" { print tolower($2), $6 }' dry/sl2vl.dump | sort -u)
grep '^switch' dry/sl2vl.dump | sort >dry.sl2vl
sort -o live.sl2vl live.sl2vl
tables=$(wc -l <dry.sl2vl)
missing=$(comm -23 dry.sl2vl live.sl2vl)
if [[ -n $missing ]]; then
  fail "$(wc -l <<<"$missing") of $tables switch SL2VL tables differ from sl2vl.dump:"$'\n'"$(head -5 <<<"$missing")"
else
  echo "smpquery sl2vl shows all $tables switch tables of sl2vl.dump"
fi

# The VLs each class's SLs are sent on, as the switches hold them (fields
# 8-15: SLs 0-7, 16-23: SLs 8-15; 15 drops).
vls_of() { awk -v a="$1" -v b="$2" '{ for (i = a; i <= b; i++) if ($i != 15) print $i }' live.sl2vl | sort -un | tr '\n' ' '; }
first=$(vls_of 8 15)
second=$(vls_of 16 23)
echo "VLs on the switches: SLs 0-7 on $first; SLs 8-15 on $second"
[[ $first == "0 1 " && $second == "2 3 " ]] || fail "the classes' VLs are not 0-1 and 2-3"

finish "$(basename "$net" .net) with two QoS classes on the VL layers, $((SECONDS - start)) s" ibsm.log
