// ftree, specified by what its tables do on complete, degraded and sample
// fat trees. Every check walks the produced LFTs (analyseRoutes, or the
// walker of FatTreeChecks.h); of the engine's own bookkeeping only the
// destination order it documents (recogniseFatTree's caOrder) is used.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/FatTree.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <map>
#include <ranges>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/routing/engines/FatTreeChecks.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::expectRoutedAndLoopFree;
using testing::generatedFabric;
using testing::Hop;
using testing::interSwitchHops;
using testing::leafFloor;
using testing::levelsOf;
using testing::routeFtree;
using testing::sampleFabric;
using testing::upPorts;

// ---------------------------------------------------------------- full trees

struct FullCase {
  std::string name;
  FatTreeSpec spec;
  bool nonBlocking{true};  // as many up cables as CAs at every leaf
};
void PrintTo(const FullCase& c, std::ostream* os) {
  *os << c.name;
}

class FullFatTree : public ::testing::TestWithParam<FullCase> {
 protected:
  const Fabric fabric_ = generatedFabric(GetParam().spec);
  const RoutingResult result_ = routeFtree(fabric_);
};

TEST_P(FullFatTree, RoutesEveryLidFromEverySwitchWithoutCreditLoops) {
  const auto report = analyseRoutes(fabric_, result_);
  expectRoutedAndLoopFree(report);
  for (std::size_t k = 0; k < kPairKinds; ++k) EXPECT_GT(report.pairs[k].routed, 0u) << k;
}

TEST_P(FullFatTree, TakesShortestPathsBetweenCas) {
  EXPECT_EQ(analyseRoutes(fabric_, result_).hops.longerThanShortest, 0u);
}

TEST_P(FullFatTree, SpreadsCaLidsRoutedUpEvenlyOverEachSwitchsUpPorts) {
  const auto level = levelsOf(fabric_);
  for (const NodeId sw : fabric_.switches()) {
    const auto ups = upPorts(fabric_, sw, level);
    if (ups.empty()) continue;
    std::map<std::uint8_t, int> count;
    for (const std::uint8_t p : ups) count[p] = 0;
    for (const NodeId ca : fabric_.endNodes())
      for (const Port& p : fabric_.node(ca).ports) {
        if (!p.connected() || p.lid.value == 0) continue;
        const auto out = result_.lfts[sw].at(p.lid);
        if (count.contains(out)) ++count[out];
      }
    const auto [lo, hi] = std::ranges::minmax(count | std::views::values);
    EXPECT_LE(hi - lo, 1) << fabric_.node(sw).description;
  }
}

TEST_P(FullFatTree, GivesEachCaLidOneDownPath) {
  // Whatever the source, traffic toward a CA LID descends along the same
  // cables: at most one down cable per level carries it.
  const auto level = levelsOf(fabric_);
  const auto shape = recogniseFatTree(fabric_);
  ASSERT_TRUE(shape);
  for (const PortRef dst : shape->caOrder) {
    const Lid lid = fabric_.port(dst).lid;
    std::map<std::size_t, std::set<Hop>> downByLevel;
    for (const PortRef src : shape->caOrder)
      for (const Hop& h : interSwitchHops(fabric_, result_, src, lid)) {
        const NodeId to = fabric_.node(h.sw).ports[h.port].remote->node;
        if (level.at(to) < level.at(h.sw)) downByLevel[level.at(h.sw)].insert(h);
      }
    for (const auto& [l, hops] : downByLevel)
      EXPECT_EQ(hops.size(), 1u) << "LID " << lid.value << " level " << l;
  }
}

