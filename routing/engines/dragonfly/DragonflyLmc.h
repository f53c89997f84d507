// The later LIDs of a CA port's LMC range as multipath (issue 33): the base
// LID (offset 0) keeps the minimal route the planner gave it; each later LID
// starts from the base LID's entries and moves, switch by switch, to the
// port that leaves the fewest source switches sharing a cable (a directed
// channel) with the routes the port's earlier LIDs take from them, then the
// fewest hops. So a LID takes another global link between the groups where
// the group pair has several, a detour through a third group (Valiant) where
// it has one, and another router inside the groups. A route takes at most
// two global links, one local hop in each group it passes and two hops more
// than its base route; and every turn but a route's last is taken at one
// level (global links crossed before it) by all routes, as a table of the
// levels taken so far says, so that SL2VL by (in port, out port) carries
// the detours on one VL more than the minimal routes (DragonflyVls.h still
// proves it). That table makes the ports' plans one after another, in LID
// order: the same tables on any number of threads.
#pragma once

#include "routing/engines/dragonfly/DragonflyGroupIndex.h"
#include "routing/engines/dragonfly/DragonflyRoutes.h"

namespace ibsm::routing::dragonfly {

// Rewrites tables.out and tables.len for every CA LID with rangeOffset > 0
// whose base LID (the LID rangeOffset below it) is routed; after
// extendRoutes. False (nothing changed) on fabrics too large to plan in
// seconds. With `ownSl` the later LIDs travel on an SL (and VLs) of their
// own (DragonflyVls.h: splitVls): their turns need keep one level only
// among themselves, not with the base routes', which frees a detour's
// local hop in the third group.
bool planAlternates(const SwitchGraph& graph, const PortMap& ports, DragonflyTables& tables,
                    bool ownSl = false);

}  // namespace ibsm::routing::dragonfly
