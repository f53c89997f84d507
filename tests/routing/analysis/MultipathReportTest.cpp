// The report's multipath figure: over CA pairs, how many of a destination's
// LMC LIDs the tables reach by link-disjoint (and switch-disjoint) routes,
// held to hand tables whose routes are known, and to expectations computed
// from a generated fat tree's shape.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/FatTree.h>
#include <ibsm/Report.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "routing/analysis/MultipathDisjointness.h"
#include "tests/routing/analysis/HandTables.h"
#include "tests/support/FabricBuilder.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::FabricBuilder;
using testing::HandTables;
using testing::lidOf;

// Two leaves l0, l1 under two spines t0, t1 (leaf port 2 to t0, 3 to t1; a
// spine's port 1 to l0, 2 to l1); h0 on l0, h1 on l1; LMC 1.
Fabric twoByTwo() {
  FabricBuilder b;
  for (const char* s : {"l0", "l1", "t0", "t1"}) b.addSwitch(s);
  b.cable("l0", 2, "t0", 1).cable("l0", 3, "t1", 1);
  b.cable("l1", 2, "t0", 2).cable("l1", 3, "t1", 2);
  b.addHost("h0", "l0", 1);
  b.addHost("h1", "l1", 1);
  return b.build(/*lmc=*/1);
}

// Each host's LID base + k climbs to spine t<spineOf[k]>.
RoutingResult climbing(const Fabric& f, std::array<int, 2> spineOf) {
  HandTables t(f);
  t.deliverLocally();
  t.toward("l0", "t0", 2).toward("l0", "t1", 3).toward("l1", "t0", 2).toward("l1", "t1", 3);
  t.toward("t0", "l0", 1).toward("t0", "l1", 2).toward("t1", "l0", 1).toward("t1", "l1", 2);
  for (const auto& [host, far] : {std::pair{"h0", "l1"}, std::pair{"h1", "l0"}})
    for (std::uint16_t k = 0; k < 2; ++k) {
      const Lid lid{static_cast<std::uint16_t>(lidOf(f, host).value + k)};
      t.set(far, lid, static_cast<std::uint8_t>(2 + spineOf[k]));
    }
  return t.result();
}

TEST(MultipathReport, LidsThroughDifferentSpinesAreDisjointAndThroughOneAreNot) {
  const Fabric f = twoByTwo();
  const RouteReport apart = analyseRoutes(f, climbing(f, {0, 1}));
  ASSERT_TRUE(apart.multipath);
  const MultipathReport& m = *apart.multipath;
  EXPECT_EQ(m.paths, 2u);
  EXPECT_EQ(m.destinationPorts, 2u);
  EXPECT_EQ(m.all.pairs, 2u);  // h0 -> h1, h1 -> h0
  EXPECT_EQ(m.sameSwitch, 0u);
  EXPECT_EQ(m.all.linkDisjoint, (std::vector<std::uint64_t>{0, 0, 2}));
  EXPECT_EQ(m.all.switchDisjoint, (std::vector<std::uint64_t>{0, 0, 2}));
  // Each layer's routes: one per pair, on its own spine's cables.
  EXPECT_EQ(m.busiestPerLayer, (std::vector<std::uint64_t>{1, 1}));

  const RouteReport shared = analyseRoutes(f, climbing(f, {1, 1}));
  ASSERT_TRUE(shared.multipath);
  EXPECT_EQ(shared.multipath->all.linkDisjoint, (std::vector<std::uint64_t>{0, 2, 0}));
  EXPECT_EQ(shared.multipath->all.switchDisjoint, (std::vector<std::uint64_t>{0, 2, 0}));
}

TEST(MultipathReport, UndeliveredLidsGiveNoPath) {
  const Fabric f = twoByTwo();
  RoutingResult r = climbing(f, {0, 1});
  // l1 loses its entry for h0's second LID.
  r.lfts[testing::nodeNamed(f, "l1")].port[lidOf(f, "h0").value + 1u] = kNoRoute;
  const RouteReport report = analyseRoutes(f, r);
  ASSERT_TRUE(report.multipath);
  // h1 -> h0 has one path left, h0 -> h1 still two.
  EXPECT_EQ(report.multipath->all.linkDisjoint, (std::vector<std::uint64_t>{0, 1, 1}));
}

TEST(MultipathReport, NoFigureWithoutLmc) {
  const Fabric f = testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 4});
  EXPECT_FALSE(analyseRoutes(f, testing::shortestPathTables(f)).multipath);
}

