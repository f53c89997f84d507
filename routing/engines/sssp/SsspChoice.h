// sssp routes a fabric several ways and keeps one (issue 33). Balanced
// shortest paths depend on the order the LIDs are routed in and on what the
// cost weighs: on a fat tree with director pods and SHARP aggregation nodes
// the busiest link over all CA pairs, over the host pairs and over the
// pairs with an aggregation node fall on different links, and no one
// setting is lowest for all three. Each candidate (LID order or one LID per
// destination switch in turn; host-to-host loads weighed 0, 1/2, 1 or 2
// beside all pairs') is routed in full, and the one whose worst figure
// stands least above the lowest any candidate reached for it is kept:
// per class, (busiest + 1) / (lowest busiest + 1), the largest of the three
// the smallest; ties to the earlier candidate (the first is LID order, no
// host weight: sssp as it was). On fabrics without aggregation nodes the
// host figure is the all-pairs one and the third is zero, so the candidate
// with the least busy busiest link wins. Past a million switch x LID routes
// only the first way is routed.
#pragma once

#include <string>

#include "routing/engines/sssp/SsspRoutes.h"

namespace ibsm::routing::sssp {

struct Choice {
  SsspTables tables;
  Balance balance;
  std::uint64_t busiestAll{0}, busiestHosts{0}, busiestAggregation{0};
};

Choice routeBestOf(const Fabric& fabric, const SwitchGraph& graph, const Channels& channels,
                   unsigned passes, unsigned threads);

}  // namespace ibsm::routing::sssp
