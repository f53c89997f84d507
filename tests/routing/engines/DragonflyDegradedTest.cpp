// dragonfly on a dragonfly whose cables fail (issue 15): a group that lost
// local cables is still a group, recognised from the cabling left; its
// routes detour through a third router of the group, on VLs the report
// proves free of credit loops; the notes name the cables that are missing;
// only a VL budget too small for the routes sends the fabric to updn.
//
// Still valid, for this engine: every pair routed; every route crosses one
// global link where its groups keep one between them and is then a shortest
// path of the remaining cabling among those with at most one global link
// (so a missing local cable costs one hop in each group it is missing from,
// never more); the report's channel dependencies under the engine's SL2VL
// acyclic, within routing.max_vls.
#include <gtest/gtest.h>
#include <ibsm/Dragonfly.h>
#include <ibsm/Engines.h>
#include <ibsm/Lids.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "routing/multicast/McSl.h"
#include "tests/routing/engines/DragonflyDegradedChecks.h"
#include "tests/routing/engines/PairSlChecks.h"
#include "tests/routing/engines/RouteChecks.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::CablePair;

const DragonflySpec kSmall{.a = 4, .p = 2, .h = 2};  // 9 groups of 4 routers, 1 cable per pair

RoutingOptions withVls(std::uint8_t vls) {
  RoutingOptions options;
  options.maxVls = vls;
  return options;
}

Fabric smallWithout(std::initializer_list<CablePair> cables) {
  Fabric f = testing::generatedFabric(kSmall);
  testing::removeCables(f, cables);
  return f;
}

struct Case {
  std::string name;
  std::function<Fabric()> fabric;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

Case degraded(int links, std::uint64_t seed) {
  return {fmt::format("degrade{}_seed{}", links, seed), [=] {
            return testing::generatedFabric(kSmall, Degradation{.links = links, .seed = seed});
          }};
}

const Case kCases[] = {
    {"one_local",
     [] {
       return smallWithout({{"g0r0", "g0r1"}});
     }},
    // The fabric: group 0's clique becomes the 4-cycle r0-r2-r1-r3.
    {"two_local_four_cycle",
     [] {
       return smallWithout({{"g0r0", "g0r1"}, {"g0r2", "g0r3"}});
     }},
    // g0r0 keeps one local cable, to g0r3: all its group traffic shares it.
    {"two_local_one_router",
     [] {
       return smallWithout({{"g0r0", "g0r1"}, {"g0r0", "g0r2"}});
     }},
    {"local_in_two_groups",
     [] {
       return smallWithout(
           {{"g0r0", "g0r1"}, {"g0r2", "g0r3"}, {"g3r0", "g3r1"}, {"g5r1", "g5r3"}});
     }},
    {"one_global",
     [] {
       return smallWithout({{"g0r0", "g1r3"}});
     }},
    {"local_and_global",
     [] {
       return smallWithout({{"g0r0", "g0r1"}, {"g0r0", "g1r3"}});
     }},
    degraded(2, 4),
    degraded(3, 8),
    degraded(4, 4),
    degraded(4, 6),
    degraded(4, 8),
    degraded(6, 1),
    degraded(6, 3),
    degraded(6, 6),
};

class DegradedDragonfly : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    fabric_ = GetParam().fabric();
    const auto routed = makeDragonflyEngine()->route(fabric_, withVls(8));
    ASSERT_TRUE(routed) << routed.error().message;
    result_ = *routed;
    report_ = analyseRoutes(fabric_, result_);
  }
  std::string notes() const { return fmt::format("{}", fmt::join(result_.notes, "\n")); }

  Fabric fabric_;
  RoutingResult result_;
  RouteReport report_;
};

