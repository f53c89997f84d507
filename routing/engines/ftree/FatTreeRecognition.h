// What ftree recognised in a fabric, for the report: levels, compute leaves
// (and which sit above height 0), aggregation nodes and the rule that placed
// them, upper CAs per level, rails. One note per line of the report.
#pragma once

#include <ibsm/Fabric.h>

#include <cstdint>
#include <string>
#include <vector>

#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::ftree {

struct Rails {
  std::uint32_t count{0};    // distinct HCA indices of rail servers
  std::uint32_t servers{0};  // hosts with 2+ compute HCAs, each on a different leaf
  std::uint32_t cas{0};      // compute CAs of those servers
};

// Servers are hosts named "<host> mlx5_N" / "<host> HCA-N" (FatTreeRails.h)
// whose compute HCAs hang off pairwise different leaves.
Rails findRails(const Fabric& fabric, const SwitchGraph& graph, const FatTreeLayout& layout);

std::vector<std::string> recognitionNotes(const Fabric& fabric, const SwitchGraph& graph,
                                          const FatTreeLayout& layout);

}  // namespace ibsm::routing::ftree