TEST_P(FullFatTree, RoutesEveryShiftPermutationWithoutContention) {
  if (!GetParam().nonBlocking) GTEST_SKIP() << "oversubscribed: contention is unavoidable";
  const auto shape = recogniseFatTree(fabric_);
  ASSERT_TRUE(shape);
  ASSERT_TRUE(shape->completeAndRegular);
  testing::expectShiftPermutationsFree(fabric_, result_, shape->caOrder, "all CAs");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, FullFatTree,
    ::testing::Values(FullCase{"TwoLevelRadix4", {.levels = 2, .radix = 4}},
                      FullCase{"TwoLevelRadix8", {.levels = 2, .radix = 8}},
                      FullCase{"TwoLevelRadix12", {.levels = 2, .radix = 12}},
                      FullCase{"TwoLevelRadix16", {.levels = 2, .radix = 16}},
                      FullCase{"ThreeLevelRadix4", {.levels = 3, .radix = 4}},
                      FullCase{"ThreeLevelRadix8", {.levels = 3, .radix = 8}},
                      FullCase{"ThreeLevelRadix12", {.levels = 3, .radix = 12}},
                      FullCase{"ThreeLevelRadix16", {.levels = 3, .radix = 16}},
                      FullCase{"TwoLevelRadix8Trunk2", {.levels = 2, .radix = 8, .trunk = 2}},
                      FullCase{"TwoLevelRadix12Trunk3", {.levels = 2, .radix = 12, .trunk = 3}},
                      FullCase{"ThreeLevelRadix8Trunk2", {.levels = 3, .radix = 8, .trunk = 2}},
                      FullCase{"TwoLevelRadix12Oversubscribed2",
                               {.levels = 2, .radix = 12, .oversubscription = 2},
                               false},
                      FullCase{"ThreeLevelRadix8Oversubscribed3",
                               {.levels = 3, .radix = 8, .oversubscription = 3},
                               false}),
    [](const auto& info) { return info.param.name; });

// ------------------------------------------------------------ degraded trees

struct DegradedCase {
  std::string name;
  FatTreeSpec spec;
  Degradation cut;
};
void PrintTo(const DegradedCase& c, std::ostream* os) {
  *os << c.name;
}

class DegradedFatTree : public ::testing::TestWithParam<DegradedCase> {
 protected:
  const Fabric fabric_ = generatedFabric(GetParam().spec, GetParam().cut);
  const RoutingResult result_ = routeFtree(fabric_);
  const RouteReport report_ = analyseRoutes(fabric_, result_);
};

TEST_P(DegradedFatTree, StillRoutesEveryLidFromEverySwitchWithoutCreditLoops) {
  expectRoutedAndLoopFree(report_);
}

TEST_P(DegradedFatTree, KeepsTheBusiestLinkWithinOnePointSixOfTheMean) {
  // Unless a leaf lost so many cables that its own traffic forces more.
  const double bound = std::max(1.6 * report_.linkLoad.mean, 1.05 * leafFloor(fabric_));
  EXPECT_LE(double(report_.linkLoad.max), bound)
      << "max/mean " << report_.linkLoad.maxOverMean << " busiest "
      << report_.linkLoad.busiest.at(0).name;
}

TEST_P(DegradedFatTree, CountsTheCaRoutesLongerThanShortestInItsNotes) {
  const std::regex counted(R"((\d+) of (\d+) CA->CA routes are longer than the fewest)");
  std::smatch m;
  const auto note = std::ranges::find_if(
      result_.notes, [&](const std::string& n) { return std::regex_search(n, m, counted); });
  ASSERT_NE(note, result_.notes.end());
  EXPECT_EQ(std::stoull(m[1]), report_.hops.longerThanShortest);
  EXPECT_EQ(std::stoull(m[2]), report_.hops.pairs);
}

