// The CA LIDs of a tree that lost a few cables that keep D-mod-K's column
// (DegradedDmodk), routed at nearly the cost of a complete tree's.
//
// Only the switches that lost a cable choose by load, and their choices
// read only the loads of their own up cables. So one pass in destination
// order settles, per destination, whether it keeps D-mod-K's column (its
// down path and the few switches whose up cables are not all one hop nearer
// its leaf, listed once per leaf) and the short switches' climbs, counting
// on those up cables only the flows that reach them (the subtree below each
// short switch). The columns themselves are then written on
// routing.threads threads, and the loads of every cable, which the
// placement by load of the rest reads, summed per thread. A column needs no
// hub-order check (the legaliser would change nothing) when the levels agree
// with the hub order (levelsFollowHub), every switch has a legal path to its
// leaf and no climb among the hub's ancestors (which the hub order takes
// lowest first, so that climb descends in it) comes down among them again:
// then every climb-then-descent in the tree climbs, then descends in the
// hub order. The others are legalised in destination order, as before.
//
// With previous tables (a hint) every destination is routed one after the
// other, the kept chains applied before its flows count.
#pragma once

#include <cstddef>
#include <vector>

#include "routing/engines/ftree/FatTreeBalanced.h"
#include "routing/engines/ftree/FatTreeColumns.h"
#include "routing/engines/ftree/FatTreeDegraded.h"
#include "routing/engines/ftree/FatTreeHint.h"
#include "routing/engines/ftree/FatTreeHub.h"
#include "routing/engines/ftree/FatTreeLegalise.h"

namespace ibsm::routing::ftree {

struct DegradedTree {
  const FatTreeLayout& layout;
  const FatTreeReach& reach;
  const HubOrder& hub;
  const std::vector<Destination>& destinations;
  const DegradedDmodk& degraded;
};

struct DegradedSinks {
  BalancedRoutes& balanced;
  Legaliser& legaliser;
  HintColumns& hint;
  TableWriter& writer;
  Tally& tally;
  Lengths& lengths;
};

// Routes the destinations of `order` (a CA's LIDs one run) that keep
// D-mod-K's column; returns the others, in order, for the placement by
// load. A CA's LIDs all keep it or none does (unless a short switch has no
// legal climb for one), so that those placed by load climb apart. The
// tables and tallies are the same for any `threads`.
std::vector<std::size_t> routeMostByDmodk(const DegradedTree& tree,
                                          const std::vector<std::size_t>& order, DegradedSinks& out,
                                          unsigned threads);

// With previous tables (a hint): the destinations one after the other, the
// kept chains applied to each column before its flows count; a column that
// holds whole (HintColumns::whole) is the answer as it stands, copied, its
// flows and lengths counted on `threads` threads (FatTreeHintedRoute.cpp).
std::vector<std::size_t> routeWithHint(const DegradedTree& tree,
                                       const std::vector<std::size_t>& order, DegradedSinks& out,
                                       unsigned threads);

// The up cables of every switch but the hub's ancestors climb in the hub
// order, and every down cable descends in it but those into the hub's
// ancestors, which climb.
bool levelsFollowHub(const FatTreeLayout& layout, const FatTreeReach& reach, const HubOrder& hub);

}  // namespace ibsm::routing::ftree
