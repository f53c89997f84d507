// McTopologyCache's state (include/ibsm/Multicast.h): the switch graph a
// plan was made on, its McRoots, and the graph's signature to tell whether
// the next fabric has the same switch graph.
#pragma once

#include <ibsm/Multicast.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "routing/graph/SwitchGraph.h"
#include "routing/multicast/McRoots.h"

namespace ibsm {

struct McTopologyCache::State {
  std::vector<std::uint64_t> signature;
  std::unique_ptr<routing::SwitchGraph> graph;  // McRoots holds a reference to it
  std::unique_ptr<routing::McRoots> roots;
  std::uint64_t reused{0};
  std::uint64_t computed{0};
};

namespace routing {

// Everything McRoots and McTreeBuilder read of a switch graph: the node of
// every switch index, its CA count, and each cable (far end and ports).
std::vector<std::uint64_t> graphSignature(const SwitchGraph& graph);

// The roots of `graph`: those kept in `cache` when it was computed on a
// graph with the same signature, else computed on a copy of `graph` (which
// the cache keeps, as McRoots refers to its graph).
McRoots& rootsFor(const SwitchGraph& graph, McTopologyCache& cache);

}  // namespace routing
}  // namespace ibsm
