// The parts of diff() (Diff.h), one per kind of object programming writes,
// and what they share. Private to sm/program; pure.
#pragma once

#include <ibsm/ProgrammedSl2Vl.h>
#include <ibsm/QosPolicy.h>
#include <ibsm/SubnetPlan.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sm/program/HeldSubnet.h"
#include "sm/program/ProgramOptions.h"
#include "sm/program/ProgramSteps.h"

namespace ibsm::sm::program {

struct DiffInput {
  const SubnetPlan& plan;
  const HeldSubnet& held;
  const discovery::DiscoveredSubnet& seen;  // held.observed()
  const ProgramOptions& options;
  Lid smLid;  // the SM port's LID in the plan
  // The MFTs to program: plan.multicast's in a sweep, a pass's own trees
  // between sweeps (diffMulticast); null: MFTs are left alone.
  const MulticastPlan* mfts{nullptr};
  // false: no ReadVlArb step is made (DiffScope::Program).
  bool saReads{true};
};

// PortInfo: LIDs (SM port first), link parameters, enforcement; Armed, Active.
void diffPorts(const DiffInput& in, ProgramDiff& out);
// SwitchInfo:LinearFDBTop and LFT blocks.
void diffLfts(const DiffInput& in, ProgramDiff& out);
// SwitchInfo as the Lfts phase leaves it (LinearFDBTop, LifeTimeValue), the
// base of any later SwitchInfo Set of the same switch.
SwitchInfo switchInfoAfterLfts(const DiffInput& in, NodeId sw, const SwitchInfo& held);
// MFT blocks of in.mfts and MulticastFDBTop, in the phases MftPrune,
// Mfts and MftTop (ProgramSteps.h says why three).
void diffMfts(const DiffInput& in, ProgramDiff& out);
// PKeyTable blocks of the ports plan.pkeys lists.
void diffPKeys(const DiffInput& in, ProgramDiff& out);
// SLtoVLMappingTables of plannedSl2Vl().
void diffSl2Vl(const DiffInput& in, ProgramDiff& out);

// The SL2VL tables to program: plan.routing.sl2vl's (with QoS, the engine's
// VL layers with the QoS classes multiplied in: qos::adoptLayeredSl2Vl) and
// plan.qosTables' for every other port QoS covers; checkInputs refuses a
// plan that gives one (node, in port, out port) two tables.
// The reader `ibsm path` and `ibsm dump sl2vl` use too (ProgrammedSl2Vl.h);
// a QoS table's VLs are masked by the port's OperationalVLs when written.
using PlannedSl2Vl = ProgrammedSl2Vl;
using PlannedSl2VlTables = ProgrammedSl2VlTables;
PlannedSl2VlTables plannedSl2Vl(const SubnetPlan& plan);
// plan.qosTables' SL2VL tables in the engine's form (an Sl2VlEntry names a
// CA port as outPort, in port 0); empty without qosTables.
std::vector<Sl2VlEntry> qosSl2VlEntries(const SubnetPlan& plan);
// The port's VLArbitration tables in plan.qosTables, if any.
const qos::QosVlArb* findQosVlArb(const SubnetPlan& plan, PortRef port);

// VLArbitration blocks: those plan.qosTables gives a port are read when
// Unknown (ReadTables) and written when they differ (in the Sl2Vl phase);
// every other block the ports' caps offer and the held model does not know
// is read for the SA (ReadVlArb).
void diffVlArb(const DiffInput& in, ProgramDiff& out);

// PortInfo:OperationalVLs as the port will hold it once this sweep's
// PortInfo Sets are in (a link port still in Init gets the lower VLCap of
// its cable's ends, setLinkParameters in PortDiff.cpp); the held value
// otherwise. 0 where the port was not read.
std::uint8_t operationalVlsAfterSweep(const discovery::DiscoveredSubnet& seen, PortRef port);
// The VLs a port running `operationalVls` (IBA code) keeps of a table's VL
// field, as OpenSM masks QoS tables: (1 << (code - 1)) - 1, code 0 taken as 1.
std::uint8_t vlMask(std::uint8_t operationalVls);

// Fail when the tables were not made for this fabric.
[[nodiscard]] Result<void> checkPKeyTables(const Fabric& fabric, const PKeyTables& tables);
[[nodiscard]] Result<void> checkSl2VlEntries(const Fabric& fabric,
                                             const std::vector<Sl2VlEntry>& entries);

// Data VLs a PortInfo:OperationalVLs (or VLCap) code stands for:
// 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14.
std::uint8_t dataVls(std::uint8_t code);
// Data VLs each link port must run for the SL2VL tables: one more than the
// highest VL they send out of it, asked of both ends of the cable (the
// receiver keeps its buffers per VL too). Ports no table sends on are absent.
std::unordered_map<PortRef, std::uint8_t> vlsNeeded(const Fabric& fabric,
                                                    const std::vector<Sl2VlEntry>& entries);

// A block as the plan wants it: read first when its contents are Unknown,
// written unless it is Known to hold `want`. `get()` and `set()` make the
// Get and the Set (encoding, route) only when they are sent: a block known
// to hold `want` -- every block of a sweep with nothing to change -- costs
// one look-up and one comparison of its bytes.
template <typename Kind, typename MakeGet, typename MakeSet>
void diffBlock(const HeldSubnet& held, BlockTarget<Kind> target, const typename Kind::Block& want,
               ProgramPhase phase, MakeGet&& get, MakeSet&& set, ProgramDiff& out) {
  const std::optional<typename Kind::Block> known =
      held.table<Kind>().block(target.owner, target.index);
  if (known && *known == want) return;  // Known (never Unknown) and holding what the plan wants
  if (held.state<Kind>(target.owner, target.index) == BlockState::Unknown)
    out.phase(ProgramPhase::ReadTables).push_back(ProgramStep{target, get()});
  out.phase(phase).push_back(ProgramStep{target, set()});
}

}  // namespace ibsm::sm::program
