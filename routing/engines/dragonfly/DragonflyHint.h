// The tables the switches held before a loss, as the dragonfly engine's hint
// (RoutingOptions::previous). Toward each LID a switch keeps its previous
// entry when the previous chain from it still reaches the LID and is no
// longer than the route the engine takes from it now: minimal in the
// degraded-dragonfly sense (DragonflyRoutes.h), where a detour around a
// missing cable is the shortest the cabling allows. A switch that does not
// keep takes the engine's entry; since every kept chain is no longer than
// the engine's, no route of the mix is longer than the engine's own, and none
// loops. The VLs are then planned on the mix (DragonflyVls.h), and the engine
// keeps the mix only when that plan is proven and needs no more VLs than the
// fresh routes' plan.
//
//   const auto kept = keepPrevious(graph, ports, chains, tables);  // before planVls
#pragma once

#include <cstdint>

#include "routing/engines/dragonfly/DragonflyRoutes.h"
#include "routing/graph/PreviousChains.h"

namespace ibsm::routing::dragonfly {

// Puts the kept entries into `tables` (and their hops into tables.len);
// returns how many (switch, LID) entries were kept.
std::uint64_t keepPrevious(const SwitchGraph& graph, const PortMap& ports, PreviousChains& chains,
                           DragonflyTables& tables);

}  // namespace ibsm::routing::dragonfly
