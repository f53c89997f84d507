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
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "routing/multicast/McMembers.h"
#include "routing/multicast/McRoots.h"
#include "routing/multicast/McTreeBuilder.h"

namespace ibsm::routing {

// The tree every group planned along an order is part of: each component
// rooted at its first switch, every other switch hanging from an earlier
// neighbour on a shortest path that only descends (OrderCheck::alongTree).
struct UpDownTree {
  OneTree tree;                      // each switch's cable to its parent
  std::vector<std::uint16_t> depth;  // cables below its component's root
  std::vector<SwitchIndex> rootOf;   // by McRoots::component
};

// Which groups are planned along the order, decided per group from its
// MLID's root and rotation, never from its members. A group's tree is the
// union of its member switches' climbs toward the root: part of the union of
// the climbs of every switch with a CA (and of the group's own switch
// members, port 0). Where that union passes no copy down into a switch and up
// out of it, no join can make the group's tree do so; where it does, the
// group is planned along the order from its start. So a join or a leave
// never moves a tree from one plan to the other, and one group's choice
// moves no other group's tree. Trees of both kinds together close no loop
// with the routes: none of them, and none of the routes, turns from a cable
// toward a later switch onto one toward an earlier switch (up*/down*'s turn
// rule), and every cycle of channels needs such a turn.
class OrderCheck {
 public:
  // `positions` by NodeId (RoutingResult::upDownOrder).
  OrderCheck(const SwitchGraph& graph, const std::vector<std::uint32_t>& positions);

  // Whether every tree grown from `root` with `rotation` over `hops` (BFS
  // hops from root, McRoots::hopsFrom) climbs, then descends, whatever its
  // members; `members` adds its switches' own ports (port 0) to the switches
  // with CAs. Cached by root and rotation modulo the period after which the
  // choice among equal parents repeats (McTreeBuilder upCable).
  bool keeps(SwitchIndex root, std::uint32_t rotation, const std::vector<std::uint16_t>& hops,
             const std::vector<PlacedMember>& members);
  // The tree along the order, made on first use; nullptr where the order
  // leaves some switch other than its component's first without an earlier
  // neighbour (updn's order and the hub order give every other switch one).
  const UpDownTree* alongTree(const McRoots& roots);

 private:
  bool keepsFrom(SwitchIndex root, std::uint32_t rotation, const std::vector<std::uint16_t>& hops,
                 const std::vector<SwitchIndex>& extra) const;
  std::uint32_t period(SwitchIndex root, const std::vector<std::uint16_t>& hops);

  const SwitchGraph& graph_;
  std::vector<std::uint32_t> pos_;  // by switch
  std::map<std::pair<SwitchIndex, std::uint32_t>, bool> known_;
  std::map<SwitchIndex, std::uint32_t> periods_;  // 0: no period below the cap
  std::optional<std::optional<UpDownTree>> along_;
};

// Whether some switch forwards some group's copies on two cables toward
// switches earlier than itself: a copy may descend into it and climb out.
bool descendsThenClimbs(const SwitchGraph& graph, const std::vector<SwitchMft>& mfts,
                        const std::vector<std::uint32_t>& positions);

}  // namespace ibsm::routing
