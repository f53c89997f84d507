// dragonfly with LMC > 0 as multipath (issue 33): a port's base LID keeps
// the minimal route it has at LMC 0; its later LIDs leave the routes of the
// LIDs before them -- another global link where the group pair has several,
// a third group where it has one, another router inside the groups -- on
// the VLs the report proves free of credit loops; where the ports lack the
// VLs that costs, or it would take the multicast trees' VL, the later LIDs
// take the base LID's routes. Where the VLs
// allow, the later LIDs travel on SLs of their own, so a detour need not
// keep to the base routes' levels: on a dragonfly whose base routes are
// minimal, through intermediate groups (DragonflyValiant.h), on SLs 1-14 and
// three VLs.
#include <gtest/gtest.h>
#include <ibsm/Dragonfly.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "routing/multicast/McSl.h"
#include "tests/routing/engines/PairSlWalk.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;

RoutingResult route(const Fabric& fabric, std::uint8_t maxVls = 8) {
  RoutingOptions options;
  options.maxVls = maxVls;
  const auto result = makeDragonflyEngine()->route(fabric, options);
  if (!result) ADD_FAILURE() << "dragonfly refused: " << result.error().message;
  return result ? *result : RoutingResult{};
}

// The CA ports' base LIDs, in the fabric's node order.
std::vector<Lid> baseLids(const Fabric& f) {
  std::vector<Lid> out;
  for (const NodeId n : f.endNodes()) out.push_back(f.port({n, 1}).lid);
  return out;
}

// The (switch, out port) channels the route from switch `s` to `lid` takes.
std::set<std::pair<NodeId, std::uint8_t>> channels(const Fabric& f, const RoutingResult& r,
                                                   NodeId s, Lid lid) {
  std::set<std::pair<NodeId, std::uint8_t>> out;
  for (int hop = 0; hop < 16 && f.node(s).isSwitch(); ++hop) {
    const std::uint8_t port = r.lfts[s].at(lid);
    if (port == kNoRoute || port == 0) break;
    const auto next = f.port({s, port}).remote;
    if (!next || !f.node(next->node).isSwitch()) break;
    out.insert({s, port});
    s = next->node;
  }
  return out;
}

// On 4 VLs and on 8.
TEST(DragonflyLmc, BaseLidsKeepTheirLmcZeroRoutes) {
  for (const DragonflySpec spec :
       {DragonflySpec{.a = 4, .p = 2, .h = 2}, DragonflySpec{.a = 6, .p = 3, .h = 3}})
    for (const std::uint8_t vls : {4, 8}) {
      const Fabric plain = generatedFabric(spec);
      const Fabric ranged = generatedFabric(spec, {}, /*lmc=*/2);
      const RoutingResult zero = route(plain, vls), two = route(ranged, vls);
      const auto zeroLids = baseLids(plain), twoLids = baseLids(ranged);
      ASSERT_EQ(zeroLids.size(), twoLids.size());
      for (const NodeId s : plain.switches())
        for (std::size_t i = 0; i < zeroLids.size(); ++i)
          ASSERT_EQ(zero.lfts[s].at(zeroLids[i]), two.lfts[s].at(twoLids[i]))
              << "switch " << s << ", port " << i << " of a" << spec.a << " on " << int{vls}
              << " VLs";
    }
}

// Two global cables between every pair of the 5 groups: a port's second LID
// leaves the source's first LID's route from most source switches.
TEST(DragonflyLmc, SecondLidsTakeOtherCablesBetweenTheGroups) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2, .g = 5}, {}, /*lmc=*/1);
  const RoutingResult r = route(f);
  ASSERT_EQ(r.engine, "dragonfly");
  std::size_t pairs = 0, apart = 0;
  for (const NodeId host : f.endNodes()) {
    const Lid base = f.port({host, 1}).lid;
    const NodeId home = f.port({host, 1}).remote->node;
    for (const NodeId s : f.switches()) {
      if (s == home) continue;
      const auto first = channels(f, r, s, base);
      const auto second = channels(f, r, s, Lid{static_cast<std::uint16_t>(base.value + 1)});
      ++pairs;
      bool shared = false;
      for (const auto& c : second) shared = shared || first.contains(c);
      apart += !shared;
    }
  }
  EXPECT_GT(apart * 2, pairs) << apart << " of " << pairs << " (switch, port) pairs apart";
}

