// What the fabric allows an LMC range (MultipathBound.h): per pair of CA
// ports on different switches, the min cut between their switches, capped.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>

#include <numeric>

#include "routing/analysis/MultipathBound.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::analysis {
namespace {

using testing::generatedFabric;

std::uint64_t caPairsApart(const routing::SwitchGraph& g) {
  std::uint64_t all = 0, same = 0;
  for (routing::SwitchIndex s = 0; s < g.size(); ++s) {
    all += g.caCount(s);
    same += g.caCount(s) * g.caCount(s);
  }
  return all * all - same;
}

// Two spines: any two leaves are joined by two disjoint paths, never more.
TEST(MultipathBound, TwoLeavesOfATwoSpineTreeAllowTwo) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 4});
  const routing::SwitchGraph g(f);
  const auto allows = multipathBound(g, 4, 1);
  ASSERT_EQ(allows.size(), 5u);
  EXPECT_EQ(allows[2], caPairsApart(g));
  EXPECT_EQ(std::accumulate(allows.begin(), allows.end(), std::uint64_t{0}), allows[2]);
}

// Every router of a4 p2 h2 has five cables: four disjoint paths to any
// other; cutting cables leaves some pairs fewer.
TEST(MultipathBound, AFullDragonflyAllowsFourToEveryPairACutOneFewerToSome) {
  const Fabric full = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  const routing::SwitchGraph g(full);
  const auto allows = multipathBound(g, 4, 0);
  EXPECT_EQ(allows[4], caPairsApart(g));
  const Fabric cut =
      generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2}, Degradation{.links = 5, .seed = 1});
  const routing::SwitchGraph gc(cut);
  const auto fewer = multipathBound(gc, 4, 0);
  EXPECT_GT(fewer[3] + fewer[2] + fewer[1], 0u);
  EXPECT_EQ(std::accumulate(fewer.begin(), fewer.end(), std::uint64_t{0}), caPairsApart(gc));
  EXPECT_EQ(multipathBound(gc, 4, 1), fewer) << "the same counts on any number of threads";
}

// The report's pairs with 4 link-disjoint paths never pass what the fabric
// allows them.
TEST(MultipathBound, NoRoutingPassesIt) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2},
                                   Degradation{.links = 5, .seed = 1}, /*lmc=*/2);
  RoutingOptions options;
  options.maxVls = 8;
  const auto r = makeDragonflyEngine()->route(f, options);
  ASSERT_TRUE(r);
  const RouteReport report = analyseRoutes(f, *r, 1);
  ASSERT_TRUE(report.multipath);
  const auto allows = multipathBound(routing::SwitchGraph(f), 4, 1);
  const auto& got = report.multipath->all.linkDisjoint;
  for (std::size_t k = 4; k >= 1; --k) {
    std::uint64_t atLeastGot = 0, atLeastAllowed = 0;
    for (std::size_t j = k; j <= 4; ++j) atLeastGot += got[j], atLeastAllowed += allows[j];
    EXPECT_LE(atLeastGot, atLeastAllowed) << k << " or more disjoint paths";
  }
}

}  // namespace
}  // namespace ibsm::analysis
