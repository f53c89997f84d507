// The flows and lengths of the columns routeWithHint copies whole from the
// previous tables (FatTreeHintedRoute.cpp), 64 columns at a time.
//
// Such a column climbs, then only descends in the hub order from every
// switch (HintColumns::whole). So the flows of its source leaves need no
// walk per leaf through the previous tables (a cache miss per hop over
// 1,620 tables on a radix-36 tree): per tile of 64 columns, sorted by LID
// so that a switch's 64 entries lie in one or two cache lines, the flows
// are pushed switch by switch, the climbing hops latest position first
// (every flow into a climbing switch comes from a later one), then the
// descending hops earliest first, as OrderedLoads pushes the verdict's. A
// route's length is counted the other way round in the same two sweeps:
// a descending switch's from the later switch it leads to (the first
// sweep), a climbing switch's from the earlier one (the second).
//
// The sums are those of a walk per source leaf: every cable carries the
// flows of the leaves whose chain crosses it, and a route is longer than
// the fewest hops when its chain is (Lengths::count); a watched cable's
// flows are kept per column (HeldFlows::watched) for the climbs by load
// that read them in destination order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/engines/ftree/FatTreeBalanced.h"
#include "routing/engines/ftree/FatTreeColumns.h"
#include "routing/engines/ftree/FatTreeDegradedRoute.h"

namespace ibsm::routing::ftree {

// A held column's flow onto a watched cable.
struct Watched {
  std::size_t held;  // its place among the held columns
  CableId cable;
  BalancedRoutes::Load flow;
};

// What the held columns add up to, one per thread.
struct HeldFlows {
  std::vector<std::vector<BalancedRoutes::Load>> loads;  // per layer, per unwatched cable
  Tally tally;
  std::vector<Watched> watched;
};

// Fewest switch hops over every cable between leaves, by leaf index (row
// `from`, column `to`: from * leaves + to), for the rows of the leaves
// `wanted`; kUnreachable elsewhere. 64 searches at once, on `threads`.
std::vector<std::uint16_t> leafDistances(const FatTreeLayout& layout,
                                         const std::vector<bool>& wanted, unsigned threads);

// Lengths::count's figures for `column` toward `d` (legalised: the hops
// from each switch are legaliser.hops), read off the row of d's leaf in
// `dist` (leafDistances) rather than a search from that leaf.
void countLengths(const FatTreeLayout& layout, const Destination& d,
                  const std::vector<CableId>& column, const Legaliser& legaliser,
                  std::span<const std::uint16_t> dist, Tally& tally);

// `held`: indices into tree.destinations of the columns held whole, the
// k-th of which is held column k. `watch`: per cable. `dist`: leafDistances
// with the rows of the held columns' leaves, or empty (found here). The
// sums do not depend on `threads`; `watched` is in no particular order.
std::vector<HeldFlows> countHeldColumns(const DegradedTree& tree, const HintColumns& hint,
                                        const std::vector<bool>& watch,
                                        std::span<const std::size_t> held, unsigned threads,
                                        std::span<const std::uint16_t> dist = {});

}  // namespace ibsm::routing::ftree
