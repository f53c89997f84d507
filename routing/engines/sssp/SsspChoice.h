// What sssp routes (issue 33): balanced shortest paths in LID order
// (SsspRoutes.h), then, up to a million switch x LID routes, balanced per
// class of pair (SsspRefine.h: every entry may move to another fewest-hop
// channel where that lowers each class's busiest link against the others).
// Balanced shortest paths alone weigh the loads of all pairs; on a fat tree
// with director pods, SHARP aggregation nodes and hosts above the leaves
// the busiest link of each class (compute pairs, pairs with a host above
// the leaves, pairs with an aggregation node) falls on a different
// channel, and no order of the LIDs nor weight of the host pairs was
// lowest for all of them: sssp routed eight such ways and kept the one
// nearest the lowest per class, at eight times the CPU. Moving entries
// after one way lowers every class below the best of the eight (ft12 with
// director pods, rails, aggregation nodes and I/O hosts: all pairs 1,070 ->
// 814, compute 696 -> 462, upper 96 -> 43, aggregation 722 -> 423).
#pragma once

#include "routing/engines/sssp/SsspRoutes.h"

namespace ibsm::routing::sssp {

struct ClassBalanced {
  SsspTables tables;
  // Busiest link over all CA pairs, the compute pairs, the pairs with a
  // host above the leaves (and no aggregation node), the pairs with an
  // aggregation node; over host pairs (compute and upper: no aggregation
  // node at either end).
  std::uint64_t busiestAll{0}, busiestCompute{0}, busiestUpper{0}, busiestAggregation{0};
  std::uint64_t busiestHosts{0};
  std::size_t moved{0};  // entries moved by the balance per class
  unsigned sweeps{0};    // its sweeps over every entry (0: not made, past a million routes)
};

ClassBalanced routeByClass(const Fabric& fabric, const SwitchGraph& graph, const Channels& channels,
                           unsigned passes, unsigned threads);

}  // namespace ibsm::routing::sssp
