// auto: dragonfly on a dragonfly (sssp where it spreads a small one
// better), ftree on a fat tree (sssp where it spreads a small one with
// director pods better), sssp on anything else (updn where sssp
// cannot), and a note that says which one ran and why.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>

#include <string>

#include "tests/routing/engines/PairSlChecks.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::sampleFabric;

RoutingResult routeAuto(const Fabric& fabric, const RoutingOptions& options = {}) {
  const auto result = makeAutoEngine()->route(fabric, options);
  if (!result) ADD_FAILURE() << "auto failed: " << result.error().message;
  return result ? *result : RoutingResult{};
}

void expectUsable(const Fabric& fabric, const RoutingResult& result) {
  const auto report = analyseRoutes(fabric, result);
  EXPECT_EQ(report.unreachablePairs(), 0u);
  EXPECT_TRUE(report.creditLoops.acyclic);
}

TEST(AutoEngine, RunsFtreeOnAFatTreeAndSaysSo) {
  for (const Degradation cut : {Degradation{}, Degradation{6, 3}}) {
    const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}, cut);
    const auto r = routeAuto(f);
    EXPECT_EQ(r.engine, "ftree");
    ASSERT_FALSE(r.notes.empty());
    EXPECT_EQ(r.notes.front(), "auto chose ftree: the fabric is a fat tree");
    expectUsable(f, r);
  }
}

TEST(AutoEngine, RunsUpDownOnAnythingElseWithFtreesReason) {
  // Five switches in a ring: a cycle of odd length, no fat tree, no dragonfly.
  const Fabric f = testing::ringFabric(5);
  const auto r = routeAuto(f);
  EXPECT_EQ(r.engine, "updn");
  const auto refusal = makeFatTreeEngine()->route(f, {});
  ASSERT_FALSE(refusal);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes.front(), "auto chose updn: not a fat tree: " + refusal.error().message);
  expectUsable(f, r);
}

TEST(AutoEngine, RunsSsspOnAnythingElseWhenTheVlsAllow) {
  const Fabric f = testing::ringFabric(5);
  const auto r = routeAuto(f, {.rootGuids = {}, .maxVls = 4});
  EXPECT_EQ(r.engine, "sssp");
  ASSERT_FALSE(r.notes.empty());
  EXPECT_TRUE(r.notes.front().starts_with("auto chose sssp: not a fat tree: ")) << r.notes.front();
  const auto walk = testing::walkPairsOnSls(f, r);
  EXPECT_EQ(walk.failures, std::vector<std::string>{});
  EXPECT_EQ(walk.longer, std::vector<std::string>{});
  EXPECT_TRUE(walk.acyclic);
}

// The irregular sample passes for a dragonfly; dragonfly's routes crowd one
// link that balanced shortest paths spread.
TEST(AutoEngine, TakesSsspOnASmallDragonflyWhereItsBusiestLinkIsLower) {
  const Fabric f = sampleFabric("irregular-8sw-144hosts.net");
  const RoutingOptions options{.rootGuids = {}, .maxVls = 8};
  const auto r = routeAuto(f, options);
  EXPECT_EQ(r.engine, "sssp");
  ASSERT_FALSE(r.notes.empty());
  EXPECT_TRUE(
      r.notes.front().starts_with("auto chose sssp: the fabric is recognised as a dragonfly"))
      << r.notes.front();
  const auto taken = testing::walkPairsOnSls(f, r);
  EXPECT_EQ(taken.failures, std::vector<std::string>{});
  EXPECT_TRUE(taken.acyclic);
  const auto dragonfly = makeDragonflyEngine()->route(f, options);
  ASSERT_TRUE(dragonfly);
  EXPECT_LT(taken.busiest, testing::walkPairsOnSls(f, *dragonfly).busiest);
}

// Director pods: the pairs whose leaves share no ancestor turn in ftree's
// hub leaf on one VL; sssp spreads them over VL layers.
TEST(AutoEngine, TakesSsspOnATreeWithDirectorPodsWhereItsBusiestLinkIsLower) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8, .directorPods = 2});
  const RoutingOptions options{.rootGuids = {}, .maxVls = 8};
  const auto r = routeAuto(f, options);
  EXPECT_EQ(r.engine, "sssp");
  ASSERT_FALSE(r.notes.empty());
  EXPECT_TRUE(
      r.notes.front().starts_with("auto chose sssp: the fabric is a fat tree with director pods"))
      << r.notes.front();
  expectUsable(f, r);  // ibsm's judge, each pair on its SL
  const auto taken = testing::walkPairsOnSls(f, r);
  EXPECT_EQ(taken.failures, std::vector<std::string>{});
  EXPECT_EQ(taken.longer, std::vector<std::string>{});
  EXPECT_TRUE(taken.acyclic);
  EXPECT_LE(taken.vls.size(), options.maxVls);
  const auto ftree = makeFatTreeEngine()->route(f, options);
  ASSERT_TRUE(ftree);
  EXPECT_LT(taken.busiest, testing::walkPairsOnSls(f, *ftree).busiest);
}

