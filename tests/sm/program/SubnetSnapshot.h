// DiscoveredSubnets for tests of programming, without sm/discovery: the
// topology is taken as known, and only what programming diffs against
// (PortInfo, SwitchInfo, directed routes) is filled in.
//
//   Fabric f = unprogrammed(sampleFabric("two-switch-dual-port-hcas.net"));
//   DiscoveredSubnet pure = snapshotOf(f, sm);            // from the Fabric's fields
//   DiscoveredSubnet live = readOverWire(engine, f, sm);  // Gets through a fake
#pragma once

#include <ibsm/Fabric.h>

#include "sm/discovery/DiscoveredSubnet.h"
#include "sm/mad/MadEngine.h"

namespace ibsm::testing {

// A fabric as it comes out of the box: no LIDs, cabled links in Init (the
// fake reads Down as Init), switch port 0 Active as on ibsim, no tables.
Fabric unprogrammed(Fabric fabric);

// sw0 --3-- sw1 (4 ports each); ca0 (NodeId 2, the SM's port 1) on sw0
// port 1; ca1 (NodeId 3) on sw1 port 1; unprogrammed: the smallest fabric
// with a switch-to-switch link, two CA ports and a port beyond the SM's
// switch.
Fabric twoSwitchFabric();

// Directed routes by breadth-first search from the SM's port; only
// switches (and the SM's own node, out of its port) forward.
std::vector<DrPath> routesFrom(const Fabric& fabric, PortRef smPort);

// What discovery would report for a fabric in the state its fields record,
// with PortInfo and SwitchInfo as the fake fabric would answer them.
sm::discovery::DiscoveredSubnet snapshotOf(const Fabric& fabric, PortRef smPort);

// The same, but every PortInfo and SwitchInfo read through `engine` (over
// a fake fabric cabled as `topology`), so it shows what earlier Sets wrote.
sm::discovery::DiscoveredSubnet readOverWire(MadEngine& engine, const Fabric& topology,
                                             PortRef smPort);

}  // namespace ibsm::testing