INSTANTIATE_TEST_SUITE_P(
    Cuts, DegradedFatTree,
    ::testing::Values(
        DegradedCase{"Radix12Cut8Seed1", {.levels = 3, .radix = 12}, {8, 1}},
        DegradedCase{"Radix12Cut8Seed2", {.levels = 3, .radix = 12}, {8, 2}},
        DegradedCase{"Radix12Cut8Seed3", {.levels = 3, .radix = 12}, {8, 3}},
        DegradedCase{"Radix12Cut8Seed4", {.levels = 3, .radix = 12}, {8, 4}},
        DegradedCase{"Radix12Cut8Seed11", {.levels = 3, .radix = 12}, {8, 11}},
        DegradedCase{"Radix8Cut4Seed1", {.levels = 3, .radix = 8}, {4, 1}},
        DegradedCase{"Radix8Cut4Seed6", {.levels = 3, .radix = 8}, {4, 6}},
        DegradedCase{"Radix8Cut10Seed2", {.levels = 3, .radix = 8}, {10, 2}},
        DegradedCase{"Radix16Cut10Seed1", {.levels = 3, .radix = 16}, {10, 1}},
        DegradedCase{"Radix16Cut24Seed5", {.levels = 3, .radix = 16}, {24, 5}},
        DegradedCase{"Radix24Cut8Seed1", {.levels = 3, .radix = 24}, {8, 1}},
        DegradedCase{"Radix4Cut2Seed1", {.levels = 3, .radix = 4}, {2, 1}},
        DegradedCase{"TwoLevelRadix12Cut3", {.levels = 2, .radix = 12}, {3, 1}},
        DegradedCase{"TwoLevelRadix16Trunk2Cut5", {.levels = 2, .radix = 16, .trunk = 2}, {5, 3}}),
    [](const auto& info) { return info.param.name; });

TEST(FatTreeEngine, BalancesTheRadix12TreeWithEightCablesCutWithinOnePointSix) {
  for (const std::uint64_t seed : {1, 2, 3, 4, 5, 6}) {
    const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 12}, {8, seed});
    const auto report = analyseRoutes(f, routeFtree(f));
    EXPECT_LE(report.linkLoad.maxOverMean, 1.6) << "seed " << seed;
  }
}

// A tree that lost one cable, the usual state of a large cluster: D-mod-K's
// closed form for every destination whose down path avoids the two switches
// that lost it, and placement by load for the few that do not, which spreads
// the lost cable's share over several paths where one down path per
// destination would put two destinations' traffic on one cable.
struct OneCableLost {
  int levels;
  int radix;
  std::uint64_t seed;
};

TEST(FatTreeEngine, RoutesATreeThatLostOneCableMostlyInClosedFormAndStillBalanced) {
  for (const auto& [levels, radix, seed] : {OneCableLost{3, 16, 1}, OneCableLost{3, 16, 2},
                                            OneCableLost{3, 12, 7}, OneCableLost{2, 16, 3}}) {
    SCOPED_TRACE(::testing::Message() << levels << " levels radix " << radix << " seed " << seed);
    const Fabric f = generatedFabric(FatTreeSpec{.levels = levels, .radix = radix}, {1, seed});
    const RoutingResult result = routeFtree(f);
    const RouteReport report = analyseRoutes(f, result);
    expectRoutedAndLoopFree(report);
    const std::regex split(
        R"((\d+) of (\d+) CA LIDs kept D-mod-K's closed form \(their down path avoids the (\d+) switches)");
    std::smatch m;
    const auto note = std::ranges::find_if(
        result.notes, [&](const std::string& n) { return std::regex_search(n, m, split); });
    ASSERT_NE(note, result.notes.end());
    EXPECT_EQ(std::stoull(m[2]), f.endNodes().size());
    EXPECT_EQ(std::stoull(m[3]), 2u) << "the two ends of the lost cable";
    EXPECT_GE(std::stoull(m[1]) * 4, std::stoull(m[2]) * 3) << "most destinations in closed form";
    // Two destinations' flows on one down cable would be twice the mean.
    EXPECT_LE(report.linkLoad.maxOverMean, 1.3) << report.linkLoad.busiest.at(0).name;
  }
}

