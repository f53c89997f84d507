// The one order of switches that makes ftree's tables free of credit loops on
// a single VL. A hop toward an earlier switch is "up"; when every chain of
// next hops (from any switch, for any destination LID) climbs and then only
// descends in this order, the channel dependencies follow the order and
// cannot close a cycle (Autonet's Up*/Down* argument).
//
// Why not the fat tree's levels alone: the top switches are several minima,
// and between two of them (or between an aggregation switch and one of
// another column) no climbing-then-descending path exists at all, yet
// switch LIDs must be routed from everywhere. So the order starts at one hub
// leaf, takes the hub's ancestors next (lowest first), then everything else
// top level first. Every switch then has an earlier neighbour, so every pair
// has a legal path; and a shortest CA-to-CA path of the tree stays legal: it
// enters the hub's ancestors climbing, and leaves them descending.
//
//   const HubOrder hub = hubOrder(layout, reach);
//   if (hub.isUp(from, to)) ...
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeReach.h"

namespace ibsm::routing::ftree {

struct HubOrder {
  SwitchIndex hub{0};
  std::vector<std::uint32_t> position;  // per switch
  std::vector<SwitchIndex> order;       // switches by position
  std::size_t topsAboveHub{0};

  bool isUp(SwitchIndex from, SwitchIndex to) const { return position[to] < position[from]; }
};

// The hub is the leaf with the most top switches above it (then the most
// ancestors, then the first in canonical order): on a degraded tree, one
// whose ancestors miss no cable. `keep`, when given (the previous tables'
// hub, HintColumns::previousHub), stays the hub while it is still a compute
// leaf with a top above it: a lost cable above the hub then leaves the order,
// and with it every kept chain's legality, where it was.
HubOrder hubOrder(const FatTreeLayout& layout, const FatTreeReach& reach,
                  std::optional<SwitchIndex> keep = std::nullopt);

}  // namespace ibsm::routing::ftree
