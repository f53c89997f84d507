// The report judges tables by walking them: every pair a correct table
// routes is counted routed, and each way a table can fail shows up with its
// own reason, with the pairs it affects and a readable example.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Report.h>

#include <map>
#include <set>

#include "tests/routing/analysis/HandTables.h"
#include "tests/support/FabricBuilder.h"

namespace ibsm {
namespace {

using ::testing::ElementsAre;
using testing::FabricBuilder;
using testing::HandTables;
using ::testing::HasSubstr;
using testing::lidOf;

const PairCounts& pairsOf(const RouteReport& r, PairKind k) {
  return r.pairs[static_cast<std::size_t>(k)];
}
std::uint64_t unreachable(const RouteReport& r, UnreachableReason why) {
  return r.unreachableByReason[static_cast<std::size_t>(why)];
}

// s0 -- s1 -- s2, one host on each (h0, h1, h2 on port 1).
Fabric line(std::uint8_t lmc = 0) {
  FabricBuilder b;
  b.addSwitch("s0");
  b.addSwitch("s1");
  b.addSwitch("s2");
  b.cable("s0", 2, "s1", 2).cable("s1", 3, "s2", 2);
  b.addHost("h0", "s0", 1);
  b.addHost("h1", "s1", 1);
  b.addHost("h2", "s2", 1);
  return b.build(lmc);
}

HandTables lineTables(const Fabric& f) {
  HandTables t(f);
  t.deliverLocally();
  t.toward("s0", "s1", 2).toward("s0", "s2", 2);
  t.toward("s1", "s0", 2).toward("s1", "s2", 3);
  t.toward("s2", "s0", 2).toward("s2", "s1", 2);
  return t;
}

TEST(RouteReport, CorrectTablesRouteEveryPairOfEveryKind) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  const RouteReport r = analyseRoutes(f, t.result());

  EXPECT_EQ(r.switches, 3u);
  EXPECT_EQ(r.caPorts, 3u);
  EXPECT_EQ(r.destinationLids, 6u);
  // 6 endpoints to 6 LIDs, less each endpoint to itself.
  EXPECT_EQ(r.routedPairs(), 30u);
  EXPECT_EQ(r.unreachablePairs(), 0u);
  EXPECT_EQ(pairsOf(r, PairKind::CaToCa).routed, 6u);
  EXPECT_EQ(pairsOf(r, PairKind::CaToSwitch).routed, 9u);
  EXPECT_EQ(pairsOf(r, PairKind::SwitchToCa).routed, 9u);
  EXPECT_EQ(pairsOf(r, PairKind::SwitchToSwitch).routed, 6u);
  EXPECT_TRUE(r.unreachableExamples.empty());
  EXPECT_EQ(r.lidsWithLoops, 0u);
  EXPECT_TRUE(r.creditLoops.acyclic);
}

TEST(RouteReport, CountsSwitchHopsBetweenHostsAndNoStretchOnShortestPaths) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  const RouteReport r = analyseRoutes(f, t.result());
  // h0<->h1 and h1<->h2 cross one cable, h0<->h2 two.
  EXPECT_EQ(r.hops.pairs, 6u);
  EXPECT_EQ(r.hops.max, 2u);
  EXPECT_DOUBLE_EQ(r.hops.mean, 8.0 / 6.0);
  EXPECT_EQ(r.hops.maxStretch, 0u);
  EXPECT_EQ(r.hops.longerThanShortest, 0u);
}

TEST(RouteReport, MeasuresStretchOfADetour) {
  FabricBuilder b;
  for (const char* s : {"s0", "s1", "s2"}) b.addSwitch(s);
  b.cable("s0", 2, "s1", 2).cable("s1", 3, "s2", 3).cable("s2", 4, "s0", 4);
  b.addHost("h0", "s0", 1);
  b.addHost("h1", "s1", 1);
  b.addHost("h2", "s2", 1);
  const Fabric f = b.build();
  HandTables t(f);
  t.deliverLocally();
  t.toward("s0", "s1", 2).toward("s0", "s2", 2);  // to s2 the long way, through s1
  t.toward("s1", "s0", 2).toward("s1", "s2", 3);
  t.toward("s2", "s0", 4).toward("s2", "s1", 3);
  const RouteReport r = analyseRoutes(f, t.result());

  EXPECT_EQ(r.unreachablePairs(), 0u);
  EXPECT_EQ(r.hops.max, 2u);
  EXPECT_EQ(r.hops.maxStretch, 1u);
  EXPECT_EQ(r.hops.longerThanShortest, 1u);  // h0 -> h2 only
  EXPECT_DOUBLE_EQ(r.hops.meanStretch, 1.0 / 6.0);
}

