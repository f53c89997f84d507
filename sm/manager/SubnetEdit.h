// Edits of a DiscoveredSubnet that let a light sweep reroute without a
// NodeInfo sweep: the last discovery, brought up to date with what
// programming wrote and with the cables that went down since.
//
//   DiscoveredSubnet now = settled(discovered, plan, options, cache.pkeys());  // after a complete
//   run auto edited = withoutLinks(now, {PortRef{sw, 5}});           // a cable pulled if (!edited)
//   ...   // the SM's own port lost: only a heavy sweep helps planSubnet(edited->fabric, ...);
//   SubnetProgrammer(...).program(*edited, plan);
//
// Pure: no MADs.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/SubnetPlan.h>

#include <span>

#include "DiscoveredSubnet.h"
#include "PKeyCache.h"
#include "ProgramOptions.h"

namespace ibsm::sm {

// What the subnet holds once `plan` was programmed completely: the plan's
// LIDs, the PortInfo fields programming owns (partition enforcement too,
// except on ports `pkeys` knows to ignore it, as programming does), links
// Active and each switch's LinearFDBTop. Programming it again then sends
// nothing, so a reroute from it writes only what the new routes change.
DiscoveredSubnet settled(DiscoveredSubnet discovered, const SubnetPlan& plan,
                         const ProgramOptions& options, const PKeyCache& pkeys);

// The subnet without the cables at `lost` (either end named; a port that
// is not cabled is ignored): both ends Down, nodes no longer reachable
// from the SM's port dropped (NodeIds renumbered in the old order), and a
// new directed route for every node whose old one crossed a lost cable.
// Fails when the SM's own node would be dropped, which cannot happen, or
// a route would exceed 63 hops.
[[nodiscard]] Result<DiscoveredSubnet> withoutLinks(const DiscoveredSubnet& last,
                                                    std::span<const PortRef> lost);

}  // namespace ibsm::sm
