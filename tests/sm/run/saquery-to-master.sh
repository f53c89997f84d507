#!/usr/bin/env bash
# An SA query to an ibsm master never harms it: once `ibsm status` says the
# subnet is up, `saquery` run on another node (a NodeRecord GetTable and a
# ClassPortInfo Get, LID-routed through the tables ibsm wrote to its SM LID)
# reaches ibsm's SA agent -- before it registered one, umad2sim killed the
# process here -- and is answered from the snapshot of the sweep (the
# master's NodeRecord by LID, ClassPortInfo; sa.answered), and a PathRecord
# from the master to the asker carries the SL of the partitions.conf's
# `sl=3` flag (saquery --src-to-dst), and a VLArbitrationTableRecord of the
# asker's port equal to what smpdump reads from it, and a switch's
# SwitchInfoRecord with MulticastFDBTop and PortStateChange 0 (issue 27). ibsm keeps running and
# answering its status, and SIGTERM then ends it with exit 0. (SubnetTimeout,
# which ibsm writes, cannot be checked here: ibsim keeps 31 whatever an SM
# writes, OpenSM's 18 as well; tests/sm/program/ClientReregisterTest has it.)
#
#   run-with-ibsim.sh NETFILE -- saquery-to-master.sh path/to/ibsm
set -u
IBSM=${1:?usage: $0 path/to/ibsm}
source "$(dirname "$0")/run-checks.sh"
net=$IBSIM_NETFILE
start=$SECONDS
mapfile -t nodes < <(net_cas "$net")
asker=${nodes[-1]}

# The [sa] keys are accepted by `ibsm run` as they are by the parser.
printf '[sm]\ncontrol_socket = "%s"\n[sa]\nsubnet_timeout = 17\nmax_records = 1000\n' \
  "$PWD/control.sock" >ibsm.toml
printf 'service_lease_max_s = 3600\n' >>ibsm.toml
# Every port a full member of the default partition, whose paths use SL 3.
printf 'Default=0x7fff, sl=3 : ALL=full ;\n' >partitions.conf
sock=control.sock
"$IBSM" run -F ibsm.toml --partitions partitions.conf --state-dir state --log-file ibsm.log \
  --stats stats.json 2>stderr.txt &