TEST(RouteReport, AMissingEntryStrandsTheRoutesThatReachIt) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s1", lidOf(f, "h2"), kNoRoute);
  const RouteReport r = analyseRoutes(f, t.result());

  // s0, h0, s1 and h1 all pass through s1 to reach h2.
  EXPECT_EQ(r.unreachablePairs(), 4u);
  EXPECT_EQ(unreachable(r, UnreachableReason::NoEntry), 4u);
  EXPECT_EQ(pairsOf(r, PairKind::CaToCa).unreachable, 2u);
  EXPECT_EQ(pairsOf(r, PairKind::SwitchToCa).unreachable, 2u);
  ASSERT_EQ(r.unreachableExamples.size(), 1u);
  const UnreachableExample& ex = r.unreachableExamples[0];
  EXPECT_EQ(ex.reason, UnreachableReason::NoEntry);
  EXPECT_EQ(ex.source.description, "h0");  // a CA source is preferred
  EXPECT_EQ(ex.destination.description, "h2");
  EXPECT_EQ(ex.destination.lid, lidOf(f, "h2"));
  EXPECT_THAT(ex.path, ElementsAre("s0", "s1"));
  EXPECT_THAT(ex.stoppedAt, HasSubstr("\"s1\""));
  EXPECT_THAT(ex.stoppedAt, HasSubstr("no entry"));
}

TEST(RouteReport, AForwardingLoopIsReportedNotHungOn) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s1", lidOf(f, "h2"), 2);  // back to s0, which sends it to s1 again
  const RouteReport r = analyseRoutes(f, t.result());

  EXPECT_EQ(unreachable(r, UnreachableReason::Loop), 4u);
  EXPECT_EQ(r.unreachablePairs(), 4u);
  EXPECT_EQ(r.lidsWithLoops, 1u);
  ASSERT_EQ(r.unreachableExamples.size(), 1u);
  EXPECT_EQ(r.unreachableExamples[0].reason, UnreachableReason::Loop);
  EXPECT_THAT(r.unreachableExamples[0].path, ElementsAre("s0", "s1", "s0"));
  // A forwarding loop is a credit loop too.
  EXPECT_FALSE(r.creditLoops.acyclic);
}

TEST(RouteReport, AnEntryIntoAnUncabledPortIsADeadPort) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s1", lidOf(f, "h2"), 7);  // s1 has 8 ports; 7 has no cable
  const RouteReport r = analyseRoutes(f, t.result());
  EXPECT_EQ(unreachable(r, UnreachableReason::DeadPort), 4u);
  ASSERT_EQ(r.unreachableExamples.size(), 1u);
  EXPECT_THAT(r.unreachableExamples[0].stoppedAt, HasSubstr("no cable"));
}

TEST(RouteReport, AnEntryIntoAPortTheSwitchDoesNotHaveIsADeadPort) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s1", lidOf(f, "h2"), 40);
  const RouteReport r = analyseRoutes(f, t.result());
  EXPECT_EQ(unreachable(r, UnreachableReason::DeadPort), 4u);
  ASSERT_EQ(r.unreachableExamples.size(), 1u);
  EXPECT_THAT(r.unreachableExamples[0].stoppedAt, HasSubstr("does not have"));
}

TEST(RouteReport, DeliveringToAnotherHostOrToPortZeroIsTheWrongPort) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s1", lidOf(f, "h2"), 1);  // hands h2's packets to h1
  RouteReport r = analyseRoutes(f, t.result());
  EXPECT_EQ(unreachable(r, UnreachableReason::WrongPort), 4u);
  ASSERT_EQ(r.unreachableExamples.size(), 1u);
  EXPECT_THAT(r.unreachableExamples[0].stoppedAt, HasSubstr("\"h1\"[1]"));

  HandTables u = lineTables(f);
  u.set("s2", lidOf(f, "h2"), 0);  // s2 keeps h2's packets itself
  r = analyseRoutes(f, u.result());
  // Every source but h2: s0, s1, s2, h0, h1.
  EXPECT_EQ(unreachable(r, UnreachableReason::WrongPort), 5u);
  EXPECT_EQ(pairsOf(r, PairKind::SwitchToCa).unreachable, 3u);
}

TEST(RouteReport, SwitchLidsAreDestinationsToo) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s2", lidOf(f, "s2"), kNoRoute);
  const RouteReport r = analyseRoutes(f, t.result());
  EXPECT_EQ(pairsOf(r, PairKind::CaToSwitch).unreachable, 3u);
  EXPECT_EQ(pairsOf(r, PairKind::SwitchToSwitch).unreachable, 2u);
  EXPECT_EQ(r.unreachablePairs(), 5u);
}

TEST(RouteReport, ExamplesCoverEveryReasonSeen) {
  const Fabric f = line();
  HandTables t = lineTables(f);
  t.set("s1", lidOf(f, "h2"), 2);         // loop
  t.set("s0", lidOf(f, "h1"), kNoRoute);  // no entry
  t.set("s2", lidOf(f, "s1"), 5);         // dead port
  const RouteReport r = analyseRoutes(f, t.result());
  std::vector<UnreachableReason> reasons;
  for (const auto& ex : r.unreachableExamples) reasons.push_back(ex.reason);
  EXPECT_THAT(reasons, ::testing::UnorderedElementsAre(UnreachableReason::NoEntry,
                                                       UnreachableReason::DeadPort,
                                                       UnreachableReason::Loop));
}

