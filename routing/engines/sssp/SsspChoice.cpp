#include "routing/engines/sssp/SsspChoice.h"

#include <algorithm>

#include "routing/engines/sssp/SsspRefine.h"

namespace ibsm::routing::sssp {
namespace {

// Switch x LID routes up to which the routes are balanced per class: the
// Lassen-like tree (174 switches, about 1,900 LIDs) takes about 0.05 CPU s
// a sweep. Past it (large irregular fabrics, up to auto's 8 million) sssp
// routes LID order alone, as before.
constexpr std::size_t kByClassUpTo = 1'000'000;

// Sweeps at most: each lowers the classes' busiest links less than the one
// before (Lassen-like, all pairs: 1,883 in LID order, 1,451 after one,
// 1,317 after four, 1,289 after ten).
constexpr unsigned kSweeps = 8;

}  // namespace

ClassBalanced routeByClass(const Fabric& fabric, const SwitchGraph& graph, const Channels& channels,
                           unsigned passes, unsigned threads) {
  ClassBalanced out{.tables = routeBalanced(fabric, graph, channels, passes, threads)};
  if (graph.size() * out.tables.targets.size() <= kByClassUpTo) {
    const auto stats = refineByClass(fabric, graph, channels, out.tables, kSweeps);
    out.moved = stats.moves;
    out.sweeps = stats.sweeps;
  }
  const auto busiest = classBusiest(out.tables);
  out.busiestAll = busiest[0];
  out.busiestCompute = busiest[1];
  out.busiestUpper = busiest[2];
  out.busiestAggregation = busiest[3];
  for (const std::uint64_t h : out.tables.hostLoad)
    out.busiestHosts = std::max(out.busiestHosts, h);
  return out;
}

}  // namespace ibsm::routing::sssp
