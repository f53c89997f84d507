// The safety net that makes ftree's tables deadlock-free whatever the
// cabling: for one destination, checks that every switch's chain of next
// hops climbs and then only descends in the hub order, and routes the
// switches whose chain does not (or that have no next hop: no common
// ancestor with the destination) by that order's own Up*/Down* rules.
//
//   std::vector<CableId> next = ...;  // the tree's routes; kDeliver at the target
//   const std::size_t fixed = legaliser.legalise(next, target);
//   hops = legaliser.hops(leaf);
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/engines/ftree/FatTreeHub.h"
#include "routing/engines/ftree/FatTreeLayout.h"

namespace ibsm::routing::ftree {

class Legaliser {
 public:
  Legaliser(const FatTreeLayout& layout, const HubOrder& hub);

  // Returns how many switches it routed; `next[target]` must be kDeliver.
  // Only a disconnected fabric (refused earlier) can leave one unrouted.
  std::size_t legalise(std::vector<CableId>& next, SwitchIndex target);

  // Switch hops from s to the target along `next`, valid after legalise.
  std::uint16_t hops(SwitchIndex s) const { return dist_[s]; }

 private:
  enum State : std::uint8_t { kUnknown, kDescending, kClimbing, kBroken };

  void evaluate(const std::vector<CableId>& next);
  // Routes the switches flagged in pending_; false when one has no way out.
  bool reroute(std::vector<CableId>& next);
  template <typename Usable>
  bool pick(SwitchIndex s, std::span<const CableId> cables, Usable&& usable,
            std::vector<CableId>& next);

  const FatTreeLayout& layout_;
  const HubOrder& hub_;
  std::vector<bool> climbs_;  // per cable: leads to an earlier switch in the hub order
  // Per switch, its cables to earlier and to later switches in the hub order.
  std::vector<std::uint32_t> firstEarlier_, firstLater_;
  std::vector<CableId> earlier_, later_;
  std::vector<std::uint8_t> state_;
  std::vector<std::uint16_t> dist_;
  std::vector<std::uint32_t> spread_;  // per cable: hub-ordered entries using it
  std::vector<std::uint8_t> pending_;  // per switch: to be routed by the hub order
};

}  // namespace ibsm::routing::ftree