// The engine computes on RoutingOptions::threads threads (routing.threads);
// the tables may not depend on how many, nor may the notes that count them.
TEST(FatTreeEngine, RoutesTheSameTablesOnOneTwoAndEightThreads) {
  for (const auto& [spec, cut] :
       {std::pair{FatTreeSpec{.levels = 3, .radix = 12}, Degradation{}},
        std::pair{FatTreeSpec{.levels = 3, .radix = 12}, Degradation{1, 4}},
        std::pair{FatTreeSpec{.levels = 3, .radix = 12}, Degradation{8, 2}},
        std::pair{FatTreeSpec{.levels = 3, .radix = 8, .aggregationNodes = true}, Degradation{}}}) {
    const Fabric f = generatedFabric(spec, cut, /*lmc=*/1);
    RoutingOptions options;
    options.threads = 1;
    const RoutingResult one = routeFtree(f, options);
    for (const unsigned threads : {2u, 8u}) {
      options.threads = threads;
      const RoutingResult many = routeFtree(f, options);
      ASSERT_EQ(many.lfts.size(), one.lfts.size());
      for (std::size_t n = 0; n < one.lfts.size(); ++n)
        EXPECT_EQ(many.lfts[n].port, one.lfts[n].port)
            << "node " << n << ", " << threads << " threads";
      EXPECT_EQ(many.notes, one.notes) << threads << " threads";
    }
  }
}

// ------------------------------------------------------------------ samples

TEST(FatTreeEngine, RoutesTheSampleFabrics) {
  for (const char* file :
       {"fat-tree-3level-k8.net", "fat-tree-3level-k8.ibnetdiscover",
        "fat-tree-3level-k8-degraded6.net", "fat-tree-3level-k8-degraded6.ibnetdiscover",
        "fat-tree-2level-k12-trunk2-slowlink.net",
        "fat-tree-2level-k12-trunk2-slowlink.ibnetdiscover"}) {
    SCOPED_TRACE(file);
    const Fabric f = sampleFabric(file);
    const auto report = analyseRoutes(f, routeFtree(f));
    expectRoutedAndLoopFree(report);
    EXPECT_LE(double(report.linkLoad.max),
              std::max(1.6 * report.linkLoad.mean, 1.05 * leafFloor(f)));
  }
}

TEST(FatTreeEngine, SpreadsTheTrunkedSampleEvenly) {
  const Fabric f = sampleFabric("fat-tree-2level-k12-trunk2-slowlink.net");
  const auto report = analyseRoutes(f, routeFtree(f));
  EXPECT_EQ(report.linkLoad.max, report.linkLoad.min);
}

// ---------------------------------------------------------------------- LMC

TEST(FatTreeEngine, SendsTheLmcLidsOfACaUpDifferentPorts) {
  for (const auto& [spec, cut] :
       {std::pair{FatTreeSpec{.levels = 3, .radix = 8}, Degradation{}},
        std::pair{FatTreeSpec{.levels = 3, .radix = 8}, Degradation{6, 2}},
        std::pair{FatTreeSpec{.levels = 2, .radix = 8}, Degradation{}}}) {
    const Fabric f = generatedFabric(spec, cut, /*lmc=*/1);
    const auto r = routeFtree(f);
    expectRoutedAndLoopFree(analyseRoutes(f, r));
    const auto level = levelsOf(f);
    for (const NodeId sw : f.switches()) {
      if (level.at(sw) != 0) continue;
      if (upPorts(f, sw, level).size() < 2) continue;
      for (const NodeId ca : f.endNodes())
        for (const Port& p : f.node(ca).ports) {
          if (!p.remote || p.remote->node == sw) continue;
          const auto first = r.lfts[sw].at(p.lid);
          const auto second = r.lfts[sw].at(Lid{std::uint16_t(p.lid.value + 1)});
          EXPECT_NE(first, second) << f.node(sw).description << " LID " << p.lid.value;
        }
    }
  }
}

}  // namespace
}  // namespace ibsm
