// The bookkeeping of routing under change (StableRoutes.h): the LIDs
// present and where they are delivered, the verdicts on the previous chains
// as bits by (LID, switch), and the tally of kept and rerouted entries on
// the result. Internal to routing/plan.
#pragma once

#include <ibsm/Routing.h>
#include <ibsm/StableRoutes.h>

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::stable {

struct Target {
  Lid lid;
  routing::SwitchIndex sw{0};  // the switch that delivers it
  std::uint8_t port{0};        // its port toward the owner; 0 = the switch's own LID
};

// Every LID present, with the switch and port that deliver it.
std::vector<Target> targets(const routing::SwitchGraph& graph);

// Which previous chains hold toward every LID present, judged once before
// routing, 64 LIDs a tile, tiles split over threads: the broken ones are
// what the change can move, and the kept entries are counted on these
// verdicts after. On a fat tree a tile's columns that hold whole (every
// chain climbs then descends in ftree's hub order: FatTreeHeldColumns.h)
// are found bit-parallel first, and only the others are walked.
struct HeldChains {
  PreviousHolds holds;
  std::uint64_t broken{0};
  std::set<std::pair<NodeId, std::uint16_t>> brokenBlocks;
  std::size_t wholeLids{0};  // LIDs found to hold whole, not walked
};

// Bits by (LID, switch), a row of whole words per LID (PreviousHolds's
// layout): a LID's row is written by the one worker that judges it.
PreviousHolds lidBits(std::size_t lids, std::size_t switches);

// Entries toward LIDs no port holds now keep their previous value: a host
// that comes back finds its routes where they were.
void keepAbsentLids(const std::vector<Target>& present, const std::vector<Lft>& previous,
                    RoutingResult& out);

// The (LID, switch) entries where a taker's tables differ from the previous
// ones, on `threads`.
PreviousHolds changedEntries(const routing::SwitchGraph& graph, const std::vector<Lft>& previous,
                             const RoutingResult& result, unsigned threads);

// Counts the mix on the result: for an engine that took the hint
// (`changed`: its entries that differ from the previous ones), kept is what
// it kept of the chains that hold; into the fresh tables of one that did
// not, every such entry is written (and kept).
void tallyKept(const routing::SwitchGraph& graph, const std::vector<Target>& present,
               const std::vector<Lft>& previous, const HeldChains& held,
               const PreviousHolds* changed, RoutingResult& candidate, StableRoutesStats& stats);

}  // namespace ibsm::stable
