// sssp: every pair on a shortest path, the routes spread by link load at
// least as well as minhop's, each pair free of credit loops on the VL of the
// SL it is given, the same tables on any number of threads, and a refusal
// that says why when the VLs allowed are too few.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include <string>

#include "tests/routing/engines/PairSlChecks.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::sampleFabric;
using testing::walkPairsOnSls;

const DragonflySpec kDragonfly{.a = 4, .p = 2, .h = 2};

RoutingResult routeWith(const RoutingEngine& engine, const Fabric& f, RoutingOptions options) {
  const auto r = engine.route(f, options);
  if (!r) ADD_FAILURE() << engine.name() << " failed: " << r.error().message;
  return r ? *r : RoutingResult{};
}

RoutingResult routeSssp(const Fabric& f, std::uint8_t maxVls = 8, unsigned threads = 0) {
  RoutingOptions options;
  options.maxVls = maxVls;
  options.threads = threads;
  return routeWith(*makeSsspEngine(), f, options);
}

// Shortest, loop-free per SL, and no busier than minhop on the same fabric.
void expectBalancedShortestLoopFree(const Fabric& f, const RoutingResult& r) {
  const auto walk = walkPairsOnSls(f, r);
  EXPECT_EQ(walk.failures, std::vector<std::string>{});
  EXPECT_EQ(walk.longer, std::vector<std::string>{});
  EXPECT_GT(walk.pairs, 0u);
  EXPECT_TRUE(walk.acyclic);
  EXPECT_EQ(walk.vls.size(), r.vlsUsed);
  const auto minhop = walkPairsOnSls(f, routeWith(*makeMinHopEngine(), f, {}));
  EXPECT_LE(walk.busiest, minhop.busiest);
  EXPECT_TRUE(std::ranges::is_sorted(r.pairSls));
  for (const PairSl& p : r.pairSls) {
    EXPECT_GT(p.sl, 0);
    EXPECT_LT(p.sl, r.vlsUsed);
  }
}

TEST(SsspEngine, IrregularClusterOnShortestPathsLoopFreeAndNoBusierThanMinhop) {
  const Fabric f = sampleFabric("irregular-8sw-144hosts.net");
  const auto r = routeSssp(f);
  EXPECT_EQ(r.engine, "sssp");
  expectBalancedShortestLoopFree(f, r);
}

TEST(SsspEngine, CutDragonflyOnShortestPathsLoopFreeAndNoBusierThanMinhop) {
  const Fabric f = generatedFabric(kDragonfly, Degradation{.links = 5, .seed = 1});
  const auto r = routeSssp(f);
  EXPECT_GT(r.vlsUsed, 1);  // minimal routes on a dragonfly wait on each other in a ring
  EXPECT_FALSE(r.pairSls.empty());
  EXPECT_FALSE(r.sl2vl.empty());
  expectBalancedShortestLoopFree(f, r);
}

TEST(SsspEngine, WithoutACycleEverythingStaysOnOneVl) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const auto r = routeSssp(f);
  EXPECT_EQ(r.vlsUsed, 1);
  EXPECT_TRUE(r.pairSls.empty());
  EXPECT_TRUE(r.sl2vl.empty());
  expectBalancedShortestLoopFree(f, r);
}

TEST(SsspEngine, SameTablesAndSlsOnOneTwoAndEightThreads) {
  const Fabric f = generatedFabric(kDragonfly, Degradation{.links = 5, .seed = 1});
  const auto one = routeSssp(f, 8, 1);
  for (const unsigned threads : {2u, 8u}) {
    const auto r = routeSssp(f, 8, threads);
    ASSERT_EQ(r.lfts.size(), one.lfts.size());
    for (std::size_t n = 0; n < r.lfts.size(); ++n) EXPECT_EQ(r.lfts[n].port, one.lfts[n].port);
    EXPECT_EQ(r.pairSls, one.pairSls);
    ASSERT_EQ(r.sl2vl.size(), one.sl2vl.size());
    for (std::size_t i = 0; i < r.sl2vl.size(); ++i) {
      EXPECT_EQ(r.sl2vl[i].vl, one.sl2vl[i].vl);
      EXPECT_EQ(std::tie(r.sl2vl[i].sw, r.sl2vl[i].inPort, r.sl2vl[i].outPort),
                std::tie(one.sl2vl[i].sw, one.sl2vl[i].inPort, one.sl2vl[i].outPort));
    }
  }
}

TEST(SsspEngine, RefusesWhenTheRoutesNeedMoreVlsThanAllowed) {
  const Fabric f = generatedFabric(kDragonfly, Degradation{.links = 5, .seed = 1});
  const auto needed = routeSssp(f).vlsUsed;
  ASSERT_GT(needed, 1);
  const auto r = makeSsspEngine()->route(
      f, {.rootGuids = {}, .maxVls = static_cast<std::uint8_t>(needed - 1)});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find(fmt::format("need more than {} VL", needed - 1)),
            std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace ibsm