// Every switch sends each of a port's 4 LIDs (LMC 2) out of the port it
// sends the base LID.
void expectLaterLidsOnBaseRoutes(const Fabric& f, const RoutingResult& r) {
  for (const NodeId host : f.endNodes()) {
    const Lid base = f.port({host, 1}).lid;
    for (const NodeId s : f.switches())
      for (std::uint16_t k = 1; k < 4; ++k)
        ASSERT_EQ(r.lfts[s].at(Lid{static_cast<std::uint16_t>(base.value + k)}),
                  r.lfts[s].at(base));
  }
}

// Three VLs allowed: detours through a third group take all three (the
// minimal routes two, a second global link one more) and leave the
// multicast trees none of their own, and on the unicast levels a tree's
// turns closed credit loops with the detours' (`ibsm route --check` on
// a4 p2 h2 and a6 p3 h3 at LMC 2): the later LIDs take their base LID's
// routes, and the trees get VL 2.
TEST(DragonflyLmc, OnThreeVlsTheLaterLidsLeaveTheMulticastTreesAVl) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 6, .p = 3, .h = 3}, {}, /*lmc=*/2);
  const RoutingResult r = route(f, /*maxVls=*/3);
  ASSERT_EQ(r.engine, "dragonfly");
  EXPECT_EQ(r.vlsUsed, 2);
  EXPECT_TRUE(routing::treesHaveAVlOfTheirOwn(r.sl2vl));
  EXPECT_TRUE(std::ranges::any_of(r.notes, [](const std::string& n) {
    return n.find("leave the multicast trees none of their own") != std::string::npos;
  })) << ::testing::PrintToString(r.notes);
  expectLaterLidsOnBaseRoutes(f, r);
}

TEST(DragonflyLmc, ADegradedDragonflyStaysFreeOfCreditLoops) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2},
                                   Degradation{.links = 5, .seed = 1}, /*lmc=*/2);
  const RoutingResult r = route(f);
  ASSERT_EQ(r.engine, "dragonfly");
  const RouteReport report = analyseRoutes(f, r, 2);
  EXPECT_TRUE(report.creditLoops.acyclic);
  for (const PairCounts& c : report.pairs) EXPECT_EQ(c.unreachable, 0u);
}

// Two VLs carry the minimal routes but not a detour's second global link:
// the later LIDs then take their base LID's routes.
TEST(DragonflyLmc, WithoutTheVlsLaterLidsTakeTheBaseRoutes) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2}, {}, /*lmc=*/2);
  const RoutingResult r = route(f, /*maxVls=*/2);
  ASSERT_EQ(r.engine, "dragonfly");
  EXPECT_EQ(r.vlsUsed, 2);
  expectLaterLidsOnBaseRoutes(f, r);
}