pid=$!
if wait_for_status $sock .up 60; then
  # One record each (umad2sim has no RMPP): the master's own NodeRecord by
  # its LID and the SA's ClassPortInfo.
  lid=$(ibsm_status $sock .lid)
  nr=$(SIM_HOST=$asker quiet timeout 20 saquery -t 500 NR "$lid") ||
    fail "saquery NR $lid got no answer"
  grep -q "lid.*$lid" <<<"$nr" || fail "saquery NR $lid does not name LID $lid:"$'\n'"$nr"
  cpi=$(SIM_HOST=$asker quiet timeout 20 saquery -t 500 CPI) || fail "saquery CPI got no answer"
  grep -q "Class version\.*2$" <<<"$cpi" || fail "ClassPortInfo is not the SA's (class version 2):"$'\n'"$cpi"
  asker_lid=$(SIM_HOST=$asker quiet smpquery portinfo -D 0 | sed -n 's/^Lid:\.*//p')
  pr=$(SIM_HOST=$asker quiet timeout 20 saquery -t 500 -p --src-to-dst "$lid:$asker_lid") ||
    fail "saquery -p --src-to-dst $lid:$asker_lid got no answer"
  grep -qE "sl\.+0x3$" <<<"$pr" || fail "the path does not carry the partition's sl=3:"$'\n'"$pr"
  # The asker's port's VLArbitration block 1 (a CA port's record names its port) (entries 0-31 of its low table),
  # as ibsm read it after bring-up, is what the port holds: saquery's VL and
  # Weight rows as bytes equal smpdump's attribute 0x18, modifier block 1 << 16.
  asker_port=$(SIM_HOST=$asker quiet smpquery portinfo -D 0 | sed -n 's/^LocalPort:\.*//p')
  vlar=$(SIM_HOST=$asker quiet timeout 20 saquery -t 500 VLAR "$asker_lid/$asker_port/1") ||
    fail "saquery VLAR $asker_lid/$asker_port/1 got no answer"
  sa_bytes=$(awk -F'[:|]' '/VL +:/ { for (i = 2; i <= 17; i++) vl[i] = $i + 0 }
    /Weight:/ { for (i = 2; i <= 17; i++) printf "%02x%02x", vl[i], $i + 0 }' <<<"$vlar")
  smp_bytes=$(SIM_HOST=$asker quiet smpdump -D 0 0x18 0x10000 | grep -E '^[0-9a-f ]+$' | tr -d ' \n')
  [[ ${#sa_bytes} -eq 128 && $sa_bytes == "${smp_bytes:0:128}" ]] ||
    fail "the SA's VLArbitrationTableRecord is not what the port holds:"$'\n'"$vlar"$'\n'"smpdump: $smp_bytes"
  # Issue 27: the SwitchInfoRecord of the asker's switch as OpenSM answers
  # it. saquery prints MulticastFDBTop only when the SA claims
  # IsMulticastFDBTopSupported (ClassPortInfo CapabilityMask2), and then with
  # the value the switch holds (smpquery); PortStateChange, which the switches
  # raise as their links come up, was cleared at the end of the bring-up (the
  # SwitchInfo Set writing it 1, as OpenSM at the end of its heavy sweep): 0
  # in the record and in the switch.
  swlid=$(SIM_HOST=$asker quiet smpquery portinfo -D 0,1 0 | sed -n 's/^Lid:\.*//p')
  swir=$(SIM_HOST=$asker quiet timeout 20 saquery -t 500 SWIR "$swlid") ||
    fail "saquery SWIR $swlid got no answer"
  si=$(SIM_HOST=$asker quiet smpquery switchinfo -D 0,1)
  sa_top=$(sed -n 's/^[[:space:]]*MulticastFDBTop\.*//p' <<<"$swir")
  sw_top=$(sed -n 's/^MulticastFDBTop:\.*//p' <<<"$si")
  [[ -n $sa_top && -n $sw_top && $((sa_top)) -eq $((sw_top)) ]] ||
    fail "SWIR $swlid: MulticastFDBTop '${sa_top}', the switch holds '${sw_top}':"$'\n'"$swir"
  psc=$(sed -n 's/^[[:space:]]*LifeTimeValue\/PortStateChange\/OpSL2VL\.*//p' <<<"$swir")
  [[ -n $psc && $(((psc >> 2) & 1)) -eq 0 ]] ||
    fail "SWIR $swlid: PortStateChange still set after bring-up:"$'\n'"$swir"
  [[ $(sed -n 's/^StateChange:\.*//p' <<<"$si") == 0 ]] ||
    fail "switch LID $swlid still flags PortStateChange:"$'\n'"$si"
  echo "SWIR $swlid: MulticastFDBTop $sa_top (the switch: $sw_top), PortStateChange 0"
  kill -0 "$pid" 2>/dev/null || fail "ibsm died when saquery asked it:"$'\n'"$(tail -5 stderr.txt)"
  if wait_for_status $sock '.sa.received >= 4 and .sa.by_attribute.VLArbitrationTableRecord >= 1 and .sa.answered == .sa.received and
      .sa.by_attribute.PathRecord >= 1 and .sa.by_attribute.NodeRecord >= 1 and .sa.by_attribute.ClassPortInfo >= 1' 5; then
    echo "sa counters: $(ibsm_status_json $sock | jq -c .sa)"
  else
    fail "ibsm's status does not count the SA queries answered: $(ibsm_status_json $sock | jq -c .sa)"
  fi
  status_holds $sock '.state == "MASTER" and .up' || fail "ibsm is no longer a master that is up"
else
  fail "the subnet is not up within 60 s"
fi

stop_pid "$pid" TERM 5
rc=$?
[[ $rc -eq 0 ]] || fail "ibsm exited $rc after SIGTERM:"$'\n'"$(cat stderr.txt)"

finish "$(basename "$net" .net): saquery to the master, $((SECONDS - start)) s" ibsm.log
