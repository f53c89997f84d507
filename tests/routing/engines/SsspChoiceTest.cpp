// What sssp routes (SsspChoice.h): balanced shortest paths in LID order,
// then balanced per class of pair. The figures it gives are its tables' own,
// and on the Lassen-like look-alike (a director pod, dual rails, hosts above
// the leaves, an aggregation node on every switch) every class comes out
// below LID order alone's.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include <algorithm>

#include "routing/engines/sssp/SsspChoice.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using routing::sssp::Channels;
using routing::sssp::routeBalanced;
using routing::sssp::routeByClass;
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

TEST(SsspChoice, FiguresAreTheTablesOwnCountedAgain) {
  const Fabric f = lassenLike();
  const routing::SwitchGraph graph(f);
  const Channels channels(graph);
  const auto c = routeByClass(f, graph, channels, kPasses, 2);
  EXPECT_EQ(c.busiestAll, routing::sssp::busiestChannel(graph, channels, c.tables.lfts));
  EXPECT_EQ(c.busiestAll, most(c.tables.load));
  EXPECT_EQ(c.busiestHosts, most(c.tables.hostLoad));
  EXPECT_EQ(c.busiestCompute, most(c.tables.computeLoad));
  EXPECT_GT(c.busiestAggregation, 0u);  // every switch carries an aggregation node
  EXPECT_GT(c.busiestUpper, 0u);        // I/O hosts on spines and cores
  EXPECT_LE(c.busiestCompute, c.busiestHosts);
  EXPECT_LE(c.busiestHosts, c.busiestAll);
}

// Every class lower than in LID order alone (where the hosts' busiest link
// is 1.2x ftree's compute columns and above OpenSM dfsssp's 1,527 measured
// on ibsim).
TEST(SsspChoice, LassenLikeLowerThanLidOrderOnEveryClass) {
  const Fabric f = lassenLike();
  const routing::SwitchGraph graph(f);
  const Channels channels(graph);
  const auto c = routeByClass(f, graph, channels, kPasses, 2);
  const auto plain = routeBalanced(f, graph, channels, kPasses, 2);
  EXPECT_LT(c.busiestAll, most(plain.load));
  EXPECT_LT(c.busiestHosts, most(plain.hostLoad));
  EXPECT_LT(c.busiestCompute, most(plain.computeLoad));
  std::uint64_t upper = 0, aggregation = 0;
  for (std::size_t k = 0; k < plain.load.size(); ++k) {
    upper = std::max(upper, plain.hostLoad[k] - plain.computeLoad[k]);
    aggregation = std::max(aggregation, plain.load[k] - plain.hostLoad[k]);
  }
  EXPECT_LT(c.busiestUpper, upper);
  EXPECT_LT(c.busiestAggregation, aggregation);
}

// The same tables on any number of threads.
TEST(SsspChoice, SameTablesOnOneThreadAndTwo) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3,
                                               .radix = 8,
                                               .aggregationNodes = true,
                                               .ioHosts = {{2, 4}},
                                               .directorPods = 2,
                                               .rails = 4});
  const routing::SwitchGraph graph(f);
  const Channels channels(graph);
  const auto one = routeByClass(f, graph, channels, kPasses, 1);
  const auto two = routeByClass(f, graph, channels, kPasses, 2);
  ASSERT_EQ(one.tables.lfts.size(), two.tables.lfts.size());
  for (std::size_t i = 0; i < one.tables.lfts.size(); ++i)
    EXPECT_EQ(one.tables.lfts[i].port, two.tables.lfts[i].port) << "node " << i;
}

}  // namespace
}  // namespace ibsm
