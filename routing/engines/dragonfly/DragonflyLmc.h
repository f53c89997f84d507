// The later LIDs of a CA port's LMC range as multipath (issue 33): the base
// LID (offset 0) keeps the minimal route the planner gave it; each later LID
// starts from the base LID's entries and moves, switch by switch, to the
// port that leaves the fewest source switches sharing a cable (a directed
// channel) with the routes the port's earlier LIDs take from them, then the
// fewest hops. So a LID takes another global link between the groups where
// the group pair has several, a detour through a third group (Valiant) where
// it has one, and another router inside the groups. A route may take at most
// one global link more than its base route (two at least) and two hops more,
// so the VL plan (DragonflyVls.h) stays a few levels; the plan still proves
// the result. Ports are planned apart (in parallel); a port's later LIDs in
// order, each against the ones before it: the same tables on any number of
// threads.
#pragma once

#include "routing/engines/dragonfly/DragonflyGroupIndex.h"
#include "routing/engines/dragonfly/DragonflyRoutes.h"

namespace ibsm::routing::dragonfly {

// Rewrites tables.out for every CA LID with rangeOffset > 0 whose base LID
// (the LID rangeOffset below it) is routed; before extendRoutes.
void planAlternates(const SwitchGraph& graph, const PortMap& ports, DragonflyTables& tables);

}  // namespace ibsm::routing::dragonfly
