// Multicast trees kept to updn's order on one VL (issue 33;
// routing/multicast/McUpDownTree.h). updn's routes climb, then descend, in
// one order of the switches; a tree that passes copies down into a switch
// and up out of it can close a credit loop with them. On the dragonfly+ of 5
// groups (spines joined by global links, updn's roots every spine) the trees
// spread over the central switches did (`ibsm route -R updn --check`: CYCLE
// FOUND through the broadcast tree); the same happened where dragonfly falls
// back to updn on routing.max_vls = 2, and with ftree on the director
// sample, whose routes keep to its hub order. Planned along the order, every
// tree only climbs, then descends, as the routes do, and the judge finds no
// loop; where the spread trees keep to the order already (fat trees), they
// stay as they were. The choice is made per group from its MLID, never from
// its members or from the other groups: a join adds only its branch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Multicast.h>
#include <ibsm/Report.h>

#include "routing/analysis/CreditLoopsMulticast.h"
#include "routing/graph/SwitchGraph.h"
#include "routing/multicast/McUpDownTree.h"
#include "tests/routing/multicast/McTestGroups.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

RoutingResult routedBy(const RoutingEngine& engine, const Fabric& f, std::uint8_t maxVls) {
  auto r = engine.route(f, RoutingOptions{.rootGuids = {}, .maxVls = maxVls});
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(*r);
}

// The broadcast group and one group of every k-th CA port for k = 2..5.
std::vector<McGroupRoute> groupsOf(const Fabric& f) {
  return testing::everyKthCa(f, 5);
}

MulticastPlan planned(const Fabric& f, const std::vector<std::uint32_t>* order) {
  auto plan = planMulticast(f, groupsOf(f), {.upDownOrder = order});
  if (!plan) throw std::runtime_error(plan.error().message);
  return std::move(*plan);
}

bool loopFree(const Fabric& f, const RoutingResult& r, const MulticastPlan& trees) {
  const auto groups = groupsOf(f);
  const std::vector<std::uint8_t> sls(groups.size(), 0);
  return analyseRoutes(f, r, 1, McTreesToJudge{&trees.mfts, groups, sls}).creditLoops.acyclic;
}

class UpDownTrees : public ::testing::Test {
 protected:
  const Fabric plus_ = testing::sampleFabric("dragonfly-plus-5groups.net");
  const RoutingResult updn_ = routedBy(*makeUpDownEngine(), plus_, 1);
};

TEST_F(UpDownTrees, UpdnNamesItsOrderOfEverySwitch) {
  ASSERT_EQ(updn_.upDownOrder.size(), plus_.size());
  const routing::SwitchGraph graph(plus_);
  std::vector<bool> taken(graph.size(), false);
  for (routing::SwitchIndex s = 0; s < graph.size(); ++s) {
    const std::uint32_t p = updn_.upDownOrder[graph.nodeId(s)];
    ASSERT_LT(p, graph.size());
    EXPECT_FALSE(taken[p]) << "position " << p << " given twice";
    taken[p] = true;
  }
  // Layered engines keep no such order on VL 0.
  EXPECT_TRUE(routedBy(*makeDragonflyEngine(), plus_, 8).upDownOrder.empty());
}

TEST_F(UpDownTrees, OnDragonflyPlusTheSpreadTreesDescendThenClimbAndCloseALoop) {
  const MulticastPlan spread = planned(plus_, nullptr);
  EXPECT_EQ(spread.alongUpDown, 0u);
  EXPECT_TRUE(
      routing::descendsThenClimbs(routing::SwitchGraph(plus_), spread.mfts, updn_.upDownOrder));
  EXPECT_TRUE(analyseRoutes(plus_, updn_).creditLoops.acyclic);  // the routes alone
  EXPECT_FALSE(loopFree(plus_, updn_, spread));
}

