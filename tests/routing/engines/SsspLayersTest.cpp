// sssp's VL layers are free of credit loops by every judge that walks each
// pair on the SL the engine gives it: ibsm's own (findCreditLoops, which
// `ibsm route --check` and the engine fallback read) and the independent
// walker of PairSlChecks.h. Fabrics whose shortest paths turn down then up
// in many places (fat trees with director pods, whose line cards hold
// hosts: a cross-column pair turns in a spine) need several layers; the
// sources whose path crosses a raised route must travel on its SL from
// their first hop.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/routing/engines/PairSlChecks.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::lassenLikeSpec;
using testing::walkPairsOnSls;

RoutingResult routeSssp(const Fabric& f, std::uint8_t maxVls = 8) {
  RoutingOptions options;
  options.maxVls = maxVls;
  const auto r = makeSsspEngine()->route(f, options);
  if (!r) ADD_FAILURE() << "sssp failed: " << r.error().message;
  return r ? *r : RoutingResult{};
}

void expectLoopFreeByBothJudges(const Fabric& f, const RoutingResult& r) {
  const auto report = findCreditLoops(f, r, 0);
  EXPECT_TRUE(report.acyclic) << "ibsm's judge: cycle of " << report.cycle.size() << " channels, "
                              << r.vlsUsed << " VLs";
  for (const auto& vl : report.perVl) EXPECT_TRUE(vl.acyclic) << "VL" << int{vl.vl};
  EXPECT_TRUE(report.perPairSls || r.pairSls.empty());
  const auto walk = walkPairsOnSls(f, r);
  EXPECT_EQ(walk.failures, std::vector<std::string>{});
  EXPECT_EQ(walk.longer, std::vector<std::string>{});
  EXPECT_TRUE(walk.acyclic) << "the independent walker";
  EXPECT_EQ(walk.vls.size(), r.vlsUsed);
}

TEST(SsspLayers, DirectorPodsRadix8LoopFreeOnEachPairsSl) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8, .directorPods = 2});
  const auto r = routeSssp(f);
  EXPECT_GT(r.vlsUsed, 1);  // cross-column pairs turn down then up
  expectLoopFreeByBothJudges(f, r);
}

TEST(SsspLayers, DirectorPodsRadix12LoopFreeOnEachPairsSl) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 12, .directorPods = 2});
  const auto r = routeSssp(f);
  expectLoopFreeByBothJudges(f, r);
}

TEST(SsspLayers, DegradedFatTreeLoopFreeOnEachPairsSl) {
  const Fabric f =
      generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}, Degradation{.links = 20, .seed = 3});
  expectLoopFreeByBothJudges(f, routeSssp(f));
}

// The Lassen-like look-alike of scripts/apart-figures.sh (a director pod,
// dual-rail nodes, I/O hosts on spines and cores, an aggregation node on
// every switch): its shortest routes (every pair on the fewest switch hops)
// fit on as few VLs as OpenSM's dfsssp needs for them (6, measured on
// ibsim), loop-free on each pair's SL. The cycle search alone left a seventh
// layer of a few routes; the raised routes then move down to the lowest
// layer that stays acyclic with them.
TEST(SsspLayers, LassenLikeOnNoMoreVlsThanDfsssp) {
  const Fabric f = generatedFabric(lassenLikeSpec());
  const auto r = routeSssp(f);
  EXPECT_GT(r.vlsUsed, 1);
  EXPECT_LE(r.vlsUsed, 6);
  expectLoopFreeByBothJudges(f, r);  // and every pair on the fewest switch hops
}

// scripts/ftree-kinds.sh's "director pods 2 + rails + AN + I/O" at radix
// 12: loop-free on each pair's SL, every pair on the fewest hops, on no more
// VLs than dfsssp's 8 (measured on ibsim; the cycle search alone needed 6).
TEST(SsspLayers, DirectorRailsAggregationIoKindLoopFreeOnEachPairsSl) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3,
                                               .radix = 12,
                                               .aggregationNodes = true,
                                               .ioHosts = {{2, 6}},
                                               .directorPods = 2,
                                               .rails = 6});
  const auto r = routeSssp(f);
  EXPECT_LE(r.vlsUsed, 8);
  expectLoopFreeByBothJudges(f, r);
}

// Moving routes down never leaves a layer empty below one in use: every SL
// below the highest carries pairs.
TEST(SsspLayers, NoEmptyLayerBelowTheTop) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 12, .directorPods = 2});
  const auto r = routeSssp(f);
  ASSERT_GT(r.vlsUsed, 1);
  std::vector<bool> used(r.vlsUsed, false);
  used[0] = true;
  for (const auto& p : r.pairSls) {
    ASSERT_LT(p.sl, r.vlsUsed);
    used[p.sl] = true;
  }
  EXPECT_EQ(std::ranges::count(used, false), 0);
}

TEST(SsspLayers, RefusesRatherThanTablesWithLoopsWhenTooFewVls) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8, .directorPods = 2});
  const auto needed = routeSssp(f).vlsUsed;
  ASSERT_GT(needed, 1);
  const auto r = makeSsspEngine()->route(
      f, {.rootGuids = {}, .maxVls = static_cast<std::uint8_t>(needed - 1)});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("need more than"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace ibsm
