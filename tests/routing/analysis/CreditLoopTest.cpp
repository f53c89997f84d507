// Credit loops are cycles in the channel dependency graph of the tables:
// the report must find them (and show one), must not invent them where an
// up*/down* order rules them out, and must see that VLs can break them.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Report.h>

#include "tests/routing/analysis/HandTables.h"
#include "tests/routing/analysis/RingTables.h"

namespace ibsm {
namespace {

using testing::HandTables;
using ::testing::HasSubstr;
using testing::lidOf;
using ::testing::UnorderedElementsAre;

using testing::clockwise;
using testing::ringSwitch;

// r0 .. r(n-1) in a ring: ri[2] is cabled to r(i+1)[3]; host hi on ri[1].
Fabric ring(int n) {
  return testing::handRing(n);
}

// Up*/down* with r0 as root on a 4-ring: r1 and r3 one level down, r2 two.
HandTables upDown(const Fabric& f) {
  HandTables t(f);
  t.deliverLocally();
  t.toward("r1", "r0", 3).toward("r3", "r0", 2).toward("r2", "r0", 3);
  t.toward("r0", "r1", 2).toward("r2", "r1", 3).toward("r3", "r1", 2);
  t.toward("r1", "r2", 2).toward("r3", "r2", 3).toward("r0", "r2", 2);
  t.toward("r0", "r3", 3).toward("r2", "r3", 2).toward("r1", "r3", 3);
  return t;
}

// The switch a channel name ("a"[1] -> "b"[2], maybe with " VL0") leaves or reaches.
std::string endOf(const std::string& channel, bool to) {
  const auto arrow = channel.find(" -> ");
  const std::string side = to ? channel.substr(arrow + 4) : channel.substr(0, arrow);
  return side.substr(1, side.find('"', 1) - 1);
}

// Each channel of the cycle must land on the switch the next one leaves.
void expectClosedCycle(const std::vector<std::string>& cycle) {
  ASSERT_GE(cycle.size(), 2u);
  for (std::size_t i = 0; i < cycle.size(); ++i)
    EXPECT_EQ(endOf(cycle[i], true), endOf(cycle[(i + 1) % cycle.size()], false))
        << cycle[i] << " then " << cycle[(i + 1) % cycle.size()];
}

TEST(CreditLoops, ClockwiseRoutingOnARingIsACycleAndTheCycleIsShown) {
  const Fabric f = ring(4);
  HandTables t = clockwise(f, 4);
  const RouteReport r = analyseRoutes(f, t.result());

  EXPECT_EQ(r.unreachablePairs(), 0u);  // every route arrives ...
  const CreditLoopReport& c = r.creditLoops;
  EXPECT_FALSE(c.acyclic);  // ... but the buffers can fill in a ring
  EXPECT_EQ(c.channels, 8u);
  EXPECT_THAT(c.cycle, UnorderedElementsAre("\"r0\"[2] -> \"r1\"[3]", "\"r1\"[2] -> \"r2\"[3]",
                                            "\"r2\"[2] -> \"r3\"[3]", "\"r3\"[2] -> \"r0\"[3]"));
  expectClosedCycle(c.cycle);
  ASSERT_EQ(c.perVl.size(), 1u);
  EXPECT_FALSE(c.perVl[0].acyclic);
}

TEST(CreditLoops, UpDownRoutingOnTheSameRingIsAcyclic) {
  const Fabric f = ring(4);
  HandTables t = upDown(f);
  const RouteReport r = analyseRoutes(f, t.result());
  EXPECT_EQ(r.unreachablePairs(), 0u);
  EXPECT_TRUE(r.creditLoops.acyclic);
  EXPECT_TRUE(r.creditLoops.cycle.empty());
  // r2->r1->r0, r3->r0->r1, r1->r0->r3, r0->r1->r2: four turns, none down-then-up.
  EXPECT_EQ(r.creditLoops.dependencies, 4u);
}

TEST(CreditLoops, RoutesTowardSwitchLidsCountToo) {
  const Fabric f = ring(4);
  HandTables t = upDown(f);
  // Hosts stay up*/down*, but the switches' own LIDs go clockwise.
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (i != j) t.set(ringSwitch(i, 4), lidOf(f, ringSwitch(j, 4)), 2);
  const RouteReport r = analyseRoutes(f, t.result());
  EXPECT_EQ(r.unreachablePairs(), 0u);
  EXPECT_FALSE(r.creditLoops.acyclic);
  expectClosedCycle(r.creditLoops.cycle);
}

TEST(CreditLoops, ADatelineVlBreaksTheRingCycle) {
  const Fabric f = ring(3);
  HandTables t = clockwise(f, 3);
  ASSERT_FALSE(analyseRoutes(f, t.result()).creditLoops.acyclic);

  // Traffic crossing r2 -> r0 moves to VL1 as it leaves r0; on a 3-ring
  // routed clockwise it is delivered at r1, so VL1 never waits on VL0.
  Sl2VlEntry dateline{testing::nodeNamed(f, "r0"), 3, 2, {}};
  dateline.vl.fill(1);
  t.result().sl2vl.push_back(dateline);
  t.result().vlsUsed = 2;
  const RouteReport r = analyseRoutes(f, t.result());
  const CreditLoopReport& c = r.creditLoops;
  EXPECT_TRUE(c.acyclic);
  EXPECT_EQ(c.vlsNeeded, 2);
  EXPECT_EQ(c.vlsAnalysed, 2);
  ASSERT_EQ(c.perVl.size(), 2u);
  EXPECT_TRUE(c.perVl[0].acyclic);
  EXPECT_TRUE(c.perVl[1].acyclic);
  EXPECT_EQ(c.perVl[1].dependencies, 0u);  // VL1 traffic never takes a second hop
}

TEST(CreditLoopsPerVl, AVlThatOnlyHostTrafficUsesLeavesTheCycleOnVlZero) {
  const Fabric f = ring(3);
  HandTables t = clockwise(f, 3);
  // Only r0's host moves to VL1; transit and switch traffic stay on VL0.
  Sl2VlEntry hostOnly{testing::nodeNamed(f, "r0"), 1, 2, {}};
  hostOnly.vl.fill(1);
  t.result().sl2vl.push_back(hostOnly);
  t.result().vlsUsed = 2;
  const CreditLoopReport c = analyseRoutes(f, t.result()).creditLoops;
  EXPECT_FALSE(c.acyclic);
  ASSERT_EQ(c.perVl.size(), 2u);
  EXPECT_FALSE(c.perVl[0].acyclic);
  EXPECT_TRUE(c.perVl[1].acyclic);
  ASSERT_FALSE(c.cycle.empty());
  EXPECT_THAT(c.cycle[0], HasSubstr(" VL0"));
  expectClosedCycle(c.cycle);
}

TEST(CreditLoops, ShortestPathsTowardSwitchesOfAFatTreeGoDownAndUpAndLoop) {
  // Between hosts, shortest paths of a fat tree are up*/down*; toward an
  // aggregation switch of the same pod they turn at an edge switch.
  const Fabric f = testing::sampleFabric("fat-tree-3level-k8.net");
  const RouteReport r = analyseRoutes(f, testing::shortestPathTables(f));
  EXPECT_EQ(r.unreachablePairs(), 0u);
  EXPECT_FALSE(r.creditLoops.acyclic);
  expectClosedCycle(r.creditLoops.cycle);
}

}  // namespace
}  // namespace ibsm
