// Per-pair SLs (RoutingResult::pairSls): an LFT column is shared by every
// source of a destination, so an engine that layers its routes over VLs
// names the SL of each pair. The credit-loop judge must walk each pair on
// its SL: the union of the routes may loop on one VL while the layers the
// pairs' SLs pick are each free of loops; one pair on the wrong SL puts its
// dependency back into the loop, and the judge must see that.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Report.h>

#include <algorithm>

#include "tests/routing/analysis/HandTables.h"
#include "tests/routing/analysis/RingTables.h"

namespace ibsm {
namespace {

using ::testing::ElementsAre;
using testing::HandTables;
using ::testing::HasSubstr;
using testing::lidOf;
using testing::nodeNamed;
using ::testing::Not;

// r0, r1, r2 in a ring (RingTables.h).
Fabric ring3() {
  return testing::handRing(3);
}

// Clockwise toward everything: r0->r1->r2 (toward r2's LIDs from r0),
// r1->r2->r0 and r2->r0->r1 close a ring of three dependencies on one VL.
// SL 1 travels on VL 1 at every turn of every switch, the others on VL 0.
HandTables clockwiseWithSlLayers(const Fabric& f, int n = 3) {
  HandTables t = testing::clockwise(f, n);
  testing::slOneOnVlOne(f, n, t.result());
  return t;
}

// Every pair from r2 (its host and its own port 0) toward r1's LIDs on SL 1:
// the turn r2->r0->r1 then holds VL1 buffers only.
std::vector<PairSl> r2ToR1OnSl1(const Fabric& f) {
  std::vector<PairSl> out;
  const NodeId r2 = nodeNamed(f, "r2");
  const NodeId h2 = nodeNamed(f, "h2");
  for (const Lid l : {lidOf(f, "r1"), lidOf(f, "h1")}) {
    out.push_back(PairSl{l, PortRef{r2, 0}, 1});
    out.push_back(PairSl{l, PortRef{h2, 1}, 1});
  }
  std::ranges::sort(out);
  return out;
}

TEST(PairSlCreditLoops, TheUnionOfEveryPairsRoutesLoopsOnVlZero) {
  const Fabric f = ring3();
  HandTables t = clockwiseWithSlLayers(f);
  // No pair named: every SL a path can carry is walked (SL 0 and SL 1 map
  // apart), and SL 0 alone closes the ring on VL0.
  const RouteReport r = analyseRoutes(f, t.result());
  const CreditLoopReport& c = r.creditLoops;
  EXPECT_FALSE(c.acyclic);
  EXPECT_THAT(c.sls, ElementsAre(0, 1));
  ASSERT_EQ(c.perVl.size(), 2u);
  EXPECT_FALSE(c.perVl[0].acyclic);
  // Nothing per pair to say: the report reads as it did before pairSls.
  EXPECT_FALSE(c.perPairSls);
  EXPECT_TRUE(r.pairsBySl.empty());
  EXPECT_THAT(reportSummary(r), Not(HasSubstr("pairs by SL")));
  EXPECT_THAT(reportJson(r), Not(HasSubstr("pairsBySl")));
}

TEST(PairSlCreditLoops, EachPairOnItsSlSplitsTheLoopOverTwoVls) {
  const Fabric f = ring3();
  HandTables t = clockwiseWithSlLayers(f);
  t.result().pairSls = r2ToR1OnSl1(f);
  const RouteReport r = analyseRoutes(f, t.result());
  EXPECT_EQ(r.unreachablePairs(), 0u);
  const CreditLoopReport& c = r.creditLoops;
  EXPECT_TRUE(c.acyclic) << fmt::format("{}", fmt::join(c.cycle, " => "));
  EXPECT_THAT(c.sls, ElementsAre(0, 1));
  ASSERT_EQ(c.perVl.size(), 2u);
  EXPECT_TRUE(c.perVl[0].acyclic);
  EXPECT_TRUE(c.perVl[1].acyclic);
  EXPECT_EQ(c.perVl[0].dependencies, 2u);  // r0->r1->r2 and r1->r2->r0
  EXPECT_EQ(c.perVl[1].dependencies, 1u);  // r2->r0->r1
  // The engine fallback's verdict agrees with the report's.
  EXPECT_TRUE(findCreditLoops(f, t.result()).acyclic);

  // 6 sources (3 switches, 3 hosts) x the 5 LIDs each does not own; 4 named.
  EXPECT_THAT(r.pairsBySl, ElementsAre(26, 4));
  EXPECT_TRUE(c.perPairSls);
  EXPECT_THAT(c.vlsCarrying, ElementsAre(0, 1));
  const std::string text = reportSummary(r);
  EXPECT_THAT(text, HasSubstr("pairs by SL (as the engine gave them): SL0 26, SL1 4; VLs "
                              "carrying them between switches: 0, 1"));
  EXPECT_THAT(text, HasSubstr("SLs walked: 0, 1 (each pair on the SL the engine gave it"));
  EXPECT_THAT(reportJson(r), HasSubstr("\"pairsBySl\":[26,4]"));
}

TEST(PairSlCreditLoops, OnePairOnTheWrongSlBringsTheLoopBackAndItIsNamed) {
  const Fabric f = ring3();
  HandTables t = clockwiseWithSlLayers(f);
  auto pairs = r2ToR1OnSl1(f);
  // r2's own port 0 toward h1 left on SL 0: its turn r2->r0->r1 holds VL0.
  const auto wrong = std::ranges::find(pairs, PairSl{lidOf(f, "h1"), {nodeNamed(f, "r2"), 0}, 1});
  ASSERT_NE(wrong, pairs.end());
  pairs.erase(wrong);
  t.result().pairSls = pairs;
  const CreditLoopReport c = analyseRoutes(f, t.result()).creditLoops;
  EXPECT_FALSE(c.acyclic);
  ASSERT_EQ(c.perVl.size(), 2u);
  EXPECT_FALSE(c.perVl[0].acyclic);
  EXPECT_TRUE(c.perVl[1].acyclic);
  EXPECT_THAT(c.cycle, ::testing::UnorderedElementsAre("\"r0\"[2] -> \"r1\"[3] VL0",
                                                       "\"r1\"[2] -> \"r2\"[3] VL0",
                                                       "\"r2\"[2] -> \"r0\"[3] VL0"));
  EXPECT_FALSE(findCreditLoops(f, t.result()).acyclic);
}

TEST(PairSlCreditLoops, ASourceWhoseHostsAreNamedStillSendsOnSlZeroFromItsOtherPorts) {
  const Fabric f = ring3();
  HandTables t = clockwiseWithSlLayers(f);
  // Only r2's host toward h1 on SL 1: r2's port 0 still sends SL 0 to h1.
  t.result().pairSls = {PairSl{lidOf(f, "h1"), {nodeNamed(f, "h2"), 1}, 1}};
  EXPECT_FALSE(findCreditLoops(f, t.result()).acyclic);
}

TEST(PairSlCreditLoops, WithoutSl2VlTablesTheSlsChangeNothing) {
  const Fabric f = ring3();
  HandTables t = clockwiseWithSlLayers(f);
  t.result().sl2vl.clear();
  t.result().vlsUsed = 1;
  t.result().pairSls = r2ToR1OnSl1(f);
  const CreditLoopReport c = analyseRoutes(f, t.result()).creditLoops;
  EXPECT_FALSE(c.acyclic);  // every SL is VL 0
  EXPECT_THAT(c.sls, ElementsAre(0));
}

TEST(PairSlCreditLoops, ASwitchNoPairOnTheSlCrossesCarriesNothingOnIt) {
  // r0..r3 in a ring as ring3, every route clockwise (up to three hops).
  const Fabric f = testing::handRing(4);
  HandTables t = clockwiseWithSlLayers(f, 4);
  // Only r0's pairs toward r1 on SL 1: one hop each, no dependency. The
  // chain r2->r3->r0->r1 toward r1 carries SL 0 alone: r3 has nothing on
  // VL1 to pass on, though r0's sources join the chain below it.
  std::vector<PairSl> pairs;
  for (const Lid l : {lidOf(f, "r1"), lidOf(f, "h1")})
    for (const PortRef p : {PortRef{nodeNamed(f, "r0"), 0}, PortRef{nodeNamed(f, "h0"), 1}})
      pairs.push_back(PairSl{l, p, 1});
  std::ranges::sort(pairs);
  t.result().pairSls = pairs;
  const CreditLoopReport c = findCreditLoops(f, t.result());
  ASSERT_EQ(c.perVl.size(), 2u);
  EXPECT_EQ(c.perVl[1].dependencies, 0u);
  EXPECT_FALSE(c.perVl[0].acyclic);  // SL 0 still goes all the way round
}

TEST(PairSlCreditLoops, PairsGivenOutOfOrderAreJudgedAlike) {
  const Fabric f = ring3();
  HandTables t = clockwiseWithSlLayers(f);
  auto pairs = r2ToR1OnSl1(f);
  std::ranges::reverse(pairs);
  t.result().pairSls = pairs;
  EXPECT_TRUE(findCreditLoops(f, t.result()).acyclic);
}

}  // namespace
}  // namespace ibsm
