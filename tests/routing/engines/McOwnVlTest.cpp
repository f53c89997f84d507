// Multicast trees on a VL of their own (issue 33). sssp and dragonfly spread
// unicast over VLs, layer 0 on VL 0; a group on SL 0 put its tree there too,
// and a tree's turns plus unicast turns closed credit loops the judge found
// (routing/analysis/CreditLoopsMulticast.h). Where a data VL is left above
// the layers, the engine maps SL 15 (routing/multicast/McSl.h kTreeSl) alone
// to it at every turn, no unicast pair travels on SL 15, and the groups'
// SL -- the one rule of the dry run and the SA -- becomes SL 15: the trees
// plus the routes are then free of credit loops, where on SL 0 they are not.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Multicast.h>
#include <ibsm/Report.h>

#include <functional>

#include "routing/analysis/CreditLoopsMulticast.h"
#include "routing/multicast/McSl.h"
#include "tests/routing/multicast/McTestGroups.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using ::testing::IsEmpty;

struct OwnVlCase {
  std::string name;
  std::function<Fabric()> fabric;
  std::function<std::unique_ptr<RoutingEngine>()> engine;
};
void PrintTo(const OwnVlCase& c, std::ostream* os) {
  *os << c.name;
}

Result<RoutingResult> routeWith(const OwnVlCase& c, const Fabric& f, std::uint8_t maxVls) {
  return c.engine()->route(f, RoutingOptions{.rootGuids = {}, .maxVls = maxVls});
}

// Every CA port in the broadcast group, and three groups of every second,
// third and fifth CA port: trees rooted apart, crossing each other.
std::vector<McGroupRoute> groupsOf(const Fabric& f) {
  std::vector<McGroupRoute> groups{testing::everyCa(f, 0xC000)};
  for (std::size_t step : {2, 3, 5}) {
    McGroupRoute g{
        .mgid = {}, .mlid = Lid{static_cast<std::uint16_t>(0xC000 + step)}, .members = {}};
    for (std::size_t i = 0; i < groups[0].members.size(); i += step)
      g.members.push_back(groups[0].members[i]);
    groups.push_back(std::move(g));
  }
  return groups;
}

class McOwnVl : public ::testing::TestWithParam<OwnVlCase> {
 protected:
  McOwnVl() {
    auto r = routeWith(GetParam(), fabric_, 8);
    if (!r) throw std::runtime_error(r.error().message);
    routed_ = std::move(*r);
    auto planned = planMulticast(fabric_, groups_);
    if (!planned) throw std::runtime_error(planned.error().message);
    plan_ = std::move(*planned);
  }
  // The VL above the unicast layers (vlsUsed counts these alone).
  std::uint8_t treeVl() const { return routed_.vlsUsed; }
  std::uint8_t groupSl(std::uint8_t requested) const {
    return routing::groupTreeSl(requested, routing::slsCarriedEverywhere(routed_.sl2vl),
                                routing::treesHaveAVlOfTheirOwn(routed_.sl2vl));
  }
  CreditLoopReport judged(std::size_t groups, std::uint8_t sl) const {
    const std::vector<std::uint8_t> sls(groups, sl);
    const McTreesToJudge trees{&plan_.mfts, std::span(groups_).first(groups), sls};
    return analyseRoutes(fabric_, routed_, 1, trees).creditLoops;
  }

  const Fabric fabric_ = GetParam().fabric();
  const std::vector<McGroupRoute> groups_ = groupsOf(fabric_);
  RoutingResult routed_;
  MulticastPlan plan_;
};

TEST_P(McOwnVl, TheEngineLayersUnicastAndLeavesAVlToTheTrees) {
  ASSERT_GE(routed_.vlsUsed, 2);  // unicast on layers
  EXPECT_TRUE(routing::treesHaveAVlOfTheirOwn(routed_.sl2vl));
  for (const Sl2VlEntry& e : routed_.sl2vl) ASSERT_EQ(e.vl[routing::kTreeSl], treeVl());
  for (const PairSl& p : routed_.pairSls) ASSERT_NE(p.sl, routing::kTreeSl);
  EXPECT_FALSE(routed_.pairSls.empty());  // unnamed pairs on SL 0, never on SL 15
  EXPECT_TRUE(analyseRoutes(fabric_, routed_).creditLoops.acyclic);
}

