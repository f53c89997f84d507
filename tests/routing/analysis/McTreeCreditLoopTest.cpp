// Multicast trees in the credit-loop judge (issue 33): a copy entering a
// tree switch by one tree port waits for the cable out of each other tree
// port, on the VL its group's SL maps that turn to, as a unicast packet
// does. Two trees and a unicast route, or three trees alone, can close a
// ring of such waits on one VL where neither alone does; the judge must
// find it and name the groups and the routes in it, and a tree on an SL
// whose VL is kept apart must break it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>
#include <ibsm/Report.h>

#include "routing/analysis/CreditLoopsMulticast.h"
#include "tests/routing/analysis/RingTables.h"

namespace ibsm {
namespace {

using ::testing::AllOf;
using testing::handRing;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ringSwitch;

// Groups whose trees follow arcs of the ring.
struct Trees {
  std::vector<SwitchMft> mfts;
  std::vector<McGroupRoute> groups;
  std::vector<std::uint8_t> sls;

  explicit Trees(const Fabric& f) : mfts(f.size()) {}

  // A group on `sl` whose tree runs clockwise from r`first` over `cables`
  // cables, the hosts of its two ends its members; returns its name.
  std::string addArc(const Fabric& f, int n, int first, int cables, std::uint8_t sl) {
    const Lid mlid{static_cast<std::uint16_t>(0xC000 + groups.size())};
    Gid mgid{0xff, 0x12};
    mgid[15] = static_cast<std::uint8_t>(groups.size() + 1);
    for (int k = 0; k <= cables; ++k) {
      McPortMask& m = mfts[testing::nodeNamed(f, ringSwitch(first + k, n))].entries[mlid.value];
      if (k > 0) m.set(3);  // from the switch before
      if (k < cables) m.set(2);
      if (k == 0 || k == cables) m.set(1);  // a member host
    }
    groups.push_back({mgid, mlid, {}});
    sls.push_back(sl);
    return gidText(mgid);
  }
  McTreesToJudge judged() const { return {&mfts, groups, sls}; }
};

// Every route one hop on the 3-ring (no switch passes anything on), but r2
// sends r1's LIDs the long way round, through r0: (r2->r0) waits for (r0->r1).
testing::HandTables oneLongRoute(const Fabric& f) {
  testing::HandTables t(f);
  t.deliverLocally();
  for (int i = 0; i < 3; ++i)
    t.toward(ringSwitch(i, 3), ringSwitch(i + 1, 3), 2)
        .toward(ringSwitch(i, 3), ringSwitch(i - 1, 3), 3);
  t.toward("r2", "r1", 2);
  return t;
}

TEST(McTreeCreditLoops, TwoTreesAndOneUnicastRouteCloseALoopNoneClosesAlone) {
  const Fabric f = handRing(3);
  testing::HandTables t = oneLongRoute(f);
  Trees trees(f);
  const std::string a = trees.addArc(f, 3, 0, 2, 0);  // r0-r1-r2: (r0->r1) waits for (r1->r2)
  const std::string b = trees.addArc(f, 3, 1, 2, 0);  // r1-r2-r0: (r1->r2) waits for (r2->r0)

  const RouteReport unicast = analyseRoutes(f, t.result());
  EXPECT_TRUE(unicast.creditLoops.acyclic);
  EXPECT_EQ(unicast.creditLoops.dependencies, 1u);

  const RouteReport r = analyseRoutes(f, t.result(), 1, trees.judged());
  const CreditLoopReport& c = r.creditLoops;
  EXPECT_FALSE(c.acyclic);
  EXPECT_EQ(c.dependencies, 5u);  // each tree's two turns, both ways, and the route's one
  EXPECT_THAT(
      c.cycle,
      ::testing::UnorderedElementsAre(
          AllOf(HasSubstr("\"r0\"[2] -> \"r1\"[3]"), HasSubstr(a), Not(HasSubstr(b))),
          AllOf(HasSubstr("\"r1\"[2] -> \"r2\"[3]"), HasSubstr(b), Not(HasSubstr(a))),
          AllOf(HasSubstr("\"r2\"[2] -> \"r0\"[3]"),
                HasSubstr("unicast toward LID " + std::to_string(testing::lidOf(f, "r1").value)))));
  EXPECT_THAT(reportSummary(r), HasSubstr("(the tree of group " + a + " (MLID 0xc000) on SL 0)"));
  // Without the unicast route's turn the two trees stay loop-free.
  testing::HandTables short_ = oneLongRoute(f);
  short_.toward("r2", "r1", 3);
  EXPECT_TRUE(analyseRoutes(f, short_.result(), 1, trees.judged()).creditLoops.acyclic);
}

TEST(McTreeCreditLoops, ThreeTreesCloseALoopWithoutAnyUnicastTurn) {
  const Fabric f = handRing(3);
  testing::HandTables t = oneLongRoute(f);
  t.toward("r2", "r1", 3);  // every route one hop
  Trees trees(f);
  std::vector<std::string> names;
  for (int first = 0; first < 3; ++first) names.push_back(trees.addArc(f, 3, first, 2, 0));
  const CreditLoopReport c = analyseRoutes(f, t.result(), 1, trees.judged()).creditLoops;
  EXPECT_FALSE(c.acyclic);
  EXPECT_EQ(c.dependencies, 6u);
  ASSERT_EQ(c.cycle.size(), 3u);
  for (const std::string& step : c.cycle) {
    EXPECT_THAT(step, HasSubstr("the tree of group"));
    EXPECT_THAT(step, Not(HasSubstr("unicast")));
  }
  // Two of the three arcs are a loop-free pair.
  Trees two(f);
  two.addArc(f, 3, 0, 2, 0);
  two.addArc(f, 3, 1, 2, 0);
  EXPECT_TRUE(analyseRoutes(f, t.result(), 1, two.judged()).creditLoops.acyclic);
}

TEST(McTreeCreditLoops, ATreeOnAnSlWhoseVlIsKeptApartBreaksTheLoop) {
  const Fabric f = handRing(3);
  testing::HandTables t = oneLongRoute(f);
  testing::slOneOnVlOne(f, 3, t.result());
  // Unicast is walked on SL 0 and SL 1 (the tables map them apart).
  const std::size_t unicastOnVl1 =
      analyseRoutes(f, t.result()).creditLoops.perVl.at(1).dependencies;
  for (const std::uint8_t sl : {0, 1}) {
    SCOPED_TRACE(::testing::Message() << "tree b on SL " << int{sl});
    Trees trees(f);
    trees.addArc(f, 3, 0, 2, 0);
    trees.addArc(f, 3, 1, 2, sl);
    const CreditLoopReport c = analyseRoutes(f, t.result(), 1, trees.judged()).creditLoops;
    ASSERT_EQ(c.perVl.size(), 2u);
    EXPECT_EQ(c.acyclic, sl == 1);
    EXPECT_EQ(c.perVl[0].acyclic, sl == 1);
    EXPECT_TRUE(c.perVl[1].acyclic);
    EXPECT_EQ(c.perVl[1].dependencies, unicastOnVl1 + (sl == 1 ? 2u : 0u));  // b's two turns
    if (sl == 0) {
      ASSERT_FALSE(c.cycle.empty());
      EXPECT_THAT(c.cycle.front(), HasSubstr(" VL0 ("));
    }
  }
}

TEST(McTreeCreditLoops, ATurnThatDropsTheGroupsSlHoldsNoBuffer) {
  const Fabric f = handRing(3);
  testing::HandTables t = oneLongRoute(f);
  testing::slOneOnVlOne(f, 3, t.result());
  // SL 2 dropped (VL 15) at r2 from port 3 to port 2: tree b's turn there.
  for (Sl2VlEntry& e : t.result().sl2vl)
    if (e.sw == testing::nodeNamed(f, "r2") && e.inPort == 3 && e.outPort == 2) e.vl[2] = 15;
  Trees trees(f);
  trees.addArc(f, 3, 0, 2, 0);
  trees.addArc(f, 3, 1, 2, 2);
  EXPECT_TRUE(analyseRoutes(f, t.result(), 1, trees.judged()).creditLoops.acyclic);
}

}  // namespace
}  // namespace ibsm