// auto keeps dragonfly unless sssp's balanced shortest paths leave a less
// busy busiest link (AutoEngine.cpp), judged here by walking each pair on
// its SL.
TEST_P(DegradedDragonfly, AutoTakesDragonflyUnlessSsspSpreadsTheLoadBetter) {
  EXPECT_EQ(result_.engine, "dragonfly") << notes();
  const auto routed = makeAutoEngine()->route(fabric_, withVls(8));
  ASSERT_TRUE(routed) << routed.error().message;
  ASSERT_FALSE(routed->notes.empty());
  const auto taken = testing::walkPairsOnSls(fabric_, *routed);
  EXPECT_EQ(taken.failures, std::vector<std::string>{});
  EXPECT_TRUE(taken.acyclic);
  const auto dragonfly = testing::walkPairsOnSls(fabric_, result_);
  if (routed->engine == "dragonfly") {
    EXPECT_EQ(routed->notes.front(), "auto chose dragonfly: the fabric is a dragonfly");
    EXPECT_EQ(taken.busiest, dragonfly.busiest);
  } else {
    EXPECT_EQ(routed->engine, "sssp");
    EXPECT_TRUE(routed->notes.front().starts_with("auto chose sssp")) << routed->notes.front();
    EXPECT_LT(taken.busiest, dragonfly.busiest);
  }
}

TEST_P(DegradedDragonfly, RecognisesTheGroupsTheCablesWereLaidFor) {
  const auto shape = recogniseDragonfly(fabric_);
  ASSERT_TRUE(shape) << shape.error().message;
  EXPECT_EQ(shape->groups, 9u);
  EXPECT_EQ(shape->switchesPerGroup, 4u);
  for (const NodeId s : fabric_.switches())
    for (const NodeId t : fabric_.switches())
      EXPECT_EQ(shape->groupOf[s] == shape->groupOf[t],
                testing::groupByName(fabric_, s) == testing::groupByName(fabric_, t))
          << fabric_.node(s).description << " and " << fabric_.node(t).description;
}

TEST_P(DegradedDragonfly, NamesEveryMissingCableInTheNotes) {
  const auto missing = testing::missingCables(testing::generatedFabric(kSmall), fabric_);
  const std::string all = notes();
  for (const auto& [a, b] : missing.local)
    EXPECT_NE(all.find(fmt::format("\"{}\" - \"{}\"", a, b)), std::string::npos)
        << a << " - " << b << " in\n"
        << all;
  for (const auto& [a, b] : missing.global)
    EXPECT_NE(all.find(fmt::format(
                  "\"{}\" (group {}) - \"{}\"", a,
                  recogniseDragonfly(fabric_)->groupOf[testing::nodeNamed(fabric_, a)], b)),
              std::string::npos)
        << a << " - " << b << " in\n"
        << all;
  EXPECT_EQ(all.find("missing local links") == std::string::npos, missing.local.empty());
  EXPECT_EQ(all.find("missing global links") == std::string::npos, missing.global.empty());
}

TEST_P(DegradedDragonfly, RoutesEveryPairFreeOfCreditLoopsWithinTheVlBudget) {
  EXPECT_EQ(report_.unreachablePairs(), 0u);
  EXPECT_TRUE(report_.creditLoops.acyclic)
      << fmt::format("{}", fmt::join(report_.creditLoops.cycle, " -> "));
  for (const auto& vl : report_.creditLoops.perVl) EXPECT_TRUE(vl.acyclic) << int(vl.vl);
  EXPECT_LE(result_.vlsUsed, 8);
  EXPECT_LE(
      report_.creditLoops.vlsAnalysed,
      result_.vlsUsed + routing::treesHaveAVlOfTheirOwn(
                            result_.sl2vl));  // the multicast trees' VL above the layers (McSl.h)
  EXPECT_EQ(result_.sl2vl.empty(), result_.vlsUsed == 1);
}

TEST_P(DegradedDragonfly, RoutesAreShortestAmongPathsWithOneGlobalLink) {
  const auto bound = testing::hopsBeyondOneGlobalShortest(fabric_, result_);
  EXPECT_EQ(bound.longer, std::vector<std::string>{});
  EXPECT_GT(bound.checked, 0u);
}

