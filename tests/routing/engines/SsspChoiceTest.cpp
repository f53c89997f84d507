// sssp routes a fabric eight ways and keeps the one whose worst class figure
// (busiest link over all CA pairs, over host pairs, over pairs with an
// aggregation node) stands least above the lowest any way reached
// (SsspChoice.h). The first way is sssp's LID order with no host weight, so
// the choice is never worse than that by its own measure, and where there
// are no aggregation nodes it is the least busy busiest link of the eight.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include <algorithm>

#include "routing/engines/sssp/SsspChoice.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using routing::sssp::Balance;
using routing::sssp::Channels;
using routing::sssp::routeBalanced;
using routing::sssp::routeBestOf;
using testing::generatedFabric;
using testing::lassenLikeSpec;

constexpr unsigned kPasses = 4;

std::uint64_t most(const std::vector<std::uint64_t>& v) {
  return v.empty() ? 0 : *std::ranges::max_element(v);
}

// The Lassen-like look-alike of scripts/apart-figures.sh.
Fabric lassenLike() {
  return generatedFabric(lassenLikeSpec());
}

TEST(SsspChoice, FiguresAreTheKeptTablesOwnCountedAgain) {
  const Fabric f = lassenLike();
  const routing::SwitchGraph graph(f);
  const Channels channels(graph);
  const auto choice = routeBestOf(f, graph, channels, kPasses, 2);
  EXPECT_EQ(choice.busiestAll, routing::sssp::busiestChannel(graph, channels, choice.tables.lfts));
  EXPECT_EQ(choice.busiestAll, most(choice.tables.load));
  EXPECT_EQ(choice.busiestHosts, most(choice.tables.hostLoad));
  EXPECT_GT(choice.busiestAggregation, 0u);  // every switch carries an aggregation node
}

// On the Lassen-like tree the host pairs and all pairs both come out lower
// than in LID order alone (where the hosts' busiest link is 1.2x ftree's
// compute columns and above OpenSM dfsssp's 1,527 measured on ibsim).
TEST(SsspChoice, LassenLikeLowerThanLidOrderOnAllPairsAndHostPairs) {
  const Fabric f = lassenLike();
  const routing::SwitchGraph graph(f);
  const Channels channels(graph);
  const auto choice = routeBestOf(f, graph, channels, kPasses, 2);
  const auto plain = routeBalanced(f, graph, channels, kPasses, 2);
  EXPECT_LT(choice.busiestAll, most(plain.load));
  EXPECT_LT(choice.busiestHosts, most(plain.hostLoad));
}

// Without aggregation nodes the host figure is the all-pairs one: the kept
// way has the least busy busiest link of all eight.
TEST(SsspChoice, WithoutAggregationNodesTheLeastBusyBusiestLinkWins) {
  const Fabric f =
      generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2}, Degradation{.links = 5, .seed = 1});
  const routing::SwitchGraph graph(f);
  const Channels channels(graph);
  const auto choice = routeBestOf(f, graph, channels, kPasses, 1);
  EXPECT_EQ(choice.busiestAggregation, 0u);
  EXPECT_EQ(choice.busiestHosts, choice.busiestAll);
  for (const bool roundRobin : {false, true})
    for (const double w : {0.0, 0.5, 1.0, 2.0}) {
      const auto t = routeBalanced(f, graph, channels, kPasses, 1,
                                   Balance{.roundRobin = roundRobin, .hostWeight = w});
      EXPECT_LE(choice.busiestAll, most(t.load)) << roundRobin << " " << w;
    }
}

}  // namespace
}  // namespace ibsm
