// An edit of the held observation that lets a light sweep reroute without a
// NodeInfo sweep: the cables that went down since, taken out.
//
//   auto edited = withoutLinks(held.observed(), {PortRef{sw, 5}});  // a cable pulled
//   if (!edited) ...                                                 // only a heavy sweep helps
//   held.observe(std::move(*edited));                                // then plan and program
//
// Pure: no MADs.
#pragma once

#include <ibsm/Error.h>

#include <span>

#include "sm/discovery/DiscoveredSubnet.h"

namespace ibsm::sm::manager {

// The subnet without the cables at `lost` (either end named; a port that
// is not cabled is ignored): both ends Down, nodes no longer reachable
// from the SM's port dropped (NodeIds renumbered in the old order), and a
// new directed route for every node whose old one crossed a lost cable.
// Fails when the SM's own node would be dropped, which cannot happen, or
// a route would exceed 63 hops.
[[nodiscard]] Result<discovery::DiscoveredSubnet> withoutLinks(
    const discovery::DiscoveredSubnet& last, std::span<const PortRef> lost);

}  // namespace ibsm::sm::manager