// With one VL sssp cannot layer them: ftree's tables, as they were; a tree
// without director pods is ftree's whatever the VLs.
TEST(AutoEngine, KeepsFtreesTablesOnOneVlAndWithoutDirectorPods) {
  const std::pair<FatTreeSpec, std::uint8_t> cases[] = {
      {{.levels = 3, .radix = 8, .directorPods = 2}, 1},
      {{.levels = 3, .radix = 8}, 8},
      {{.levels = 3, .radix = 8, .aggregationNodes = true, .ioHosts = {{2, 4}}, .rails = 4}, 8}};
  for (const auto& [spec, vls] : cases) {
    const Fabric f = generatedFabric(spec);
    const RoutingOptions options{.rootGuids = {}, .maxVls = vls};
    const auto r = routeAuto(f, options);
    EXPECT_EQ(r.engine, "ftree");
    const auto ftree = makeFatTreeEngine()->route(f, options);
    ASSERT_TRUE(ftree);
    ASSERT_EQ(r.lfts.size(), ftree->lfts.size());
    for (std::size_t n = 0; n < r.lfts.size(); ++n) EXPECT_EQ(r.lfts[n].port, ftree->lfts[n].port);
    EXPECT_EQ(r.pairSls, ftree->pairSls);
  }
}

// Under change the routes dragonfly kept stay dragonfly's unless sssp's
// busiest link is more than 1.1x lower (what routing under change may cost
// against fresh tables): on the a4 p2 h2 sample with g0r0's global cable
// lost, fresh tables are sssp's (78 routes on the busiest link against
// dragonfly's 80), but leaving the tables the switches hold for 2.5% would
// rewrite every block and the VL plan.
TEST(AutoEngine, KeepsDragonflysHeldRoutesUnderChangeUnlessSsspIsMuchBetter) {
  const Fabric whole = sampleFabric("dragonfly-a4-p2-h2.net");
  RoutingOptions options{.rootGuids = {}, .maxVls = 8};
  const auto before = makeDragonflyEngine()->route(whole, options);
  ASSERT_TRUE(before) << before.error().message;
  Fabric cut = whole;
  testing::removeCables(cut, {{"g0r0", "g1r3"}});
  const auto fresh = routeAuto(cut, options);
  EXPECT_EQ(fresh.engine, "sssp");
  options.previous = before->lfts;
  const auto underChange = routeAuto(cut, options);
  EXPECT_EQ(underChange.engine, "dragonfly");
  EXPECT_TRUE(underChange.followedPrevious);
  expectUsable(cut, underChange);
  const auto kept = testing::walkPairsOnSls(cut, underChange).busiest;
  const auto sssps = testing::walkPairsOnSls(cut, fresh).busiest;
  EXPECT_LT(sssps, kept);
  EXPECT_LE(kept * 10, sssps * 11);
}

TEST(AutoEngine, KeepsDragonflyOnAWholeDragonfly) {
  const Fabric f = sampleFabric("dragonfly-a4-p2-h2.net");
  const RoutingOptions options{.rootGuids = {}, .maxVls = 8};
  const auto r = routeAuto(f, options);
  EXPECT_EQ(r.engine, "dragonfly");
  const auto sssp = makeSsspEngine()->route(f, options);
  ASSERT_TRUE(sssp);
  EXPECT_GE(testing::walkPairsOnSls(f, *sssp).busiest, testing::walkPairsOnSls(f, r).busiest);
}

TEST(AutoEngine, ChoosesDragonflyOnADragonflyWithTheVlsItNeeds) {
  const Fabric f = sampleFabric("dragonfly-a4-p2-h2.net");
  const auto r = routeAuto(f, {.rootGuids = {}, .maxVls = 2});
  EXPECT_EQ(r.engine, "dragonfly");
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes.front(), "auto chose dragonfly: the fabric is a dragonfly");
  EXPECT_EQ(r.vlsUsed, 2);
  EXPECT_FALSE(r.sl2vl.empty());
  expectUsable(f, r);
}

TEST(AutoEngine, ChoosesDragonflyEvenOnOneVlWhereDragonflyFallsBackToUpDown) {
  const Fabric f = sampleFabric("dragonfly-a4-p2-h2.net");
  const auto r = routeAuto(f, {.rootGuids = {}, .maxVls = 1});
  EXPECT_EQ(r.engine, "updn");
  ASSERT_GE(r.notes.size(), 3U);
  EXPECT_EQ(r.notes.front(), "auto chose dragonfly: the fabric is a dragonfly");
  EXPECT_TRUE(r.notes[2].starts_with("dragonfly fell back to updn on 1 VL")) << r.notes[2];
  EXPECT_TRUE(r.sl2vl.empty());
  expectUsable(f, r);
}

TEST(AutoEngine, PassesRootGuidsOnAndFailsOnlyWhenBothEnginesDo) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 4});
  const auto r = makeAutoEngine()->route(f, {.rootGuids = {Guid{0xdead}}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("0x000000000000dead"), std::string::npos) << r.error().message;
}

TEST(AutoEngine, IsInTheDefaultRegistry) {
  const Fabric f = sampleFabric("fat-tree-3level-k8-degraded6.net");
  const auto r = defaultRegistry().route(f, {"auto"}, {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->engine, "ftree");
}

}  // namespace
}  // namespace ibsm
