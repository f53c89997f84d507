// Routing under change routes the fresh tables only when the result could
// fail a bound without them: a result that routes every pair without a
// credit loop, with its busiest link within 1.1x of the floor no tables can
// go below, is taken after one routing; any other is weighed against fresh
// tables, routed then, and refused when they balance better than 1/1.1.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>
#include <ibsm/StableRoutes.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::nodeNamed;

// A built-in engine under another name, counting how often it routes.
class CountedEngine : public RoutingEngine {
 public:
  CountedEngine(std::string inner, int& calls) : inner_(std::move(inner)), calls_(calls) {}
  std::string_view name() const override { return "counted"; }
  Result<RoutingResult> route(const Fabric& fabric, const RoutingOptions& options) const override {
    ++calls_;
    return defaultRegistry().route(fabric, {inner_}, options);
  }

 private:
  std::string inner_;
  int& calls_;
};

struct Counted {
  explicit Counted(const std::string& engine) {
    registry.add("counted",
                 [this, engine] { return std::make_unique<CountedEngine>(engine, calls); });
  }
  int calls{0};
  EngineRegistry registry;
};

const RoutingOptions kOptions{.rootGuids = {}, .maxVls = 4};

RoutingResult route(const Fabric& f, const std::string& engine) {
  auto r = defaultRegistry().route(f, {engine}, kOptions);
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(*r);
}

TEST(StableRoutesLazily, TakesAFatTreesKeptTablesAfterOneRouting) {
  const Fabric full = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  Fabric cut = full;
  testing::removeCables(cut, {{"edge1_2", "agg1_0"}});
  Counted counted("ftree");
  StableRoutesStats stats;
  const auto after = routeUnderChange(cut, counted.registry, {"counted"}, kOptions,
                                      route(full, "ftree").lfts, classifyChange(full, cut), stats);
  ASSERT_TRUE(after.has_value()) << after.error().message;
  EXPECT_TRUE(stats.stabilised) << stats.why;
  EXPECT_EQ(counted.calls, 1) << "no fresh routing";
  EXPECT_FALSE(stats.freshComputed);
  EXPECT_EQ(stats.freshBusiest, 0.0);
  // The bound kept all the same: fresh tables, computed here, balance no
  // better than 1/1.1 of the kept ones.
  const double fresh = static_cast<double>(analyseRoutes(cut, route(cut, "ftree")).linkLoad.max);
  EXPECT_LE(stats.busiestFloor, fresh);
  EXPECT_LE(stats.busiest, 1.1 * fresh);
}

// A dragonfly's busiest link is a global cable, far above the floor a
// switch's own routes give: the fresh tables are needed to judge, and the
// kept ones, no worse than 1.1x, are taken.
TEST(StableRoutesLazily, WeighsADragonflyAgainstFreshTables) {
  const Fabric full = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  Fabric cut = full;
  testing::removeCables(cut, {{"g1r2", "g1r0"}});
  Counted counted("updn");
  StableRoutesStats stats;
  const auto after = routeUnderChange(cut, counted.registry, {"counted"}, kOptions,
                                      route(full, "updn").lfts, classifyChange(full, cut), stats);
  ASSERT_TRUE(after.has_value()) << after.error().message;
  EXPECT_GT(stats.busiest, 1.1 * stats.busiestFloor) << "the premise";
  EXPECT_EQ(counted.calls, 2) << "hinted, then fresh";
  EXPECT_TRUE(stats.freshComputed);
  EXPECT_TRUE(stats.stabilised) << stats.why;
  EXPECT_EQ(stats.freshBusiest,
            static_cast<double>(analyseRoutes(cut, route(cut, "updn")).linkLoad.max));
  EXPECT_LE(stats.busiest, 1.1 * stats.freshBusiest);
}

// Where the fresh tables balance better than 1/1.1 of the kept ones (the
// dragonfly cut whose centre moves, StableRoutesTest), they are computed
// and taken.
TEST(StableRoutesLazily, RoutesFreshTablesWhenTheKeptOnesMayBalanceWorse) {
  const Fabric full = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  Fabric cut = full;
  cut.disconnect({nodeNamed(full, "g6r1"), 5});
  Counted counted("updn");
  StableRoutesStats stats;
  const auto after = routeUnderChange(cut, counted.registry, {"counted"}, kOptions,
                                      route(full, "updn").lfts, classifyChange(full, cut), stats);
  ASSERT_TRUE(after.has_value()) << after.error().message;
  EXPECT_EQ(counted.calls, 2);
  EXPECT_TRUE(stats.freshComputed);
  EXPECT_FALSE(stats.stabilised);
  EXPECT_GT(stats.freshBusiest, 0.0);
  const auto fresh = route(cut, "updn").lfts;
  EXPECT_TRUE(std::ranges::equal(after->lfts, fresh, {}, &Lft::port, &Lft::port));
}

// The previous chains and the result are judged on routing.threads
// threads: the tables and every count are the same for any number.
TEST(StableRoutesLazily, GivesTheSameTablesAndCountsOnAnyThreadCount) {
  const Fabric full = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  Fabric cut = full;
  testing::removeCables(cut, {{"edge1_2", "agg1_0"}});
  const auto before = route(full, "ftree").lfts;
  std::vector<std::pair<RoutingResult, StableRoutesStats>> runs;
  for (const unsigned threads : {1u, 2u, 4u}) {
    RoutingOptions options = kOptions;
    options.threads = threads;
    StableRoutesStats stats;
    auto r = routeUnderChange(cut, defaultRegistry(), {"ftree"}, options, before,
                              FabricChange::Unknown, stats);
    ASSERT_TRUE(r.has_value()) << r.error().message;
    runs.emplace_back(std::move(*r), stats);
  }
  ASSERT_GT(runs[0].second.broken, 0u) << "the premise: a loss to route around";
  for (const auto& [result, stats] : runs) {
    EXPECT_TRUE(std::ranges::equal(result.lfts, runs[0].first.lfts, {}, &Lft::port, &Lft::port));
    EXPECT_EQ(stats.kept, runs[0].second.kept);
    EXPECT_EQ(stats.broken, runs[0].second.broken);
    EXPECT_EQ(stats.brokenBlocks, runs[0].second.brokenBlocks);
    EXPECT_EQ(stats.fromFresh, runs[0].second.fromFresh);
    EXPECT_EQ(stats.busiest, runs[0].second.busiest);
  }
}

}  // namespace
}  // namespace ibsm
