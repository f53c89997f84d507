// What updn reads of its previous order in the previous tables (the hint,
// RoutingOptions::previous), so that one lost cable does not move the order
// that judges which previous chains stay legal: the roots' joining switches
// (UpDownOrder.h's T) and, where there is no leaf level, the root itself.
// Both are read from how the previous chains run, not from a stored order:
// the tables are all an SM has of its previous run.
//
//   const auto bridges = previousBridges(graph, roots, chains);
//   const auto root = previousCentre(graph, component, centre, chains);
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::updn {

// The non-root switches that the previous chains from root to root pass:
// the joining switches of the previous T, since a legal chain between two
// roots never leaves T (a switch outside T comes after all of T).
std::vector<bool> previousBridges(const SwitchGraph& graph, std::span<const SwitchIndex> roots,
                                  PreviousChains& chains);

// The previous single root of `component`: the switch whose previous chains
// to and from the other switches are shortest most often (every chain from
// the root only descends and every chain to it only climbs, so all of them
// are shortest; most other switches' chains detour by the root). None when
// no switch beats `centre`, the fresh choice.
std::optional<SwitchIndex> previousCentre(const SwitchGraph& graph,
                                          std::span<const SwitchIndex> component,
                                          SwitchIndex centre, PreviousChains& chains);

}  // namespace ibsm::routing::updn
