// dragonfly on threads (issue 31): the engine plans groups and then LIDs on
// routing.threads threads, and the tables do not depend on how many. Routed
// with 1 and with 4 threads, a full, a degraded (detours, cut group pairs),
// an LMC and a dragonfly+ fabric give the same LFTs, SL2VL tables and notes,
// byte for byte; so do a dragonfly with several cables per group pair and a
// full one with LMC 1, where pairs planned once per group pair and pairs
// planned LID by LID on the loads meet.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include <algorithm>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;

RoutingResult routeOn(const Fabric& fabric, unsigned threads) {
  RoutingOptions options;
  options.maxVls = 8;
  options.threads = threads;
  const auto result = makeDragonflyEngine()->route(fabric, options);
  if (!result) ADD_FAILURE() << "dragonfly refused: " << result.error().message;
  return result ? *result : RoutingResult{};
}

struct Case {
  std::string name;
  std::function<Fabric()> fabric;
  bool detours;  // the fabric makes some routes detour (the second phase's count)
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

const DragonflySpec kMid{.a = 8, .p = 4, .h = 4};  // 33 groups, 264 routers, 1056 CAs

const Case kCases[] = {
    {"full", [] { return generatedFabric(kMid); }, false},
    {"degraded", [] { return generatedFabric(kMid, Degradation{.links = 12, .seed = 3}); }, true},
    {"lmc2_degraded",
     [] {
       return generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2},
                              Degradation{.links = 3, .seed = 2}, /*lmc=*/2);
     },
     true},
    // Four cables between each group pair: the holder and feeder choices
    // read the loads (no pair is planned once for all its LIDs).
    {"fewer_groups", [] { return generatedFabric(DragonflySpec{.a = 8, .p = 4, .h = 4, .g = 9}); },
     false},
    // A full fabric whose later LIDs go through third groups: pairs planned
    // once and LIDs planned on the loads in the same groups.
    {"lmc1_full", [] { return generatedFabric(kMid, {}, /*lmc=*/1); }, false},
    {"plus_degraded",
     [] {
       return generatedFabric(
           DragonflyPlusSpec{
               .groups = 9, .leaves = 4, .spines = 4, .hostsPerLeaf = 4, .globalPerSpine = 2},
           Degradation{.links = 6, .seed = 1});
     },
     true},
};

class DragonflyThreads : public ::testing::TestWithParam<Case> {};

TEST_P(DragonflyThreads, OneAndFourThreadsGiveTheSameTables) {
  const Fabric fabric = GetParam().fabric();
  const RoutingResult one = routeOn(fabric, 1);
  const RoutingResult four = routeOn(fabric, 4);
  ASSERT_EQ(one.engine, "dragonfly");
  ASSERT_EQ(four.engine, "dragonfly");
  ASSERT_EQ(one.lfts.size(), four.lfts.size());
  std::size_t routed = 0;
  for (std::size_t node = 0; node < one.lfts.size(); ++node) {
    EXPECT_EQ(one.lfts[node].port, four.lfts[node].port) << "switch NodeId " << node;
    routed += std::ranges::count_if(one.lfts[node].port, [](auto p) { return p != kNoRoute; });
  }
  EXPECT_GT(routed, 0u);
  ASSERT_EQ(one.sl2vl.size(), four.sl2vl.size());
  EXPECT_GT(one.sl2vl.size(), 0u);
  for (std::size_t i = 0; i < one.sl2vl.size(); ++i) {
    const Sl2VlEntry& a = one.sl2vl[i];
    const Sl2VlEntry& b = four.sl2vl[i];
    EXPECT_TRUE(a.sw == b.sw && a.inPort == b.inPort && a.outPort == b.outPort && a.vl == b.vl)
        << "SL2VL entry " << i;
  }
  EXPECT_EQ(one.vlsUsed, four.vlsUsed);
  // The detour count and its examples (merged from the workers) included.
  EXPECT_EQ(one.notes, four.notes);
  const bool detoured = std::ranges::any_of(
      one.notes, [](const std::string& n) { return n.find("detour around") != n.npos; });
  EXPECT_EQ(detoured, GetParam().detours);
}

INSTANTIATE_TEST_SUITE_P(Fabrics, DragonflyThreads, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace ibsm