// With the VLs for it, a switch whose route toward a later LID leaves its
// base LID's is named on a later SL (1-14), one whose route is the base
// route is not (SL 0); no base LID is named. Every SL rides the three VLs
// the minimal routes' two and one more make, on 8 VLs allowed as on 4.
TEST(DragonflyLmc, LaterLidsTravelOnSlsOfTheirOwn) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 6, .p = 3, .h = 3}, {}, /*lmc=*/2);
  const RoutingResult r = route(f, /*maxVls=*/8);
  ASSERT_EQ(r.engine, "dragonfly");
  ASSERT_FALSE(r.pairSls.empty());
  EXPECT_EQ(r.vlsUsed, 3);
  EXPECT_TRUE(std::ranges::is_sorted(r.pairSls));
  std::set<std::pair<std::uint16_t, NodeId>> named;  // (DLID, switch)
  for (const PairSl& p : r.pairSls) {
    EXPECT_GE(p.sl, 1);
    EXPECT_LE(p.sl, 14);
    if (f.node(p.source.node).isSwitch()) named.insert({p.dlid.value, p.source.node});
  }
  for (const Lid base : baseLids(f))
    for (const NodeId s : f.switches()) {
      EXPECT_FALSE(named.contains({base.value, s}));
      for (std::uint16_t k = 1; k < 4; ++k) {
        const Lid later{static_cast<std::uint16_t>(base.value + k)};
        const bool same = channels(f, r, s, later) == channels(f, r, s, base);
        EXPECT_NE(named.contains({later.value, s}), same)
            << "switch " << s << " to LID " << later.value
            << ": named exactly where it leaves the base route";
      }
    }
  for (const Sl2VlEntry& e : r.sl2vl)
    for (std::uint8_t sl = 0; sl <= 14; ++sl) EXPECT_LT(e.vl[sl], 3) << "SL " << int{sl};
  const auto walk = testing::walkPairsOnTheirSls(f, r);
  EXPECT_EQ(walk.delivered, walk.pairs);
  EXPECT_TRUE(walk.acyclic);
  const RoutingResult four = route(f, /*maxVls=*/4);
  for (const NodeId s : f.switches()) EXPECT_EQ(four.lfts[s].port, r.lfts[s].port);
}

// The report's multipath counts: CA pairs on different switches, and those
// with one and with four link-disjoint paths (MultipathBound.h: a full
// dragonfly allows four to every pair).
struct Disjointness {
  std::uint64_t pairs{0}, onePath{0}, fourPaths{0};
};

Disjointness disjointness(const Fabric& f, std::uint8_t maxVls) {
  const RoutingResult r = route(f, maxVls);
  const RouteReport report = analyseRoutes(f, r, 2);
  EXPECT_TRUE(report.creditLoops.acyclic) << int{maxVls} << " VLs";
  for (const PairCounts& c : report.pairs) EXPECT_EQ(c.unreachable, 0u);
  if (!report.multipath) return {};
  const auto& m = *report.multipath;
  return {m.all.pairs, m.all.linkDisjoint.at(1), m.all.linkDisjoint.at(4)};
}

// CA pairs on different switches of one group: no intermediate group
// serves them (a detour would leave the group and come back), only a relay
// inside it.
std::uint64_t pairsWithinGroups(const Fabric& f) {
  const auto shape = recogniseDragonfly(f);
  EXPECT_TRUE(shape.has_value());
  std::uint64_t pairs = 0;
  for (const NodeId a : f.endNodes())
    for (const NodeId b : f.endNodes()) {
      const NodeId sa = f.port({a, 1}).remote->node, sb = f.port({b, 1}).remote->node;
      pairs += sa != sb && shape->groupOf[sa] == shape->groupOf[sb];
    }
  return pairs;
}

// a6 p3 h3 has one global cable per group pair: every further disjoint path
// goes through another group. Switch by switch, 71% of the pairs kept one
// path (most later routes shared the source switch's hop toward the cable);
// through intermediate groups chosen per LID, only pairs within one group
// do, and over two fifths get all four.
TEST(DragonflyLmc, ThroughIntermediateGroupsOnlyPairsInOneGroupKeepOnePath) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 6, .p = 3, .h = 3}, {}, /*lmc=*/2);
  const Disjointness d = disjointness(f, 8);
  ASSERT_GT(d.pairs, 0u);
  EXPECT_LE(d.onePath, pairsWithinGroups(f)) << d.onePath << " of " << d.pairs << " on one path";
  EXPECT_GT(d.fourPaths * 5, d.pairs * 2) << d.fourPaths << " of " << d.pairs << " on four";
}

