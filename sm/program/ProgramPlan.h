// The pure half of programming: from what discovery read, what the plan
// wants and what the switches are known to hold, the SMP Sets that close
// the gap, grouped in OpenSM's phase order. No I/O; the executor
// (SubnetProgrammer.h) sends them and records what failed.
//
//   auto steps = planProgramming(discovered, plan, cache, options);
//   for (const ProgramStep& s : steps->phase(Phase::Lfts)) engine.submit(s.request, ...);
//
// Which fields are whose: a PortInfo Set writes back the PortInfo as read,
// changing only LID, LMC, MasterSMLID and GidPrefix (ports that carry a
// LID: switch port 0, CA ports), NeighborMTU and OperationalVLs (link
// ports still in Init), ClientReregister (if asked),
// PartitionEnforcementInbound/Outbound (switch external ports listed in
// plan.pkeys: on where `enforce` and the switch can, off otherwise) and
// PortState (only in the state phases). Enable fields (width, speed, physical and link-down
// state) are written as 0, "no change", so a Set never retrains a link.
#pragma once

#include <ibsm/SubnetPlan.h>

#include <array>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "DiscoveredSubnet.h"
#include "MadEngine.h"
#include "ProgramOptions.h"
#include "SwitchTableCache.h"

namespace ibsm::sm {

// In the order they run; each waits for the one before.
enum class Phase : std::uint8_t {
  ReadTables,  // Get LFT and PKey blocks and SL2VL tables the cache does not know yet
  PKeys,       // PKeyTable blocks that differ (before LIDs, as OpenSM)
  SmLid,       // the SM's own port: its LID and MasterSMLID
  Lids,        // PortInfo of every other port
  Lfts,        // SwitchInfo:LinearFDBTop and LFT blocks
  Sl2Vl,       // SLtoVLMappingTables that differ (engines that need VLs)
  Armed,       // Init ports to Armed, both ends of each link
  Active,      // Armed ports to Active, once the LFTs are in place
};
inline constexpr std::size_t kPhaseCount = 8;
std::string_view phaseName(Phase phase);

// What a step writes, so the executor can tell what failed and update the cache.
struct PortTarget {
  PortRef port;
};
struct TopTarget {
  NodeId sw{0};
  Lid top;
};
struct BlockTarget {
  NodeId sw{0};
  std::uint16_t block{0};
  LftBlock contents;  // what a Set writes (unused by reads)
};
struct PKeyTarget {
  PortRef port;
  std::uint16_t block{0};
  PKeyBlock contents;  // what a Set writes (unused by reads)
};
struct Sl2VlTarget {
  NodeId node{0};
  std::uint8_t in{0};    // 0 on a CA
  std::uint8_t out{0};   // the CA's port on a CA
  SlToVlTable contents;  // what a Set writes (unused by reads)
};
using StepTarget = std::variant<PortTarget, TopTarget, BlockTarget, PKeyTarget, Sl2VlTarget>;

struct ProgramStep {
  StepTarget target;
  SmpRequest request;
};

struct ProgramPlan {
  std::array<std::vector<ProgramStep>, kPhaseCount> phases;
  // Ports or switches left alone, and why (unreachable, table too small...).
  std::vector<std::string> notes;

  const std::vector<ProgramStep>& phase(Phase p) const {
    return phases[static_cast<std::size_t>(p)];
  }
  std::vector<ProgramStep>& phase(Phase p) { return phases[static_cast<std::size_t>(p)]; }
};

// Fails only when the plan was not made from this discovery (other nodes,
// PKey or SL2VL tables naming ports it lacks) or the SM's port is not part
// of it. ReadTables is left empty: reads depend on the caches' admit(),
// which the executor does first. With plan.pkeys nullopt no PKey table is
// touched; with plan.routing.sl2vl empty no SL2VL table is. A link port
// that runs fewer VLs than its SL2VL tables send on is noted (OperationalVLs
// changes only in Init, so an Active link keeps what it has).
[[nodiscard]] Result<ProgramPlan> planProgramming(const DiscoveredSubnet& discovered,
                                                  const SubnetPlan& plan,
                                                  const SwitchTableCache& cache,
                                                  const ProgramOptions& options);

// A directed route that enters the node through `port`: the only way to
// Set a CA port (a CA accepts Sets of PortInfo only for the port the SMP
// came in on); any route to a switch does. nullopt when none is known.
std::optional<DrPath> pathToPort(const DiscoveredSubnet& discovered, PortRef port);

// The 64 LFT entries of block `index` as the plan wants them.
LftBlock plannedBlock(const Lft& lft, std::uint16_t index);

}  // namespace ibsm::sm