TEST_F(UpDownTrees, AlongTheOrderEveryTreeClimbsThenDescendsAndNoLoopIsClosed) {
  const MulticastPlan along = planned(plus_, &updn_.upDownOrder);
  EXPECT_EQ(along.alongUpDown, along.trees.size());
  EXPECT_FALSE(
      routing::descendsThenClimbs(routing::SwitchGraph(plus_), along.mfts, updn_.upDownOrder));
  EXPECT_TRUE(loopFree(plus_, updn_, along));
  EXPECT_THAT(checkMulticast(plus_, along.mfts, groupsOf(plus_)), ::testing::IsEmpty());
  // Every tree grows from the order's first switch (or is cut below it).
  const routing::SwitchGraph graph(plus_);
  for (const McTree& t : along.trees) {
    ASSERT_TRUE(t.root.has_value());
    EXPECT_EQ(updn_.upDownOrder[*t.root], 0u);
  }
}

TEST_F(UpDownTrees, WhereDragonflyFallsBackToUpdnItsTreesKeepToTheOrder) {
  const RoutingResult fallback = routedBy(*makeDragonflyEngine(), plus_, 2);
  ASSERT_EQ(fallback.engine, "updn");
  ASSERT_FALSE(fallback.upDownOrder.empty());
  const MulticastPlan along = planned(plus_, &fallback.upDownOrder);
  EXPECT_GT(along.alongUpDown, 0u);
  EXPECT_TRUE(loopFree(plus_, fallback, along));
}

// ftree on one VL routes every pair in its hub order: on the director
// sample (leaves of uneven height) the broadcast tree closed a loop with the
// routes that the hub order routes (`ibsm route -R ftree --check`).
TEST(UpDownTreesOnAFatTree, FtreeOnOneVlNamesItsHubOrderAndTheTreesKeepToIt) {
  const Fabric director = testing::sampleFabric("fat-tree-3level-k8-director1.net");
  const RoutingResult ftree = routedBy(*makeFatTreeEngine(), director, 1);
  ASSERT_TRUE(ftree.legalByConstruction);
  ASSERT_EQ(ftree.upDownOrder.size(), director.size());
  EXPECT_FALSE(loopFree(director, ftree, planned(director, nullptr)));
  const MulticastPlan along = planned(director, &ftree.upDownOrder);
  EXPECT_GT(along.alongUpDown, 0u);
  EXPECT_TRUE(loopFree(director, ftree, along));
  EXPECT_THAT(checkMulticast(director, along.mfts, groupsOf(director)), ::testing::IsEmpty());
}

// The entries of `mlid` in every switch's MFT.
std::vector<McPortMask> entriesOf(const MulticastPlan& plan, std::uint16_t mlid) {
  std::vector<McPortMask> out;
  for (const SwitchMft& mft : plan.mfts) {
    const auto it = mft.entries.find(mlid);
    out.push_back(it == mft.entries.end() ? McPortMask{} : it->second);
  }
  return out;
}

// Small groups of two CA ports each, one per MLID from 0xC001: the first CA
// with the k-th, so that their trees span different parts of the fabric.
std::vector<McGroupRoute> pairsOf(const Fabric& f, std::size_t count) {
  const McGroupRoute all = testing::everyCa(f, 0xC000);
  std::vector<McGroupRoute> out;
  for (std::size_t k = 1; k <= count && k < all.members.size(); ++k) {
    const std::size_t other = k * (all.members.size() - 1) / count;
    out.push_back({.mgid = {},
                   .mlid = Lid{static_cast<std::uint16_t>(0xC000 + k)},
                   .members = {all.members[0], all.members[other]}});
  }
  return out;
}

