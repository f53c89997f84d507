// What the fabric allows an LMC range's paths (issue 33): for each ordered
// pair of CA ports on different switches, the most pairwise link-disjoint
// routes any routing could give it -- the min cut between the two switches
// over directed inter-switch cables (parallel cables each count), capped
// at the LIDs a port owns. The multipath report's link-disjoint counts
// (MultipathDisjointness.h) read beside it: a pair reaches the bound when
// its tables give that many.
//
//   const auto allows = analysis::multipathBound(SwitchGraph(fabric), 4, 0);
//   // allows[k]: CA pairs whose switches allow k disjoint paths (k <= 4)
#pragma once

#include <cstdint>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::analysis {

// Index k = 0 .. cap: CA pairs (source CA port, destination CA port, on
// different switches) whose switches have k edge-disjoint paths, at most
// cap. On `threads` workers (0: all cores); the counts do not depend on it.
std::vector<std::uint64_t> multipathBound(const routing::SwitchGraph& graph, unsigned cap,
                                          unsigned threads);

}  // namespace ibsm::analysis
