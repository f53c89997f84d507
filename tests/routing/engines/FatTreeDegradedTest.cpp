// ftree on a fat tree that lost a few cables (FatTreeDegradedRoute.h): the
// CA columns that keep D-mod-K's form are written without the hub-order
// check where the tree's levels make them legal in that order. These tests
// rebuild the engine's view of the tree (layout, hub order) and hold every
// CA column of the tables to the check the engine skipped.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>

#include <vector>

#include "routing/engines/ftree/FatTreeDegraded.h"
#include "routing/engines/ftree/FatTreeDegradedPlan.h"
#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeHub.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeLegalise.h"
#include "routing/engines/ftree/FatTreeReach.h"
#include "routing/graph/SwitchGraph.h"
#include "tests/routing/engines/FatTreeChecks.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using routing::SwitchGraph;
using routing::SwitchIndex;
using namespace routing::ftree;
using testing::generatedFabric;
using testing::routeFtree;

// The next hop of every switch toward d, read back from the tables.
std::vector<CableId> columnOf(const FatTreeLayout& layout, const SwitchGraph& graph,
                              const RoutingResult& result, const Destination& d) {
  std::vector<CableId> next(layout.switches(), kNoCable);
  for (SwitchIndex s = 0; s < layout.switches(); ++s) {
    const std::uint8_t port = result.lfts[graph.nodeId(s)].port[d.lid.value];
    if (s == d.leaf && port == d.port) next[s] = kDeliver;
    for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c)
      if (layout.port[c] == port) next[s] = c;
  }
  return next;
}

struct Cut {
  int radix;
  int cables;
  std::uint64_t seed;
};

// Small trees cut hard, so that the hub's own pod and its tops lose cables
// too (where a climb among the hub's ancestors can come down among them).
TEST(FatTreeDegraded, EveryCaColumnIsLegalInTheHubOrderThoughMostSkipTheCheck) {
  std::size_t columns = 0, trees = 0;
  for (const Cut cut : {Cut{8, 1, 1}, Cut{8, 2, 3}, Cut{8, 3, 5}, Cut{8, 4, 2}, Cut{8, 6, 7},
                        Cut{12, 1, 4}, Cut{12, 3, 9}, Cut{12, 5, 11}}) {
    for (std::uint64_t seed = cut.seed; seed < cut.seed + 4; ++seed) {
      SCOPED_TRACE(::testing::Message()
                   << "radix " << cut.radix << ", " << cut.cables << " cables cut, seed " << seed);
      const Fabric f =
          generatedFabric(FatTreeSpec{.levels = 3, .radix = cut.radix}, {cut.cables, seed});
      const RoutingResult result = routeFtree(f);
      const SwitchGraph graph(f);
      const auto layout = layoutFatTree(f, graph, {});
      ASSERT_TRUE(layout.has_value());
      const FatTreeReach reach(*layout);
      const HubOrder hub = hubOrder(*layout, reach);
      Legaliser legaliser(*layout, hub);
      for (const Destination& d : caDestinations(*layout, graph, f)) {
        auto next = columnOf(*layout, graph, result, d);
        ASSERT_EQ(legaliser.legalise(next, d.leaf), 0u) << "LID " << d.lid.value;
        ++columns;
      }
      ++trees;
    }
  }
  EXPECT_EQ(trees, 32u);
  EXPECT_GT(columns, 0u);
}

// Leaves with the same parents share one search (towardLeaves): each gets
// what its own search gives, on 2- and 3-level trees cut at leaves, above
// them and in the hub's pod, on any thread count; a leaf not wanted gets
// nothing.
TEST(FatTreeDegraded, LeavesWithTheSameParentsShareOneSearchYetEachGetsItsOwn) {
  struct Case {
    int levels, radix, cables;
    std::uint64_t seed;
  };
  for (const Case c : {Case{2, 12, 3, 1}, Case{2, 16, 1, 2}, Case{3, 8, 1, 1}, Case{3, 8, 6, 7},
                       Case{3, 12, 1, 4}, Case{3, 12, 5, 11}, Case{3, 16, 2, 3}}) {
    SCOPED_TRACE(::testing::Message() << c.levels << " levels, radix " << c.radix << ", "
                                      << c.cables << " cables cut, seed " << c.seed);
    const Fabric f =
        generatedFabric(FatTreeSpec{.levels = c.levels, .radix = c.radix}, {c.cables, c.seed});
    const SwitchGraph graph(f);
    const auto layout = layoutFatTree(f, graph, {});
    ASSERT_TRUE(layout.has_value());
    const FatTreeReach reach(*layout);
    const HubOrder hub = hubOrder(*layout, reach);
    const auto destinations = caDestinations(*layout, graph, f);
    const auto degraded = DegradedDmodk::make(*layout, reach, destinations);
    ASSERT_TRUE(degraded.has_value());
    const DegradedTree tree{*layout, reach, hub, destinations, *degraded};
    std::vector<bool> wanted(layout->leaves.size(), true);
    wanted[1] = false;
    for (const unsigned threads : {1u, 3u}) {
      const std::vector<Toward> toward = towardLeaves(tree, wanted, threads);
      ASSERT_EQ(toward.size(), layout->leaves.size());
      EXPECT_TRUE(toward[1].dist.empty());
      for (std::size_t b = 0; b < toward.size(); ++b) {
        if (!wanted[b]) continue;
        const Toward own = towardLeaf(tree, layout->leaves[b]);
        EXPECT_EQ(toward[b].dist, own.dist) << "leaf " << b;
        EXPECT_EQ(toward[b].uneven, own.uneven) << "leaf " << b;
        EXPECT_EQ(toward[b].far, own.far) << "leaf " << b;
        EXPECT_EQ(toward[b].check, own.check) << "leaf " << b;
        EXPECT_EQ(toward[b].caRoutes, own.caRoutes) << "leaf " << b;
        EXPECT_EQ(toward[b].longer, own.longer) << "leaf " << b;
      }
    }
  }
}

// The columns written on threads carry the same flows as those written in
// order: the placement by load of the rest, which reads them, moves no
// route when the thread count changes, nor does the busiest link.
TEST(FatTreeDegraded, PlacementByLoadSeesTheSameFlowsOnAnyThreadCount) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 16}, {3, 5}, /*lmc=*/2);
  RoutingOptions options;
  options.threads = 1;
  const RoutingResult one = routeFtree(f, options);
  options.threads = 3;
  const RoutingResult three = routeFtree(f, options);
  ASSERT_EQ(one.lfts.size(), three.lfts.size());
  for (std::size_t n = 0; n < one.lfts.size(); ++n) EXPECT_EQ(one.lfts[n].port, three.lfts[n].port);
  EXPECT_EQ(one.notes, three.notes);
  const RouteReport report = analyseRoutes(f, three);
  testing::expectRoutedAndLoopFree(report);
  EXPECT_LE(report.linkLoad.maxOverMean, 1.3) << report.linkLoad.busiest.at(0).name;
}

}  // namespace
}  // namespace ibsm
