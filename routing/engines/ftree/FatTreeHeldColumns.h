// Which destination LIDs' previous columns hold whole, 64 LIDs at a time:
// the cheap first look at the previous tables (RoutingOptions::previous)
// under change, before the per-switch walk (PreviousChains.h), which is then
// needed only for the few LIDs a change touched.
//
// A LID's column "holds whole" when, from every switch, the previous chain
// of next hops climbs, then only descends in the hub order (FatTreeHub.h)
// over cables that exist now and delivers at the LID's switch on the port
// that owns it. Such a chain holds by PreviousChains' rule as well (it
// exists hop by hop and delivers), so every switch's verdict toward a LID
// held whole is "holds", and the walk is skipped for it. A chain that holds
// but is not climb-then-descend in this order only costs the walk.
//
// Bit-parallel over a tile of 64 LIDs: the D/U mask pass of
// routing/graph/HubOrderedLanes.h on the previous tables.
//
//   auto held = heldColumns(fabric, graph, previous, rootGuids);  // nullopt: no fat tree
//   HeldColumns::Scratch scratch;
//   const std::uint64_t whole = held->wholeLanes(lanes, scratch);
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "routing/engines/ftree/FatTreeHub.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeReach.h"
#include "routing/graph/HubOrderedLanes.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::ftree {

struct HintPass;

// One LID to judge: delivered by switch `sw` on `port` (0: its own LID).
struct HeldLane {
  Lid lid;
  SwitchIndex sw{0};
  std::uint8_t port{0};
};

class HeldColumns {
 public:
  // `previous` is indexed by NodeId of the fabric `graph` was built from; an
  // empty Lft where a switch had none (its chains hold nowhere).
  HeldColumns(const SwitchGraph& graph, const HubOrder& hub, std::span<const Lft> previous);

  using Scratch = HubOrderedLanes::Masks;

  // Bit i set: lane i (at most 64 lanes) holds whole. Thread-safe with a
  // scratch per thread.
  std::uint64_t wholeLanes(std::span<const HeldLane> lanes, Scratch& scratch) const;

  // The switches by hub position: the order the columns held whole climb,
  // then descend in.
  const std::vector<SwitchIndex>& order() const { return order_; }

 private:
  std::uint8_t entry(SwitchIndex s, Lid lid) const {
    return lid.value < tableSize_[s] ? table_[s][lid.value] : kNoRoute;
  }
  std::vector<SwitchIndex> order_;  // by hub position
  std::vector<const std::uint8_t*> table_;
  std::vector<std::size_t> tableSize_;
  HubOrderedLanes hops_;
};

// `fabric` read as a fat tree, in the hub order ftree routes it in with
// previous tables (their own hub kept): built once under change for the
// pass and for the engine (PreviousHolds::frame), which reuses it when it
// routes the same fabric with the same root GUIDs.
struct FatTreeFrame {
  FatTreeFrame(const Fabric* f, std::vector<Guid> roots, FatTreeLayout l)
      : fabric(f), rootGuids(std::move(roots)), layout(std::move(l)), reach(layout) {}
  const Fabric* fabric;  // the fabric it was read from
  std::vector<Guid> rootGuids;
  FatTreeLayout layout;
  FatTreeReach reach;
  HubOrder hub;
  // The first half of ftree's routing by the hint, made by the judge under
  // change before ftree routes from this frame (FatTreeHintPass.h); set
  // before the frame is shared, never after. Null: ftree makes its own.
  std::shared_ptr<const HintPass> pass;

  bool fits(const Fabric& f, const std::vector<Guid>& roots) const {
    return &f == fabric && roots == rootGuids;
  }
};

// Null when the fabric is no fat tree or there are no previous tables.
std::shared_ptr<FatTreeFrame> fatTreeFrame(const Fabric& fabric, const SwitchGraph& graph,
                                           std::span<const Lft> previous,
                                           const std::vector<Guid>& rootGuids);

// The pass on `fabric` read as a fat tree (fatTreeFrame); nullopt when the
// fabric is no fat tree or there are no previous tables.
std::optional<HeldColumns> heldColumns(const Fabric& fabric, const SwitchGraph& graph,
                                       std::span<const Lft> previous,
                                       const std::vector<Guid>& rootGuids);

}  // namespace ibsm::routing::ftree