TEST(MultipathReport, MostIndependentIsTheLargestConflictFreeSet) {
  // 0-1, 1-2, 2-3 conflict (a path graph): {0, 2}, {1, 3} or {0, 3}: 2.
  const std::uint16_t chain[4] = {0b0010, 0b0101, 0b1010, 0b0100};
  EXPECT_EQ(analysis::mostIndependent(0b1111, chain), 2u);
  // A star around 0: the three leaves.
  const std::uint16_t star[4] = {0b1110, 0b0001, 0b0001, 0b0001};
  EXPECT_EQ(analysis::mostIndependent(0b1111, star), 3u);
  EXPECT_EQ(analysis::mostIndependent(0b0001, star), 1u);
  EXPECT_EQ(analysis::mostIndependent(0, star), 0u);
}

// A full radix-8 3-level tree, LMC 2, routed by ftree: a pod has 4
// aggregation switches and 16 cores sit above, so every pair on different
// leaves can have its 4 routes disjoint above the leaves.
TEST(MultipathReport, FtreeGivesEveryPairOfAFullTreeAllItsLidsDisjoint) {
  const FatTreeSpec spec{.levels = 3, .radix = 8};
  const Fabric f = testing::generatedFabric(spec, {}, /*lmc=*/2);
  const auto routed = makeFatTreeEngine()->route(f, RoutingOptions{});
  ASSERT_TRUE(routed);
  const RouteReport r = analyseRoutes(f, *routed, 2);
  ASSERT_TRUE(r.multipath);
  const MultipathReport& m = *r.multipath;
  const std::uint64_t hosts = f.endNodes().size();
  const std::uint64_t perLeaf = spec.radix / 2;
  EXPECT_EQ(m.paths, 4u);
  EXPECT_EQ(m.destinationPorts, hosts);
  EXPECT_EQ(m.sameSwitch, hosts * (perLeaf - 1));
  EXPECT_EQ(m.all.pairs, hosts * (hosts - perLeaf));
  EXPECT_EQ(m.all.linkDisjoint.back(), m.all.pairs);
  EXPECT_EQ(m.all.switchDisjoint.back(), m.all.pairs);
  EXPECT_EQ(m.compute.pairs, m.all.pairs);
  // Layer 0 is the report's balance; no layer is busier.
  ASSERT_EQ(m.busiestPerLayer.size(), 4u);
  EXPECT_EQ(m.busiestPerLayer[0], r.linkLoad.max);
  for (const std::uint64_t busiest : m.busiestPerLayer) EXPECT_LE(busiest, r.linkLoad.max);
  // The figure does not depend on the threads that walk.
  const RouteReport one = analyseRoutes(f, *routed, 1);
  EXPECT_EQ(one.multipath->all.linkDisjoint, m.all.linkDisjoint);
  EXPECT_EQ(one.multipath->busiestPerLayer, m.busiestPerLayer);
}

// The same tree less 6 cables: a leaf that lost an up cable climbs by 3 aggregation
// switches only, so its pairs can have at most 3 disjoint routes; every
// other pair keeps its 4.
TEST(MultipathReport, FtreeKeepsFourDisjointRoutesWhereTheCutTreeHasThem) {
  const Fabric f = testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}, {6, 1}, 2);
  const auto routed = makeFatTreeEngine()->route(f, RoutingOptions{});
  ASSERT_TRUE(routed);
  const RouteReport r = analyseRoutes(f, *routed, 2);
  ASSERT_TRUE(r.multipath);
  // Each host's leaf and that leaf's cables to other switches.
  std::vector<std::pair<NodeId, unsigned>> leafOf;
  for (const NodeId h : f.endNodes()) {
    const NodeId leaf = f.node(h).ports.at(1).remote->node;
    unsigned ups = 0;
    for (const Port& p : f.node(leaf).ports)
      ups += p.remote && f.node(p.remote->node).isSwitch() && p.remote->node != leaf;
    leafOf.emplace_back(leaf, ups);
  }
  std::uint64_t full = 0, pairs = 0;
  for (const auto& [a, upsA] : leafOf)
    for (const auto& [b, upsB] : leafOf) {
      if (a == b) continue;
      ++pairs;
      full += upsA == 4 && upsB == 4;
    }
  ASSERT_LT(full, pairs) << "the cuts took some leaf's up cable";
  EXPECT_EQ(r.multipath->all.pairs, pairs);
  EXPECT_EQ(r.multipath->all.linkDisjoint[4], full);
  EXPECT_EQ(r.multipath->all.linkDisjoint[1] + r.multipath->all.linkDisjoint[0], 0u);
}

TEST(MultipathReport, JsonAndSummaryCarryTheHistogram) {
  const Fabric f = twoByTwo();
  const RouteReport r = analyseRoutes(f, climbing(f, {0, 1}));
  EXPECT_NE(reportJson(r).find("\"multipath\":{\"pathsPerPort\":2"), std::string::npos);
  EXPECT_NE(reportSummary(r).find("pairs by link-disjoint paths 2: 2, 1: 0"), std::string::npos);
}

}  // namespace
}  // namespace ibsm