// Inside the destination's group, the routers no route from another group
// enters for a later LID go through a relay router of the group, another
// for each LID of the range: pairs within one group on one path 5,130 ->
// 1,824 of their 5,130 (the rest start at a router other groups' routes
// enter, whose entry is theirs too), still free of credit loops on 3 VLs.
TEST(DragonflyLmc, PairsWithinOneGroupTakeRelaysWhereNoRouteEnters) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 6, .p = 3, .h = 3}, {}, /*lmc=*/2);
  const Disjointness d = disjointness(f, 8);
  const std::uint64_t within = pairsWithinGroups(f);
  ASSERT_GT(within, 0u);
  EXPECT_LT(d.onePath * 2, within) << d.onePath << " of " << within << " within groups";
  EXPECT_EQ(route(f, 8).vlsUsed, 3);
}

// The small dragonfly (9 groups of 4 routers): under a fifth of the pairs
// on one path (68% switch by switch).
TEST(DragonflyLmc, ASmallDragonflyKeepsFewPairsOnOnePath) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2}, {}, /*lmc=*/2);
  const Disjointness d = disjointness(f, 8);
  ASSERT_GT(d.pairs, 0u);
  EXPECT_LT(d.onePath * 5, d.pairs) << d.onePath << " of " << d.pairs << " on one path";
}

// On 4 VLs the same three VLs, the fourth the trees': fewer pairs on one
// path than on 3, where the later LIDs take the base routes, free of
// credit loops.
TEST(DragonflyLmc, OnFourVlsFewerPairsKeepOnePathThanOnThree) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 6, .p = 3, .h = 3}, {}, /*lmc=*/2);
  const RoutingResult four = route(f, 4);
  EXPECT_EQ(four.vlsUsed, 3);
  ASSERT_FALSE(four.pairSls.empty()) << "on SLs of their own";
  EXPECT_TRUE(routing::treesHaveAVlOfTheirOwn(four.sl2vl));
  EXPECT_LT(disjointness(f, 4).onePath, disjointness(f, 3).onePath);
}

// Two or three cables between every pair of the 4 groups: on one SL the
// later LIDs already take another cable, and an SL of their own shares no
// fewer cables with the earlier LIDs' routes, so it is not taken: no pair
// named, the 3 VLs of one SL. (With 5 groups, two cables a pair, the
// detours through intermediate groups and relays share fewer: taken.)
// No pair on an SL other than 0 (the engine may name one on SL 0 beside the
// multicast trees' SL: routing/multicast/McSl.h).
bool everyPairOnSl0(const RoutingResult& r) {
  return std::ranges::all_of(r.pairSls, [](const PairSl& p) { return p.sl == 0; });
}

TEST(DragonflyLmc, AnSlOfTheirOwnOnlyWhereItSharesFewerCables) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2, .g = 4}, {}, /*lmc=*/2);
  const RoutingResult r = route(f, 8), shared = route(f, 4);
  EXPECT_TRUE(everyPairOnSl0(r));
  EXPECT_EQ(r.vlsUsed, 3);
  for (const NodeId s : f.switches()) EXPECT_EQ(r.lfts[s].port, shared.lfts[s].port);
  // The detours on SL 0 climb one VL, free of credit loops, and part the
  // LIDs of some pairs.
  const RouteReport report = analyseRoutes(f, r, 2);
  EXPECT_TRUE(report.creditLoops.acyclic);
  ASSERT_TRUE(report.multipath);
  const auto& disjoint = report.multipath->all.linkDisjoint;
  EXPECT_GT(std::accumulate(disjoint.begin() + 2, disjoint.end(), std::uint64_t{0}), 0u);
}

TEST(DragonflyLmc, WithoutLmcNoPairIsNamed) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 6, .p = 3, .h = 3});
  const RoutingResult r = route(f, 8);
  EXPECT_TRUE(everyPairOnSl0(r));
  EXPECT_EQ(r.vlsUsed, 2);
}

}  // namespace
}  // namespace ibsm
