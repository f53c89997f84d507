// The report on the largest fabrics the dry run is used on: a radix-36
// three-level fat tree (1620 switches, 11664 hosts, ~150M pairs). Its speed
// is RoutingBench's reportFatTree; this test checks the figures.
#include <gtest/gtest.h>
#include <ibsm/Report.h>

#include <chrono>
#include <ctime>
#include <iostream>

#include "tests/routing/analysis/HandTables.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

TEST(ReportScale, AnalysesEveryPairOfARadix36ThreeLevelFatTree) {
  const auto t0 = std::chrono::steady_clock::now();
  const Fabric f = testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 36});
  const auto t1 = std::chrono::steady_clock::now();
  const RoutingResult tables = testing::shortestPathTables(f);
  const auto t2 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();
  const RouteReport r = analyseRoutes(f, tables);
  const std::clock_t cpu1 = std::clock();
  const auto t3 = std::chrono::steady_clock::now();
  const double cpuSeconds = static_cast<double>(cpu1 - cpu0) / CLOCKS_PER_SEC;
  const double seconds = std::chrono::duration<double>(t3 - t2).count();
  std::cout << "fabric " << std::chrono::duration<double>(t1 - t0).count() << " s, tables "
            << std::chrono::duration<double>(t2 - t1).count() << " s, report " << seconds
            << " s wall, " << cpuSeconds << " s CPU\n";
  std::cout << reportSummary(r);

  EXPECT_EQ(r.switches, 1620u);
  EXPECT_EQ(r.caPorts, 11664u);
  EXPECT_EQ(r.unreachablePairs(), 0u);
  const std::uint64_t endpoints = r.switches + r.caPorts;
  EXPECT_EQ(r.routedPairs(), endpoints * r.destinationLids - endpoints);
  EXPECT_EQ(r.hops.max, 4u);
  EXPECT_EQ(r.hops.maxStretch, 0u);
  EXPECT_EQ(r.linkLoad.links, 2u * 2u * 648u * 18u);
}

}  // namespace
}  // namespace ibsm