TEST_P(DegradedDragonfly, SpreadsLoadFarBetterThanUpDown) {
  const auto updn = makeUpDownEngine()->route(fabric_, withVls(8));
  ASSERT_TRUE(updn);
  const double upDown = analyseRoutes(fabric_, *updn).linkLoad.maxOverMean;
  // A group left with 4 of its 6 local cables carries its local traffic on
  // fewer cables: about 2x the mean on them is the cost of minimal routes,
  // 3x where one router keeps a single local cable.
  EXPECT_LE(report_.linkLoad.maxOverMean, 3.0);
  EXPECT_LT(report_.linkLoad.maxOverMean, 0.75 * upDown)
      << "dragonfly " << report_.linkLoad.maxOverMean << ", updn " << upDown;
}

INSTANTIATE_TEST_SUITE_P(SmallDragonfly, DegradedDragonfly, ::testing::ValuesIn(kCases), caseName);

// The bound above, compared with the intact fabric: one hop more for each end
// group that lost the cable a route needed.
TEST(DegradedDragonflyRoutes, AMissingLocalCableCostsOneHopAtMost) {
  const Fabric intact = testing::generatedFabric(kSmall);
  const Fabric cut = smallWithout({{"g0r0", "g0r1"}, {"g0r2", "g0r3"}});
  const auto before = testing::walkAll(intact, *makeDragonflyEngine()->route(intact, withVls(8)));
  const auto after = testing::walkAll(cut, *makeDragonflyEngine()->route(cut, withVls(8)));
  const LidIndex lids(cut);
  std::size_t longer = 0;
  for (const auto& [key, hops] : after.hops) {
    const auto owner = lids.owner(Lid{key.second});
    if (!owner || cut.node(owner->node).isSwitch()) continue;
    const int was = before.hops.at(key);
    EXPECT_LE(hops, was + 1) << cut.node(key.first).description << " -> LID " << key.second;
    longer += hops > was;
  }
  EXPECT_GT(longer, 0u);  // the detours exist: the bound is not met by chance
}

// A router that lost every local cable is placed in its group by its global
// links (the group one router short whose global links its own complete) and
// reaches its group through other groups.
TEST(DegradedDragonflyRoutes, PlacesARouterWithNoLocalCableLeftByItsGlobalLinks) {
  const Fabric f = smallWithout({{"g0r0", "g0r1"}, {"g0r0", "g0r2"}, {"g0r0", "g0r3"}});
  const auto shape = recogniseDragonfly(f);
  ASSERT_TRUE(shape) << shape.error().message;
  const NodeId r0 = testing::nodeNamed(f, "g0r0");
  EXPECT_EQ(shape->groupOf[r0], shape->groupOf[testing::nodeNamed(f, "g0r1")]);
  EXPECT_EQ(shape->stranded, std::vector<NodeId>{r0});
  const auto r = makeDragonflyEngine()->route(f, withVls(8));
  ASSERT_TRUE(r);
  const std::string notes = fmt::format("{}", fmt::join(r->notes, "\n"));
  EXPECT_NE(notes.find("router \"g0r0\" has no local link left"), std::string::npos) << notes;
  const RouteReport report = analyseRoutes(f, *r);
  EXPECT_EQ(report.unreachablePairs(), 0u);
  EXPECT_TRUE(report.creditLoops.acyclic);
}