// The first version decided for every group at once from the planned MFTs:
// the broadcast group's spread tree turned down then up, so every group was
// planned along the order, and without it the small groups kept their
// spread trees. A group's tree now follows its MLID alone.
TEST_F(UpDownTrees, AGroupsTreeDoesNotDependOnTheOtherGroups) {
  const MulticastOptions options{.upDownOrder = &updn_.upDownOrder};
  const McGroupRoute broadcast = testing::everyCa(plus_, 0xC000);
  for (const McGroupRoute& pair : pairsOf(plus_, 12)) {
    const auto alone = planMulticast(plus_, {pair}, options);
    const auto beside = planMulticast(plus_, {broadcast, pair}, options);
    ASSERT_TRUE(alone && beside);
    EXPECT_EQ(entriesOf(*alone, pair.mlid.value), entriesOf(*beside, pair.mlid.value))
        << routing::mlidText(pair.mlid);
  }
}

// McTreeBuilder's promise under an order too: a join adds only its branch,
// whether the group's tree is spread or along the order.
TEST_F(UpDownTrees, AJoinAddsOnlyTheNewMembersBranch) {
  const MulticastOptions options{.upDownOrder = &updn_.upDownOrder};
  const McGroupRoute all = testing::everyCa(plus_, 0xC000);
  for (const McGroupRoute& pair : pairsOf(plus_, 12)) {
    McGroupRoute joined = all;
    joined.mlid = pair.mlid;
    const auto before = planMulticast(plus_, {pair}, options);
    const auto after = planMulticast(plus_, {joined}, options);
    ASSERT_TRUE(before && after);
    EXPECT_EQ(before->alongUpDown, after->alongUpDown) << routing::mlidText(pair.mlid);
    const auto was = entriesOf(*before, pair.mlid.value);
    const auto is = entriesOf(*after, pair.mlid.value);
    for (std::size_t n = 0; n < was.size(); ++n)
      EXPECT_TRUE((was[n] & ~is[n]).none())
          << routing::mlidText(pair.mlid) << " node " << n << ": a port left the tree on a join";
  }
}

// Where some roots' trees keep to the order and others' do not (updn on the
// fat tree with rails, aggregation nodes and I/O hosts: its order's roots
// are not all central), the two kinds share the fabric; none turns from a
// later switch's cable onto an earlier one's, so together with the routes
// they close no loop.
TEST(UpDownTreesMixed, SpreadTreesAndTreesAlongTheOrderTogetherCloseNoLoop) {
  const Fabric rails = testing::sampleFabric("fat-tree-3level-k8-rails4-an-io.net");
  const RoutingResult updn = routedBy(*makeUpDownEngine(), rails, 1);
  const MulticastPlan plan = planned(rails, &updn.upDownOrder);
  EXPECT_GT(plan.alongUpDown, 0u);
  EXPECT_LT(plan.alongUpDown, plan.trees.size());
  EXPECT_TRUE(loopFree(rails, updn, plan));
  EXPECT_FALSE(
      routing::descendsThenClimbs(routing::SwitchGraph(rails), plan.mfts, updn.upDownOrder));
  EXPECT_THAT(checkMulticast(rails, plan.mfts, groupsOf(rails)), ::testing::IsEmpty());
}

TEST(UpDownTreesOnAFatTree, TheSpreadTreesKeepToTheOrderAndStayAsTheyWere) {
  const Fabric tree = testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  const MulticastPlan spread = planned(tree, nullptr);
  for (const auto& engine : {makeUpDownEngine(), makeFatTreeEngine()}) {
    const RoutingResult r = routedBy(*engine, tree, 1);
    ASSERT_FALSE(r.upDownOrder.empty()) << r.engine;
    const MulticastPlan along = planned(tree, &r.upDownOrder);
    EXPECT_EQ(along.alongUpDown, 0u) << r.engine;
    ASSERT_EQ(along.mfts.size(), spread.mfts.size());
    for (std::size_t n = 0; n < along.mfts.size(); ++n)
      EXPECT_EQ(along.mfts[n].entries, spread.mfts[n].entries) << r.engine << " node " << n;
    EXPECT_TRUE(loopFree(tree, r, along)) << r.engine;
  }
}

}  // namespace
}  // namespace ibsm
