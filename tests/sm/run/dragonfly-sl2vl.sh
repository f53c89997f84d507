#!/usr/bin/env bash
# `ibsm run --once` with the dragonfly engine on up to 4 VLs (a config file
# written here: [routing] engine = "dragonfly", max_vls = 4) on a fresh ibsim
# dragonfly, judged by infiniband-diags against the dry run (`ibsm route -R
# dragonfly`, which lets the engine use what VLCap allows: the same 2 VLs):
#   - ibsim's ports declare VLCap of at least 2 VLs (else the test is void);
#   - it exits 0 with the subnet up, routed by dragonfly (its --stats), the LIDs and LFTs (dump_fts) are
#     the dry run's and every cabled port is Active;
#   - `smpquery sl2vl LID OUT` (all input ports of one output port) on every
#     switch and output port shows each table of the dry run's sl2vl.dump;
#   - the dump names every CA port with a link (ibnetdiscover), each with
#     every SL on VL 0 (the host's first hop: planSubnet() adds it), and
#     `smpquery sl2vl LID` of each CA port shows exactly that (ibsim's CA
#     ports advertise IsSLMappingSupported, else the test is void);
#   - OperVLs of every switch port that carries SL2VL traffic covers the VLs
#     the tables use;
#   - it wrote each table once and read none (no node held a LID or an
#     M_Key: the tables were as their reset left them, ibsim's SL n -> VL n),
#     and a second `ibsm run --once` (a fresh cache, every node holding a
#     LID) reads them all and writes none.
# Prints the SL2VL SMP counts of both runs, and the CA ports' share.
#
#   run-with-ibsim.sh NETFILE -- dragonfly-sl2vl.sh path/to/ibsm
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
[sm]
state_dir = "$here/state"
control_socket = "$here/control.sock"
EOF

# The first switch port on the SM's CA's cable, by directed route, before any LID exists.
vlcap=$(quiet smpquery -D portinfo 0,1 1 | sed -nE 's/^VLCap:\.*VL0-([0-9]+)$/\1/p')
[[ -n $vlcap && $vlcap -ge 1 ]] || fail "ibsim's switch port declares VLCap VL0-${vlcap:-?}: fewer than 2 VLs"
# The SM's own CA port: IsSLMappingSupported (CapabilityMask bit 6), or ibsm leaves CA tables alone.
capmask=$(quiet smpquery -D portinfo 0 | sed -nE 's/^CapMask:\.*(0x[0-9a-fA-F]+).*$/\1/p')
[[ -n $capmask ]] && (((capmask >> 6) & 1)) ||
  fail "ibsim's CA port does not advertise IsSLMappingSupported (CapMask ${capmask:-?}): no CA table would be written"

route_dry_run "$net" dry --engine dragonfly
[[ -s dry/sl2vl.dump ]] || fail "the dry run wrote no sl2vl.dump:"$'\n'"$(cat dry/summary)"
tables=$(wc -l <dry/sl2vl.dump)
ca_tables=$(grep -c '^ca ' dry/sl2vl.dump)
zeros=" :$(printf ' 0%.0s' {1..16})"
not_zero=$(grep '^ca ' dry/sl2vl.dump | grep -vF -- "$zeros" | head -3)
[[ -z $not_zero ]] || fail "CA tables of sl2vl.dump map an SL to a VL other than 0:"$'\n'"$not_zero"

"$IBSM" run --once -F ibsm.toml --log-file ibsm.log --stats stats.json >verdict.txt 2>stderr.txt
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm run --once exited $rc:"$'\n'"$(cat stderr.txt)"
stats_hold stats.json '.exit.reason == "up" and .up' || fail "ibsm did not end with the subnet up: $(stats stats.json .exit)"
stats_hold stats.json '.engine == "dragonfly"' || fail "the live SM did not route with dragonfly: $(stats stats.json .engine)"
echo "ibsm: $(stats_summary <stats.json)"

