// From what a walk saw to what the SM believes: nodes and ports filled the
// way the topology readers fill them, and a cable only where both of its
// ends confirm it. Pure: no I/O, no logging; every doubt becomes a problem
// line that Discovery logs.
#pragma once

#include "sm/discovery/DiscoveredSubnet.h"
#include "sm/discovery/Observations.h"

namespace ibsm::sm::discovery {

// Needs at least the SM's own node in `seen` (nodes[0]).
DiscoveredSubnet assembleSubnet(const Observations& seen);

}  // namespace ibsm::sm::discovery