TEST_P(McOwnVl, TheBroadcastTreeOnItsGroupsSlIsLoopFreeWithTheRoutesOnSl0ItIsNot) {
  EXPECT_THAT(checkMulticast(fabric_, plan_.mfts, groups_), IsEmpty());
  for (const std::uint8_t requested : {0, 3}) EXPECT_EQ(groupSl(requested), routing::kTreeSl);
  EXPECT_TRUE(judged(1, groupSl(0)).acyclic);
  EXPECT_FALSE(judged(1, 0).acyclic);  // where the tree rode before
}

// Trees of several groups share the one tree VL, and the tree builder roots
// each group apart (McRoots): their turns can close a loop among themselves
// there (they do on all three fabrics with these four groups). The unicast
// VLs stay free of loops, and every wait of such a loop is on the tree VL:
// the trees no longer hold unicast traffic in a loop.
TEST_P(McOwnVl, SeveralGroupsWaitOnlyOnTheTreeVl) {
  const CreditLoopReport c = judged(groups_.size(), groupSl(0));
  const std::string onTreeVl = " VL" + std::to_string(treeVl()) + " ";
  for (const VlCreditLoops& v : c.perVl)
    EXPECT_TRUE(v.vl >= treeVl() || v.acyclic) << "VL" << int{v.vl};
  for (const std::string& step : c.cycle) EXPECT_THAT(step, ::testing::HasSubstr(onTreeVl));
}

TEST_P(McOwnVl, NoVlLeftAboveTheLayersKeepsTheGroupsSl) {
  auto tight = routeWith(GetParam(), fabric_, treeVl());
  ASSERT_TRUE(tight) << tight.error().message;
  EXPECT_EQ(tight->vlsUsed, treeVl());
  ASSERT_EQ(tight->lfts.size(), routed_.lfts.size());
  for (std::size_t n = 0; n < routed_.lfts.size(); ++n)  // the trees' VL never moves a route
    ASSERT_EQ(tight->lfts[n].port, routed_.lfts[n].port) << "node " << n;
  EXPECT_FALSE(routing::treesHaveAVlOfTheirOwn(tight->sl2vl));
  EXPECT_EQ(routing::groupTreeSl(3, routing::slsCarriedEverywhere(tight->sl2vl),
                                 routing::treesHaveAVlOfTheirOwn(tight->sl2vl)),
            3);
}

INSTANTIATE_TEST_SUITE_P(
    Engines, McOwnVl,
    ::testing::Values(OwnVlCase{"SsspDirector",
                                [] {
                                  return testing::sampleFabric("fat-tree-3level-k8-director1.net");
                                },
                                makeSsspEngine},
                      OwnVlCase{"DragonflyPlus",
                                [] { return testing::sampleFabric("dragonfly-plus-5groups.net"); },
                                makeDragonflyEngine},
                      OwnVlCase{"SsspCutDragonfly",
                                [] {
                                  return testing::generatedFabric(
                                      DragonflySpec{.a = 4, .p = 2, .h = 2},
                                      Degradation{.links = 5, .seed = 1});
                                },
                                makeSsspEngine}),
    [](const ::testing::TestParamInfo<OwnVlCase>& info) { return info.param.name; });

// The mark alone: SL 15 on a VL no other SL takes at any entry.
TEST(McOwnVlMark, Sl15AloneOnItsVlAtEveryEntry) {
  std::vector<Sl2VlEntry> table(2);
  table[0].vl.fill(0);
  table[1].vl.fill(1);
  EXPECT_FALSE(routing::treesHaveAVlOfTheirOwn({}));
  EXPECT_FALSE(routing::treesHaveAVlOfTheirOwn(table));        // SL 15 shares VL 0 / VL 1
  EXPECT_FALSE(routing::giveTreesAVlOfTheirOwn(table, 2, 2));  // no VL above
  EXPECT_FALSE(routing::treesHaveAVlOfTheirOwn(table));
  EXPECT_TRUE(routing::giveTreesAVlOfTheirOwn(table, 2, 3));
  EXPECT_TRUE(routing::treesHaveAVlOfTheirOwn(table));
  table[1].vl[4] = 2;  // another SL on the trees' VL at one turn
  EXPECT_FALSE(routing::treesHaveAVlOfTheirOwn(table));
  table[1].vl[4] = 1;
  table[0].vl[routing::kTreeSl] = 15;  // dropped at one turn
  EXPECT_FALSE(routing::treesHaveAVlOfTheirOwn(table));
  std::vector<Sl2VlEntry> none;
  EXPECT_FALSE(routing::giveTreesAVlOfTheirOwn(none, 1, 8));  // one layer: no table written
}

}  // namespace
}  // namespace ibsm