cmp -s dry/guid2lid state/guid2lid ||
  fail "ibsm's guid2lid differs from the dry run's:"$'\n'"$(diff dry/guid2lid state/guid2lid | head)"
check_lids_as_planned dry/guid2lid
check_links_active "$net"
check_lfts_as_planned dry

# smpquery sl2vl on every switch and output port, and every CA port, of the dump -> dump lines.
live_sl2vl dry/sl2vl.dump dry/guid2lid live.sl2vl
linked=$(grep -c ' ca$' ibnetdiscover.lids)
[[ $ca_tables -eq $linked ]] ||
  fail "sl2vl.dump names $ca_tables CA ports, ibnetdiscover shows $linked with a LID (every linked one)"
sort dry/sl2vl.dump >dry.sl2vl
missing=$(comm -23 dry.sl2vl live.sl2vl)
if [[ -n $missing ]]; then
  fail "$(wc -l <<<"$missing") of $tables SL2VL tables on the fabric differ from sl2vl.dump:"$'\n'"$(head -5 <<<"$missing")"$'\n'"the fabric holds e.g.:"$'\n'"$(grep -F "$(head -1 <<<"$missing" | cut -d: -f1)" live.sl2vl)"
else
  echo "smpquery sl2vl shows all $tables tables of sl2vl.dump on $(awk '$1 == "switch"' dry.sl2vl | cut -d' ' -f2 | sort -u | wc -l) switches and $ca_tables CA ports (every SL on VL 0)"
fi

# OperVLs covers the VLs each output port's tables send on (VL n needs VL0-n or more).
short=0
while read -r guid out top; do
  lid=$(awk -v g="$guid" 'tolower($1) == g { print $2 }' dry/guid2lid)
  oper=$(quiet smpquery portinfo "$((lid))" "$out" | sed -nE 's/^OperVLs:\.*VL0-([0-9]+)$/\1/p')
  [[ -n $oper && $oper -ge $top ]] || { short=$((short + 1)); fail "switch $guid port $out runs VL0-${oper:-?}, its tables send on VL$top"; }
done < <(awk '$1 == "switch" { m = 0; for (i = 8; i <= NF; i++) if ($i != 15 && $i > m) m = $i; k = tolower($2) " " $6
                if (!(k in top) || m > top[k]) top[k] = m }
              END { for (k in top) print k, top[k] }' dry/sl2vl.dump | sort)
[[ $short -eq 0 ]] && echo "OperVLs covers the tables' VLs on every output port they name"

# SL2VL SMPs of a run, tables written and read, every sweep's, from its --stats.
sl2vl_counts() { stats "$1" '.tables_total.sl2vl | "\(.smps) \(.written) \(.read)"'; }
read -r smps written reread < <(sl2vl_counts stats.json)
echo "first run: $smps SL2VL SMPs, $written tables written, $reread read ($tables in the plan, $ca_tables of them CA ports': $ca_tables SMPs)"
# A fresh fabric: no node holds a LID or an M_Key, so every table is as its
# reset left it (the vendor's; ibsim's maps SL n to VL n) and is written
# unread, one Set each.
[[ $written -eq $tables && $reread -eq 0 && $smps -eq $tables ]] ||
  fail "the first run should write each of the $tables tables once and read none (no node holds a LID)"

# A restarted SM knows nothing: it reads every table and writes none.
"$IBSM" run --once -F ibsm.toml --log-file ibsm2.log --stats stats2.json >verdict2.txt 2>stderr2.txt ||
  fail "the second ibsm run --once failed:"$'\n'"$(cat stderr2.txt)"
read -r smps written reread < <(sl2vl_counts stats2.json)
echo "second run: $smps SL2VL SMPs, $written tables written, $reread read"
[[ $written -eq 0 && $reread -eq $tables && $smps -eq $tables ]] ||
  fail "the second run should read the $tables tables and write none"

finish "$(basename "$net" .net) with SL2VL, $((SECONDS - start)) s" ibsm.log ibsm2.log
