// planMulticast(): one tree per group, judged by checkMulticast() and by
// the masks themselves on small fabrics whose ports are known by heart.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Multicast.h>

#include <random>
#include <set>

#include "tests/routing/engines/ShapeFabrics.h"
#include "tests/routing/multicast/McTestGroups.h"

namespace ibsm {
namespace {

using testing::everyCa;
using testing::groupOf;
using ::testing::HasSubstr;
using testing::maskOf;
using testing::nodeNamed;

// 4 leaves x 2 spines, 2 hosts a leaf: leaf ports 1-2 go to spine0-1,
// hosts on 3-4; spine port l+1 goes to leaf l.
Fabric smallFatTree() {
  return testing::twoLevelFatTree(4, 2, 2);
}

McPortMask mask(const MulticastPlan& plan, const Fabric& f, std::string_view sw,
                std::uint16_t mlid) {
  const auto& entries = plan.mfts.at(nodeNamed(f, sw)).entries;
  const auto it = entries.find(mlid);
  return it == entries.end() ? McPortMask{} : it->second;
}

TEST(IpoibBroadcastMgid, IsRfc4391sFormWithTheFullMemberPKey) {
  const Gid expected{0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(ipoibBroadcastMgid(0x7fff), expected);
  const Gid site = ipoibBroadcastMgid(0x8001, mcScope::kSiteLocal);
  EXPECT_EQ(site[1], 0x15);
  EXPECT_EQ(site[4], 0x80);
  EXPECT_EQ(site[5], 0x01);
}

TEST(PlanMulticast, AGroupOfEveryHostIsATreeThroughOneSpine) {
  const Fabric f = smallFatTree();
  const std::vector groups{everyCa(f, 0xC000)};
  const auto plan = planMulticast(f, groups);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_THAT(checkMulticast(f, plan->mfts, groups), ::testing::IsEmpty());
  ASSERT_EQ(plan->trees.size(), 1U);
  EXPECT_EQ(plan->trees[0].root, nodeNamed(f, "spine0"));
  EXPECT_EQ(plan->trees[0].switches, 5U);
  EXPECT_EQ(plan->trees[0].receivers, 8U);
  EXPECT_EQ(mask(*plan, f, "spine0", 0xC000), maskOf({1, 2, 3, 4}));
  EXPECT_EQ(mask(*plan, f, "leaf2", 0xC000), maskOf({1, 3, 4}));
  EXPECT_TRUE(mask(*plan, f, "spine1", 0xC000).none());
}

TEST(PlanMulticast, ConsecutiveMlidsTakeTurnsOverTheCentralSwitches) {
  const Fabric f = smallFatTree();
  std::vector<McGroupRoute> groups;
  for (std::uint16_t m = 0xC000; m < 0xC004; ++m) groups.push_back(everyCa(f, m));
  const auto spread = planMulticast(f, groups);
  ASSERT_TRUE(spread);
  std::vector<std::string> roots;
  for (const McTree& t : spread->trees) roots.push_back(f.node(*t.root).description);
  EXPECT_THAT(roots, ::testing::ElementsAre("spine0", "spine1", "spine0", "spine1"));
  EXPECT_THAT(checkMulticast(f, spread->mfts, groups), ::testing::IsEmpty());

  MulticastOptions oneRoot;
  oneRoot.spreadRoots = false;
  const auto single = planMulticast(f, groups, oneRoot);
  ASSERT_TRUE(single);
  for (const McTree& t : single->trees) EXPECT_EQ(t.root, nodeNamed(f, "spine0"));
  EXPECT_THAT(checkMulticast(f, single->mfts, groups), ::testing::IsEmpty());
}

TEST(PlanMulticast, ASendOnlyMembersPortGetsNoCopyButItsSwitchReachesTheTree) {
  const Fabric f = smallFatTree();
  const std::vector groups{groupOf(f, 0xC000, {"leaf0-h0", "leaf1-h0"}, {"leaf3-h1"})};
  const auto plan = planMulticast(f, groups);
  ASSERT_TRUE(plan);
  EXPECT_THAT(checkMulticast(f, plan->mfts, groups), ::testing::IsEmpty());
  EXPECT_EQ(mask(*plan, f, "leaf3", 0xC000), maskOf({1}));      // up only
  EXPECT_EQ(mask(*plan, f, "spine0", 0xC000), maskOf({1, 2}));  // never down to leaf3
  EXPECT_EQ(plan->trees[0].receivers, 2U);
}

TEST(PlanMulticast, AGroupOfSendersOnlyForwardsNothing) {
  // OpenSM PR #43's case ends this way: a SendOnlyFull member left alone.
  const Fabric f = smallFatTree();
  const std::vector groups{groupOf(f, 0xC000, {}, {"leaf3-h1", "leaf0-h0"})};
  const auto plan = planMulticast(f, groups);
  ASSERT_TRUE(plan);
  for (NodeId id = 0; id < f.size(); ++id) EXPECT_TRUE(plan->mfts[id].entries.empty()) << id;
  EXPECT_EQ(plan->trees[0].receivers, 0U);
  EXPECT_THAT(plan->warnings, ::testing::IsEmpty());
  EXPECT_THAT(checkMulticast(f, plan->mfts, groups), ::testing::IsEmpty());
}

TEST(PlanMulticast, APreCreatedGroupNobodyJoinedIsNoWarning) {
  const Fabric f = smallFatTree();
  const std::vector groups{McGroupRoute{.mgid = {}, .mlid = Lid{0xC000}, .members = {}}};
  const auto plan = planMulticast(f, groups);
  ASSERT_TRUE(plan);
  EXPECT_THAT(plan->warnings, ::testing::IsEmpty());
  EXPECT_FALSE(plan->trees[0].root.has_value());
}

TEST(PlanMulticast, MembersUnderOneLeafNeedNoSpine) {
  const Fabric f = smallFatTree();
  const std::vector groups{groupOf(f, 0xC000, {"leaf1-h0", "leaf1-h1"})};
  const auto plan = planMulticast(f, groups);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->trees[0].switches, 1U);
  EXPECT_EQ(mask(*plan, f, "leaf1", 0xC000), maskOf({3, 4}));
  EXPECT_TRUE(mask(*plan, f, "spine0", 0xC000).none());
  EXPECT_THAT(checkMulticast(f, plan->mfts, groups), ::testing::IsEmpty());
}

TEST(PlanMulticast, AJoinChangesOnlyTheBranchOfTheNewMember) {
  const Fabric f = smallFatTree();
  const std::vector before{groupOf(f, 0xC000, {"leaf0-h0", "leaf1-h0"})};
  const std::vector after{groupOf(f, 0xC000, {"leaf0-h0", "leaf1-h0", "leaf2-h1"})};
  const auto a = planMulticast(f, before);
  const auto b = planMulticast(f, after);
  ASSERT_TRUE(a && b);
  std::set<std::string> changed;
  for (NodeId id = 0; id < f.size(); ++id)
    if (a->mfts[id].entries != b->mfts[id].entries) changed.insert(f.node(id).description);
  EXPECT_THAT(changed, ::testing::ElementsAre("leaf2", "spine0"));
  EXPECT_THAT(checkMulticast(f, b->mfts, after), ::testing::IsEmpty());
}

TEST(PlanMulticast, ASwitchsManagementPortCanBeAMember) {
  const Fabric f = smallFatTree();
  const std::vector groups{groupOf(f, 0xC000, {"leaf0-h0", "spine1"})};
  const auto plan = planMulticast(f, groups);
  ASSERT_TRUE(plan);
  EXPECT_TRUE(mask(*plan, f, "spine1", 0xC000).test(0));
  EXPECT_THAT(checkMulticast(f, plan->mfts, groups), ::testing::IsEmpty());
}

TEST(PlanMulticast, MembersOutsideTheFabricAreWarnedAbout) {
  const Fabric f = smallFatTree();
  auto group = groupOf(f, 0xC000, {"leaf0-h0", "leaf1-h0"});
  group.members.push_back({Guid{0xdead}, true});
  const McGroupRoute empty{.mgid = {}, .mlid = Lid{0xC001}, .members = {{Guid{0xbeef}, true}}};
  const std::vector groups{group, empty};
  const auto plan = planMulticast(f, groups);
  ASSERT_TRUE(plan);
  EXPECT_THAT(plan->warnings,
              ::testing::Contains(HasSubstr("0x000000000000dead is not in the fabric")));
  EXPECT_FALSE(plan->trees[1].root.has_value());
  EXPECT_THAT(plan->warnings, ::testing::Contains(HasSubstr("MLID 0xc001: no member")));
  EXPECT_THAT(checkMulticast(f, plan->mfts, groups), ::testing::IsEmpty());
}

TEST(PlanMulticast, ADisconnectedFabricGetsTheTreeWhereMostMembersAre) {
  testing::FabricBuilder b;
  for (const char* sw : {"a0", "a1", "b0"}) b.addSwitch(sw, 8);
  b.cable("a0", 1, "a1", 1);
  b.addHost("ha0", "a0", 2);
  b.addHost("ha1", "a1", 2);
  b.addHost("hb0", "b0", 2);
  const Fabric f = b.build();
  const std::vector groups{groupOf(f, 0xC000, {"ha0", "ha1", "hb0"})};
  const auto plan = planMulticast(f, groups);
  ASSERT_TRUE(plan);
  EXPECT_THAT(plan->warnings, ::testing::Contains(HasSubstr("disconnected")));
  EXPECT_NE(plan->trees[0].root, nodeNamed(f, "b0"));
  // hb0 is out of reach: the checker says so, the others are served.
  const auto problems = checkMulticast(f, plan->mfts, groups);
  for (const auto& p : problems) EXPECT_THAT(p, HasSubstr("missing member"));
  EXPECT_FALSE(problems.empty());
}

TEST(PlanMulticast, RefusesAnMlidTwiceOrOutsideTheMulticastRange) {
  const Fabric f = smallFatTree();
  EXPECT_FALSE(planMulticast(f, {everyCa(f, 0xC000), everyCa(f, 0xC000)}));
  EXPECT_FALSE(planMulticast(f, {everyCa(f, 0xBFFF)}));
}

// Property: random groups on shapes with cycles and trunks always pass the
// checker.
class RandomGroups : public ::testing::TestWithParam<int> {};

TEST_P(RandomGroups, EveryTreeReachesEveryReceiverOnceWithoutLoops) {
  const std::vector<Fabric> shapes{testing::ring(6, 2), testing::grid(4, 4, true, 1),
                                   testing::twoLevelFatTree(6, 3, 3, 2)};
  std::mt19937 rng(static_cast<unsigned>(GetParam()));
  for (const Fabric& f : shapes) {
    const auto all = everyCa(f, 0xC000).members;
    std::vector<McGroupRoute> groups;
    for (std::uint16_t m = 0xC000; m < 0xC010; ++m) {
      McGroupRoute g{.mgid = {}, .mlid = Lid{m}, .members = {}};
      for (auto member : all) {
        if (rng() % 3 != 0) continue;
        member.receives = rng() % 4 != 0;
        g.members.push_back(member);
      }
      groups.push_back(std::move(g));
    }
    const auto plan = planMulticast(f, groups);
    ASSERT_TRUE(plan);
    EXPECT_THAT(checkMulticast(f, plan->mfts, groups), ::testing::IsEmpty());
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomGroups, ::testing::Range(1, 6));

}  // namespace
}  // namespace ibsm
