// The direction of every cable for Up*/Down* routing (Autonet): switches are
// put in one total order, and a hop toward an earlier switch is "up". A route
// may climb, then descend, never climb again. Whatever the topology, the
// channel dependencies of such routes follow the order and cannot close a
// cycle, so the tables are free of credit loops on one VL.
//
// Roots. Named by the operator, or detected per connected component: the
// switches farthest (in switch hops) from the leaf level, the switches that
// carry hosts. On a fat tree or Clos those are the top level (cores, spines),
// also when links are missing; a switch with only a few hosts (under a
// quarter of the median, say the SM's node on a spine) is not a leaf. When
// there is no level above the leaves (rings, tori, dragonflies: every switch
// carries hosts) one root is enough: the centre (least eccentricity, then
// lowest GUID), as in Autonet.
//
// Order. Switches come in rank order (BFS distance from the nearest root),
// ties by GUID; so a fat tree's levels give the usual up and down.
//
// Joining the roots. With several roots that order has several minima, and
// no legal path leads from one minimum's down-cone up to another's: OpenSM's
// updn leaves core-to-core and some switch-to-switch LIDs unrouted. So the
// roots are first joined by a tree T grown from the lowest-GUID root by
// Prim's rule (the root nearest to T joins next, along a shortest path), and
// T's switches come first, by depth in T. Every switch then has an earlier
// neighbour except that one root, so every switch reaches every switch (climb
// to the minimum, descend from it). On a fat tree T passes one leaf (2
// levels), or one edge switch and its pod's aggregation switches (3 levels),
// and every shortest host-to-host path stays legal: each root comes after
// only its T parent among its neighbours. Cost: a switch on T that carries
// hosts may climb only through its neighbours on T, and routes between
// switches may climb first (a core reaches another group's aggregation switch
// through the roots); host-to-host routes are not affected on a fat tree.
//
// Under change (the previous tables as the hint, UpDownHint.h). One lost
// cable should not move the order that judges which previous chains stay
// legal: T first grows through the previous T's joining switches while they
// still join the roots, and a centre root stays where the previous tables
// had it while it is within a hop of the new centre. Ranks still follow the
// fabric as it is: a switch whose way to the root grew longer moves later.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>

#include <cstdint>
#include <string>
#include <vector>

#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::updn {

struct UpDownOrder {
  std::vector<std::uint32_t> position;  // per switch; a hop to a smaller position is up
  std::vector<SwitchIndex> roots;       // by GUID
  std::size_t joiningSwitches{0};       // non-root switches of T
  std::vector<std::string> notes;       // the roots and how they were chosen

  bool isUp(SwitchIndex from, SwitchIndex to) const { return position[to] < position[from]; }
};

// Fails, naming the GUID, when a root GUID is not a switch of the fabric.
// `previous`, the hint's chains when there is one, keeps T's joining switches
// where the previous tables had them while they still join the roots.
[[nodiscard]] Result<UpDownOrder> upDownOrder(const Fabric& fabric, const SwitchGraph& graph,
                                              const std::vector<Guid>& rootGuids,
                                              PreviousChains* previous = nullptr);

}  // namespace ibsm::routing::updn
