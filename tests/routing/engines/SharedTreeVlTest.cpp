// Multicast trees on a layer they share with unicast routes, where an
// engine's layers take every VL allowed (issue 33; routing/engines/SharedTreeVl.h).
// The fabric: a dragonfly a4 p2 h2 with 5 cables cut (seed 3), whose
// dragonfly routes need 3 VLs; on routing.max_vls = 3 no VL is left above
// them. On their groups' SLs (every turn's level) the trees' turns closed a
// credit loop with the routes (`ibsm route --check`: CYCLE FOUND). With the
// trees on SL 15, mapped to one layer at every turn, and every tree rooted at
// one switch, no membership closes one: each tree's turns are among the
// turns the engine judged. sssp plans its layer 0 with those turns in it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Multicast.h>
#include <ibsm/QosOptions.h>
#include <ibsm/Report.h>

#include <set>

#include "routing/analysis/CreditLoopsMulticast.h"
#include "routing/engines/SharedTreeVl.h"
#include "routing/multicast/McSl.h"
#include "tests/routing/multicast/McTestGroups.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

Fabric cutDragonfly() {
  return testing::generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2},
                                  Degradation{.links = 5, .seed = 3});
}

RoutingResult routed(const Fabric& f, std::uint8_t maxVls) {
  auto r = makeDragonflyEngine()->route(f, RoutingOptions{.rootGuids = {}, .maxVls = maxVls});
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(*r);
}

// The broadcast group and one group of every k-th CA port for k = 2..9.
std::vector<McGroupRoute> groupsOf(const Fabric& f) {
  return testing::everyKthCa(f, 9);
}

CreditLoopReport judged(const Fabric& f, const RoutingResult& r, bool oneTree, std::uint8_t sl) {
  const auto groups = groupsOf(f);
  auto trees = planMulticast(f, groups, {.oneTree = oneTree});
  if (!trees) throw std::runtime_error(trees.error().message);
  const std::vector<std::uint8_t> sls(groups.size(), sl);
  return analyseRoutes(f, r, 1, McTreesToJudge{&trees->mfts, groups, sls}).creditLoops;
}

class SharedTreeVl : public ::testing::Test {
 protected:
  const Fabric fabric_ = cutDragonfly();
  const RoutingResult r_ = routed(fabric_, 3);
};

TEST_F(SharedTreeVl, OnThreeVlsTheLevelsTakeEveryVlAndTreesOnTheirGroupsSlsCloseALoop) {
  ASSERT_EQ(r_.vlsUsed, 3);
  EXPECT_FALSE(routing::treesHaveAVlOfTheirOwn(r_.sl2vl));
  EXPECT_FALSE(judged(fabric_, r_, false, 0).acyclic);  // where the trees rode: SL 0, spread
}

TEST_F(SharedTreeVl, TheTreesTakeALevelOnSl15RootedAtOneSwitchAndNoLoopIsClosed) {
  ASSERT_TRUE(r_.treesShareVl.has_value());
  const std::uint8_t vl = *r_.treesShareVl;
  EXPECT_LT(vl, r_.vlsUsed);
  EXPECT_TRUE(routing::treesSafe(fabric_, r_));
  for (const Sl2VlEntry& e : r_.sl2vl) ASSERT_EQ(e.vl[routing::kTreeSl], vl);
  for (const PairSl& p : r_.pairSls) ASSERT_NE(p.sl, routing::kTreeSl);
  EXPECT_FALSE(r_.pairSls.empty());  // unnamed pairs on SL 0, never on SL 15
  EXPECT_TRUE(analyseRoutes(fabric_, r_).creditLoops.acyclic);
  EXPECT_TRUE(judged(fabric_, r_, true, routing::kTreeSl).acyclic);
  EXPECT_EQ(routing::treeVlClosingNoLoop(fabric_, r_, 1), vl);
}

// With a fourth VL the trees own it; on three, only SL 15's column differs.
TEST_F(SharedTreeVl, SharingMovesNoRouteAndChangesOnlySl15) {
  const RoutingResult four = routed(fabric_, 4);
  ASSERT_TRUE(routing::treesHaveAVlOfTheirOwn(four.sl2vl));
  EXPECT_FALSE(four.treesShareVl.has_value());
  ASSERT_EQ(r_.lfts.size(), four.lfts.size());
  for (std::size_t n = 0; n < r_.lfts.size(); ++n) ASSERT_EQ(r_.lfts[n].port, four.lfts[n].port);
  ASSERT_EQ(r_.sl2vl.size(), four.sl2vl.size());
  for (std::size_t i = 0; i < r_.sl2vl.size(); ++i)
    for (std::uint8_t sl = 0; sl < routing::kTreeSl; ++sl)
      ASSERT_EQ(r_.sl2vl[i].vl[sl], four.sl2vl[i].vl[sl]);
  RoutingResult again = four;  // a VL of their own stays theirs
  routing::shareATreeVl(fabric_, again, 1);
  EXPECT_FALSE(again.treesShareVl.has_value());
}

