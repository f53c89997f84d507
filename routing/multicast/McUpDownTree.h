// Multicast trees that keep to the routes' Up*/Down* order (issue 33, one VL).
// updn's routes climb, then descend, in one total order of the switches
// (routing/engines/updn/UpDownOrder.h), and so do ftree's on one VL in its
// hub order (routing/engines/ftree/FatTreeHub.h): their channel dependencies
// close no cycle. A copy of a group turns at a tree switch from
// any of its tree cables to every other: a switch with two tree cables toward
// earlier switches passes copies that descend into it and climb out, and that
// turn can close a loop with the routes (dragonfly+ on one VL: the tree runs
// from one spine through a leaf up to the next spine). A tree in which every
// switch has one cable toward an earlier switch, its parent, only climbs and
// then descends, as the routes do: with them, no loop on any VL.
#pragma once

#include <ibsm/Multicast.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "routing/multicast/McRoots.h"
#include "routing/multicast/McTreeBuilder.h"

namespace ibsm::routing {

// The tree every group's tree is part of under an order: each component
// rooted at its first switch, every other switch hanging from an earlier
// neighbour on a shortest path that only descends.
struct UpDownTree {
  OneTree tree;                      // each switch's cable to its parent
  std::vector<std::uint16_t> depth;  // cables below its component's root
  std::vector<SwitchIndex> rootOf;   // by McRoots::component
};

// `positions` by NodeId (RoutingResult::upDownOrder). nullopt when some
// switch other than its component's first has no earlier neighbour (updn's
// order and the hub order give every other switch one).
std::optional<UpDownTree> upDownTree(const SwitchGraph& graph, const McRoots& roots,
                                     const std::vector<std::uint32_t>& positions);

// Whether some switch forwards some group's copies on two cables toward
// switches earlier than itself: a copy may descend into it and climb out.
bool descendsThenClimbs(const SwitchGraph& graph, const std::vector<SwitchMft>& mfts,
                        const std::vector<std::uint32_t>& positions);

}  // namespace ibsm::routing
