// auto: dragonfly on a dragonfly, ftree on a fat tree, updn on anything
// else, and a note that says which one ran and why.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>

#include <string>

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