TEST(RouteReport, ShowsAtMostTenExamplesAndOneLidEach) {
  const Fabric f = testing::sampleFabric("fat-tree-3level-k8.net");
  RoutingResult empty;  // no tables at all: every pair is stranded
  const RouteReport r = analyseRoutes(f, empty);
  EXPECT_EQ(r.routedPairs(), 0u);
  EXPECT_EQ(r.unreachablePairs(), unreachable(r, UnreachableReason::NoEntry));
  ASSERT_EQ(r.unreachableExamples.size(), RouteReport::kMaxExamples);
  std::set<std::uint16_t> lids;
  for (const auto& ex : r.unreachableExamples) lids.insert(ex.destination.lid.value);
  EXPECT_EQ(lids.size(), RouteReport::kMaxExamples);
}

// s0 with hosts a0 (port 1) and a1 (port 2); s1 with host b0 (port 1); two
// cables s0[3]-s1[3] and s0[4]-s1[4].
Fabric twoSwitches(std::uint8_t lmc = 0) {
  FabricBuilder b;
  b.addSwitch("s0");
  b.addSwitch("s1");
  b.cable("s0", 3, "s1", 3).cable("s0", 4, "s1", 4);
  b.addHost("a0", "s0", 1);
  b.addHost("a1", "s0", 2);
  b.addHost("b0", "s1", 1);
  return b.build(lmc);
}

RoutingResult twoSwitchTables(const Fabric& f) {
  HandTables t(f);
  t.deliverLocally().toward("s0", "s1", 3);
  t.toward("s1", "s0", 3);
  for (const Lid l : testing::lidsOf(f.node(testing::nodeNamed(f, "a1")).ports[1]))
    t.set("s1", l, 4);
  return t.result();
}

TEST(RouteReport, CountsCaToCaRoutesPerDirectedLinkByHand) {
  const Fabric f = twoSwitches();
  const RouteReport r = analyseRoutes(f, twoSwitchTables(f));
  // a0->b0 and a1->b0 share s0[3]->s1[3]; b0->a0 takes s1[3]->s0[3],
  // b0->a1 s1[4]->s0[4]; nothing uses s0[4]->s1[4].
  const LinkLoadStats& l = r.linkLoad;
  EXPECT_EQ(l.links, 4u);
  EXPECT_EQ(l.max, 2u);
  EXPECT_EQ(l.min, 0u);
  EXPECT_DOUBLE_EQ(l.mean, 1.0);
  EXPECT_DOUBLE_EQ(l.maxOverMean, 2.0);
  ASSERT_EQ(l.busiest.size(), 4u);
  EXPECT_EQ(l.busiest[0].name, "\"s0\"[3] -> \"s1\"[3]");
  EXPECT_EQ(l.busiest[0].routes, 2u);
  EXPECT_EQ(l.busiest[0].fromPort, 3);
  EXPECT_EQ(l.busiest[3].routes, 0u);
  EXPECT_EQ(l.busiest[3].name, "\"s0\"[4] -> \"s1\"[4]");
  // Every directed cable, unused ones too, keyed by GUID and port for `ibsm draw`.
  ASSERT_EQ(l.perLink.size(), 4u);
  std::map<std::pair<std::uint64_t, int>, std::uint64_t> routes;
  for (const auto& p : l.perLink) routes[{p.fromGuid.value, p.fromPort}] = p.routes;
  const Guid s0 = f.node(testing::nodeNamed(f, "s0")).guid;
  const Guid s1 = f.node(testing::nodeNamed(f, "s1")).guid;
  EXPECT_EQ(routes,
            (std::map<std::pair<std::uint64_t, int>, std::uint64_t>{
                {{s0.value, 3}, 2}, {{s0.value, 4}, 0}, {{s1.value, 3}, 1}, {{s1.value, 4}, 1}}));
}

TEST(RouteReport, LinkLoadsCountEachHostPairOnceWhateverTheLmc) {
  const Fabric f = twoSwitches(/*lmc=*/2);
  const RouteReport r = analyseRoutes(f, twoSwitchTables(f));
  EXPECT_EQ(r.destinationLids, 2u + 3u * 4u);
  EXPECT_EQ(pairsOf(r, PairKind::CaToCa).routed, 3u * 2u * 4u);  // every LID is a destination
  EXPECT_EQ(r.linkLoad.max, 2u);                                 // but loads use base LIDs
  EXPECT_DOUBLE_EQ(r.linkLoad.mean, 1.0);
}

TEST(RouteReport, TablesThatRouteTheTreeRouteEveryPairOfASampleFabric) {
  const Fabric f = testing::sampleFabric("fat-tree-3level-k8.net", /*lmc=*/1);
  const RouteReport r = analyseRoutes(f, testing::shortestPathTables(f));
  EXPECT_EQ(r.unreachablePairs(), 0u);
  const std::uint64_t endpoints = r.switches + r.caPorts;
  EXPECT_EQ(r.routedPairs(), endpoints * r.destinationLids - r.switches - 2 * r.caPorts);
  EXPECT_EQ(r.hops.max, 4u);
  EXPECT_EQ(r.hops.maxStretch, 0u);
}

}  // namespace
}  // namespace ibsm