// g0r0 and g5r2 both reach groups 1 and 2: either could complete either
// group, and either way each reaches its group through other groups.
TEST(DegradedDragonflyRoutes, RoutesTwoStrandedRoutersWhoseGlobalLinksCannotTellThemApart) {
  const Fabric f = smallWithout({{"g0r0", "g0r1"},
                                 {"g0r0", "g0r2"},
                                 {"g0r0", "g0r3"},
                                 {"g5r2", "g5r0"},
                                 {"g5r2", "g5r1"},
                                 {"g5r2", "g5r3"}});
  const auto shape = recogniseDragonfly(f);
  ASSERT_TRUE(shape) << shape.error().message;
  EXPECT_EQ(shape->stranded.size(), 2u);
  const auto r = makeDragonflyEngine()->route(f, withVls(8));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->engine, "dragonfly");
  const RouteReport report = analyseRoutes(f, *r);
  EXPECT_EQ(report.unreachablePairs(), 0u);
  EXPECT_TRUE(report.creditLoops.acyclic);
}

// Detours in a group of 6 that lost cables chain into a cycle of local links
// on VL0 (this fabric went to updn for it: busiest link 7.0x the mean, routes
// up to 3 hops longer than the shortest); one turn of the cycle climbs a VL.
TEST(DegradedDragonflyRoutes, ClimbsAVlWhereDetoursInAGroupWouldWaitOnEachOther) {
  const Fabric f = testing::generatedFabric(DragonflySpec{.a = 6, .p = 2, .h = 1},
                                            Degradation{.links = 4, .seed = 12});
  const auto r = makeDragonflyEngine()->route(f, withVls(8));
  ASSERT_TRUE(r);
  const std::string notes = fmt::format("{}", fmt::join(r->notes, "\n"));
  ASSERT_EQ(r->engine, "dragonfly") << notes;
  EXPECT_NE(notes.find("3 VLs by (in port, out port): the VL climbs after each global link and "
                       "at 1 turn inside groups where detours around missing cables would wait "
                       "on each other, levels proven acyclic"),
            std::string::npos)
      << notes;
  const RouteReport report = analyseRoutes(f, *r);
  EXPECT_EQ(report.unreachablePairs(), 0u);
  EXPECT_TRUE(report.creditLoops.acyclic);
  for (const auto& vl : report.creditLoops.perVl) EXPECT_TRUE(vl.acyclic) << int(vl.vl);
  EXPECT_LE(report.linkLoad.maxOverMean, 2.5);
}

// Fall back only when the VL budget cannot hold the routes, and say so.
TEST(DegradedDragonflyRoutes, FallsBackOnlyWhenTheVlBudgetCannotHoldTheRoutes) {
  // g0r0's one local cable carries both the traffic entering group 0 there
  // and g0r0's own traffic toward group 0's holders: one turn for both, so
  // the VL climbs once inside the group: 3 VLs.
  const Fabric f = smallWithout({{"g0r0", "g0r1"}, {"g0r0", "g0r2"}});
  const auto fits = makeDragonflyEngine()->route(f, withVls(3));
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->engine, "dragonfly");
  EXPECT_EQ(fits->vlsUsed, 3);
  for (const std::uint8_t budget : {1, 2}) {
    const auto r = makeDragonflyEngine()->route(f, withVls(budget));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->engine, "updn");
    ASSERT_GE(r->notes.size(), 3u);
    EXPECT_EQ(r->notes[1], fmt::format("dragonfly fell back to updn on 1 VL: the routes need 3 "
                                       "VLs, the ports declare 8 and {} are allowed (maxVls)",
                                       budget));
    const RouteReport report = analyseRoutes(f, *r);
    EXPECT_EQ(report.unreachablePairs(), 0u);
    EXPECT_TRUE(report.creditLoops.acyclic);
  }
  // The 4-cycle needs no more than the intact fabric: 2 VLs hold it.
  const auto cycle =
      makeDragonflyEngine()->route(smallWithout({{"g0r0", "g0r1"}, {"g0r2", "g0r3"}}), withVls(2));
  ASSERT_TRUE(cycle);
  EXPECT_EQ(cycle->engine, "dragonfly");
  EXPECT_EQ(cycle->vlsUsed, 2);
}

}  // namespace
}  // namespace ibsm