// sssp's layers on the same fabric take all three VLs too; layer 0 planned
// with the trees' turns in it takes them, the routes as balanced as before.
TEST_F(SharedTreeVl, SsspLaysTheTreesTurnsOnLayer0) {
  const RoutingOptions three{.rootGuids = {}, .maxVls = 3};
  auto sssp = makeSsspEngine()->route(fabric_, three);
  ASSERT_TRUE(sssp) << sssp.error().message;
  ASSERT_EQ(sssp->vlsUsed, 3);
  ASSERT_TRUE(sssp->treesShareVl.has_value());
  EXPECT_TRUE(analyseRoutes(fabric_, *sssp).creditLoops.acyclic);
  EXPECT_TRUE(judged(fabric_, *sssp, true, routing::kTreeSl).acyclic);
  auto roomy = makeSsspEngine()->route(fabric_, RoutingOptions{.rootGuids = {}, .maxVls = 8});
  ASSERT_TRUE(roomy) << roomy.error().message;
  for (std::size_t n = 0; n < sssp->lfts.size(); ++n)
    ASSERT_EQ(sssp->lfts[n].port, roomy->lfts[n].port);
}

// Rooted apart, as with a VL of their own, or climbing other cables, the
// trees could take turns the engine did not judge: one tree is the proof.
// Every group's tree is part of it: their union holds no cycle.
TEST_F(SharedTreeVl, EveryTreeIsPartOfOne) {
  const auto groups = groupsOf(fabric_);
  auto one = planMulticast(fabric_, groups, {.oneTree = true});
  ASSERT_TRUE(one) << one.error().message;
  std::set<NodeId> roots, switches;
  for (const McTree& t : one->trees)
    if (t.root) roots.insert(*t.root);
  EXPECT_EQ(roots.size(), 1u);
  std::set<std::pair<NodeId, std::uint8_t>> cableEnds;  // both ends of every cable in a tree
  for (NodeId s = 0; s < one->mfts.size(); ++s)
    for (const auto& [mlid, mask] : one->mfts[s].entries)
      for (std::uint8_t p = 1; p < fabric_.node(s).ports.size(); ++p) {
        const auto& far = fabric_.node(s).ports[p].remote;
        if (!mask.test(p) || !far || !fabric_.node(far->node).isSwitch()) continue;
        switches.insert(s);
        cableEnds.insert({s, p});
      }
  EXPECT_EQ(cableEnds.size() / 2, switches.size() - 1);  // a tree: one cable fewer than switches
}

// On a6 p3 h3 with 5 cables cut (seed 8) sssp's layer 0 cannot hold the
// tree's turns within 3 VLs and no layer takes them; dragonfly's levels do
// (busiest link 504 against sssp's 378): auto keeps dragonfly and says why.
TEST(SharedTreeVlAuto, AutoKeepsDragonflyWhereSsspLeavesTheTreesNoLayer) {
  const Fabric f = testing::generatedFabric(DragonflySpec{.a = 6, .p = 3, .h = 3},
                                            Degradation{.links = 5, .seed = 8});
  const RoutingOptions three{.rootGuids = {}, .maxVls = 3};
  auto sssp = makeSsspEngine()->route(f, three);
  ASSERT_TRUE(sssp) << sssp.error().message;
  EXPECT_FALSE(routing::treesSafe(f, *sssp));
  auto chosen = makeAutoEngine()->route(f, three);
  ASSERT_TRUE(chosen) << chosen.error().message;
  EXPECT_EQ(chosen->engine, "dragonfly");
  EXPECT_TRUE(routing::treesSafe(f, *chosen));
  EXPECT_THAT(chosen->notes, ::testing::Contains(::testing::HasSubstr("auto kept dragonfly")));
}

// Under QoS the trees stay on their groups' SLs (SL 15 is a class's SL):
// the layer is given back before the classes are laid over the layers.
TEST_F(SharedTreeVl, UnderQosTheLayerIsGivenBack) {
  RoutingResult r = r_;
  ASSERT_TRUE(r.treesShareVl.has_value());
  qos::QosOptions options;
  options.enabled = true;
  options.all.sl2vl = std::array<std::uint8_t, 16>{};  // one class: every SL on VL 0
  auto tables = qos::planQosFor(fabric_, options, nullptr, r);
  ASSERT_TRUE(tables) << tables.error().message;
  EXPECT_FALSE(r.treesShareVl.has_value());
  ASSERT_FALSE(r.sl2vl.empty());
  for (const Sl2VlEntry& e : r.sl2vl) ASSERT_EQ(e.vl[routing::kTreeSl], e.vl[0]);
}

}  // namespace
}  // namespace ibsm
