// What routing under change weighs tables by (judgeTables,
// routing/plan/CreditLoopJudge.h): the report's busiest link, unreachable
// pairs and credit-loop freedom, the same figures analyseRoutes gives, on
// any number of threads; and a floor under the busiest link that no tables
// delivering every pair can go below.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>

#include <string>
#include <vector>

#include "routing/plan/CreditLoopJudge.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::nodeNamed;

RoutingResult route(const Fabric& f, const std::string& engine) {
  auto r = defaultRegistry().route(f, {engine}, {.rootGuids = {}, .maxVls = 4});
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(*r);
}

void expectSameAsReport(const Fabric& f, const RoutingResult& r) {
  const RouteReport report = analyseRoutes(f, r);
  for (const unsigned threads : {1u, 2u, 8u}) {
    const TablesVerdict v = judgeTables(f, r, threads);
    EXPECT_EQ(v.busiest, report.linkLoad.max) << threads << " threads";
    EXPECT_EQ(v.unreachable, report.unreachablePairs()) << threads << " threads";
    EXPECT_EQ(v.acyclic, report.creditLoops.acyclic) << threads << " threads";
    EXPECT_LE(v.busiestFloor, report.linkLoad.max) << "a floor for any tables, these too";
  }
}

TEST(TablesVerdict, GivesTheReportsFiguresForEveryEngineOnAFatTree) {
  Fabric cut = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  testing::removeCables(cut, {{"edge1_2", "agg1_0"}});
  for (const std::string engine : {"ftree", "updn", "minhop"}) {
    SCOPED_TRACE(engine);
    expectSameAsReport(cut, route(cut, engine));
  }
  // minhop's tables there have a credit loop: the verdict must see it.
  EXPECT_FALSE(judgeTables(cut, route(cut, "minhop"), 2).acyclic);
}

// A dragonfly's tables come with SL2VL: the loops are judged per VL.
TEST(TablesVerdict, JudgesADragonflysVlsAsTheReportDoes) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  const RoutingResult r = route(f, "dragonfly");
  ASSERT_FALSE(r.sl2vl.empty()) << "the premise: tables with SL2VL";
  expectSameAsReport(f, r);
}

TEST(TablesVerdict, CountsUnreachablePairsAndLoopsOfBrokenTables) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  RoutingResult r = route(f, "ftree");
  // Two switches that send one LID to each other: a loop, unreachable pairs
  // and a credit loop on the cable between them.
  const NodeId leaf = nodeNamed(f, "leaf0");
  const Port& up = *std::ranges::find_if(f.node(leaf).ports, [&](const Port& p) {
    return p.remote && f.node(p.remote->node).isSwitch();
  });
  const Lid lid = f.node(nodeNamed(f, "leaf1")).ports[0].lid;
  r.lfts[leaf].port[lid.value] = up.number;
  r.lfts[up.remote->node].port[lid.value] = up.remote->port;
  // And one switch with no entry for a CA's LID.
  r.lfts[nodeNamed(f, "leaf2")].port[f.node(nodeNamed(f, "h3_0")).ports[1].lid.value] = kNoRoute;
  const TablesVerdict v = judgeTables(f, r, 2);
  EXPECT_GT(v.unreachable, 0u);
  EXPECT_FALSE(v.acyclic);
  expectSameAsReport(f, r);
}

// The floor is the busiest a fat tree's leaf must have: ftree's tables on
// the full tree reach it, and one lost leaf cable raises it by the share of
// that cable.
TEST(TablesVerdict, FloorIsALeafsRoutesOverItsUplinks) {
  const Fabric full = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  const TablesVerdict v = judgeTables(full, route(full, "ftree"), 1);
  // 128 hosts, 4 on a leaf with 4 uplinks: 4 * 124 / 4.
  EXPECT_EQ(v.busiestFloor, 124u);
  EXPECT_EQ(v.busiest, v.busiestFloor);
  Fabric cut = full;
  testing::removeCables(cut, {{"edge1_2", "agg1_0"}});
  // 4 * 124 over the 3 uplinks left, rounded up.
  EXPECT_EQ(judgeTables(cut, route(cut, "ftree"), 1).busiestFloor, 166u);
}

// On a dragonfly the floor is a group's: its hosts' routes to every other
// group leave over its global cables, far more per cable than one router's
// over all of its own.
TEST(TablesVerdict, FloorIsAGroupsRoutesOverItsGlobalCables) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  const TablesVerdict v = judgeTables(f, route(f, "dragonfly"), 1);
  // 9 groups of 4 routers with 2 hosts: 8 * 64 routes over 4 * 2 cables;
  // one router alone: 2 * 70 over 5.
  EXPECT_EQ(v.busiestFloor, 64u);
  EXPECT_GE(v.busiest, v.busiestFloor);
}

// Routing under change takes ftree's tables as free of credit loops without
// walking their dependencies (LoopCheck::ByConstruction): the premise holds
// on trees cut in several places, fresh and hinted by the whole tree's
// tables, and the busiest link and unreachable pairs are the walk's.
TEST(TablesVerdict, TakesFtreesTablesAsLoopFreeWithTheWalksOtherFigures) {
  const Fabric full = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  const RoutingResult before = route(full, "ftree");
  Fabric cut = full;
  testing::removeCables(cut, {{"edge1_2", "agg1_0"}, {"edge0_1", "agg0_1"}, {"agg2_0", "core0"}});
  auto hinted = defaultRegistry().route(cut, {"ftree"},
                                        {.rootGuids = {}, .maxVls = 4, .previous = before.lfts});
  ASSERT_TRUE(hinted.has_value()) << hinted.error().message;
  ASSERT_TRUE(hinted->followedPrevious);
  for (const RoutingResult& r : {route(cut, "ftree"), *hinted}) {
    const TablesVerdict walked = judgeTables(cut, r, 2);
    EXPECT_TRUE(walked.acyclic);
    const TablesVerdict taken = judgeTables(cut, r, 2, LoopCheck::ByConstruction);
    EXPECT_TRUE(taken.acyclic);
    EXPECT_EQ(taken.busiest, walked.busiest);
    EXPECT_EQ(taken.unreachable, walked.unreachable);
    EXPECT_EQ(taken.busiestFloor, walked.busiestFloor);
  }
}

}  // namespace
}  // namespace ibsm
