// What programming sends, as values: the SMPs that close the gap between
// the plan and what the subnet holds, each with the object it reads or
// writes, grouped in OpenSM's phase order. diff() (Diff.h) makes them,
// SubnetProgrammer sends them, HeldSubnet::apply() learns from the replies.
#pragma once

#include <ibsm/Ids.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sm/mad/MadEngine.h"
#include "sm/program/TableKinds.h"

namespace ibsm::sm::program {

// In the order they run; each waits for the one before.
enum class ProgramPhase : std::uint8_t {
  ReadTables,  // Get table blocks worth knowing before writing
  PKeys,       // PKeyTable blocks that differ (before LIDs, as OpenSM)
  SmLid,       // the SM's own port: its LID and MasterSMLID
  Lids,        // PortInfo of every other port
  Lfts,        // SwitchInfo:LinearFDBTop and LFT blocks
  // Multicast forwarding tables, so that a reroute never has a moment with
  // a loop. A tree's masks form a forest (a tree, cut where a mask lacks
  // a port), and any subset of a forest's edges is a forest: no loop. So
  // MftPrune first writes every block whose held masks have ports the plan
  // drops as held AND planned (and lowers MulticastFDBTop, which only hides
  // entries); while it runs, every entry is its old value or a subset of
  // it, a subset of the old trees. Once it is done every entry is a subset
  // of the new trees, and Mfts writes the planned blocks: every entry is
  // then its pruned value or its planned one, a subset of the new trees.
  // Neither phase ever mixes an old edge with a new one, whatever order the
  // switches apply the writes in. A block that only gains ports is one
  // write (in Mfts), one that only loses ports one write (in MftPrune);
  // only a port moved to another one costs two. MftTop raises
  // MulticastFDBTop once the entries below it are written, so a switch
  // never forwards on an entry not yet written. A failed prune write defers
  // the Mfts writes of its MLID block (old and new would otherwise meet).
  MftPrune,
  Mfts,
  MftTop,
  // SLtoVLMappingTables that differ (engines that need VLs, QoS), and the
  // VLArbitration blocks QoS gives that differ: both before any link is
  // Armed, so data flows only under the tables QoS asked for.
  Sl2Vl,
  Armed,   // Init ports to Armed, both ends of each link
  Active,  // Armed ports to Active, once the tables are in place
  // SwitchInfo Sets writing PortStateChange 1 (the IBA's write-1-to-clear)
  // on the switches whose held SwitchInfo flags it, as OpenSM clears it at
  // the end of its heavy sweep: what discovery saw is taken in, so the flag
  // is left to mean "a port changed since", for the light sweep and the SA.
  PortStateChange,
  ReadVlArb,  // VLArbitration Gets for the SA (readForSa(), after up; program() skips it)
};
inline constexpr std::size_t kProgramPhases = 13;
std::string_view phaseName(ProgramPhase phase);

// The object a step reads or writes, so that the executor can tell what
// failed and HeldSubnet what a reply proves.
struct PortInfoTarget {
  PortRef port;
  // A Set sent only to write the port's M_Key protection: counted apart
  // from the ports configured (ProgramSummary::portsKeyed).
  bool keyOnly{false};
};
struct SwitchInfoTarget {
  NodeId sw{0};
  Lid top;       // the LinearFDBTop it writes
  Lid mcastTop;  // the MulticastFDBTop it writes (the held one, unless an MFT phase's)
};
template <typename Kind>
struct BlockTarget {
  NodeId node{0};
  typename Kind::Owner owner;
  std::uint16_t index{0};
  std::uint16_t count{1};  // blocks the owner's table has, for a first sight
};
using StepTarget =
    std::variant<PortInfoTarget, SwitchInfoTarget, BlockTarget<LftKind>, BlockTarget<PKeyKind>,
                 BlockTarget<Sl2VlKind>, BlockTarget<VlArbKind>, BlockTarget<MftKind>>;

struct ProgramStep {
  StepTarget target;
  SmpRequest request;
};

// The node whose links a failed write of this step holds out of Active,
// if any: the owner of a table that forwarding depends on, or the switch
// whose SwitchInfo (LinearFDBTop) could not be written.
std::optional<NodeId> nodeHeldOnFailure(const StepTarget& target);
// The table kind a step reads or writes, if it is a block of one.
std::optional<TableKind> tableKindOf(const StepTarget& target);
// "LFT block 3 of switch \"s1\" (0x...)", for log lines and failures.
std::string describeTarget(const Fabric& fabric, const StepTarget& target);

struct ProgramDiff {
  std::array<std::vector<ProgramStep>, kProgramPhases> phases;
  // Objects left alone, and why (unreachable, table too small...).
  std::vector<std::string> notes;
  // No Set of the Lids phase gives a port another LID or LMC (a takeover
  // adopting the LIDs the fabric holds, a sweep that moves none): the LFTs
  // then route LIDs the ports already hold, so nothing in them waits on
  // the Lids phase, and SubnetProgrammer sends the two phases as one wave
  // (no barrier between them: issue 32, the takeover's 7,632 PortInfo Sets
  // of MasterSMLID overlap its 47,520 LFT blocks).
  bool lidsKept{true};

  const std::vector<ProgramStep>& phase(ProgramPhase p) const {
    return phases[static_cast<std::size_t>(p)];
  }
  std::vector<ProgramStep>& phase(ProgramPhase p) { return phases[static_cast<std::size_t>(p)]; }
};

}  // namespace ibsm::sm::program
