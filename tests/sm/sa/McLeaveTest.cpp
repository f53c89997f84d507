// Leaving multicast groups (Delete(MCMemberRecord), IBA o15-0.1.14) and
// how long groups live: a Delete clears exactly the bits it names; a group
// lives while a Full or SendOnlyFull member keeps it, or while the
// configuration pre-creates it; a deleted group's MLID is free again --
// also after OpenSM PR #43's case, a SendOnlyFull+Full join (0x9) left
// with the Full bit (0x1) and then with the SendOnlyFull bit.
#include <gtest/gtest.h>

#include "tests/sm/sa/McFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::kAppGroup;
using testing::kBroadcast;
using testing::kOtherGroup;
using testing::McFixture;

class McLeaveTest : public ::testing::Test {
 protected:
  McFixture mc;
};

TEST_F(McLeaveTest, ADeleteClearsExactlyTheBitsItNames) {
  ASSERT_EQ(
      mc.join(1, mc.create(1, kAppGroup, joinState::kFull | joinState::kNonMember)).header.status,
      saStatus::kOk);
  const auto reply = mc.leave(1, mc.member(1, kAppGroup, joinState::kNonMember));
  EXPECT_EQ(reply.header.method, saMethod::kDeleteResp);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  const auto a = McFixture::answered(reply);
  EXPECT_EQ(a.joinState, joinState::kFull) << "the bits the port still holds";
  EXPECT_EQ(a.mgid, kAppGroup);
  EXPECT_EQ(a.mlid, kFirstMlid);
  EXPECT_EQ(mc.group(kAppGroup)->members.at(mc.sa.guidOfHost(1)).joinState, joinState::kFull);
  EXPECT_EQ(mc.sa.responder.counters().mcLeaves, 1U);
}

TEST_F(McLeaveTest, LeavingBitsNeverJoinedIsRefusedAndChangesNothing) {
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  const auto generation = mc.groups().generation();
  EXPECT_EQ(mc.leave(1, mc.member(1, kAppGroup, joinState::kNonMember)).header.status,
            saStatus::kReqInvalid);
  EXPECT_EQ(
      mc.leave(1, mc.member(1, kAppGroup, joinState::kFull | joinState::kNonMember)).header.status,
      saStatus::kReqInvalid)
      << "one bit held, one not: nothing is cleared";
  EXPECT_EQ(mc.leave(2, mc.member(2, kAppGroup, joinState::kFull)).header.status,
            saStatus::kReqInvalid)
      << "host 2 never joined";
  EXPECT_EQ(mc.leave(1, mc.member(1, kOtherGroup, joinState::kFull)).header.status,
            saStatus::kReqInvalid)
      << "no such group";
  EXPECT_EQ(mc.group(kAppGroup)->members.at(mc.sa.guidOfHost(1)).joinState, joinState::kFull);
  EXPECT_EQ(mc.groups().generation(), generation);
}

TEST_F(McLeaveTest, TheLastFullMemberLeavingDeletesTheGroupAndFreesItsMlid) {
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  ASSERT_EQ(
      mc.join(2, mc.member(2, kAppGroup, joinState::kNonMember), mcmMask::kJoin).header.status,
      saStatus::kOk);
  ASSERT_EQ(mc.leave(1, mc.member(1, kAppGroup, joinState::kFull)).header.status, saStatus::kOk);
  EXPECT_EQ(mc.group(kAppGroup), nullptr) << "a NonMember does not keep the group";
  EXPECT_TRUE(mc.groups().routes().empty());
  EXPECT_EQ(mc.sa.responder.counters().mcGroupsDeleted, 1U);
  const auto again = mc.join(3, mc.create(3, kOtherGroup));
  EXPECT_EQ(McFixture::answered(again).mlid, kFirstMlid) << "the MLID is free again";
}

// OpenSM PR #43: OpenSM dropped such a member whole while still counting
// it as a full member, so the group and its MLID stayed for ever; 1018
// cycles used up the MLIDs.
TEST_F(McLeaveTest, ASendOnlyFullJoinLeftWithTheFullBitKeepsThenFreesTheMlid) {
  constexpr std::uint8_t k0x9 = joinState::kFull | joinState::kSendOnlyFull;
  for (int cycle = 0; cycle < 1100; ++cycle) {
    const auto joined = mc.join(1, mc.create(1, kAppGroup, k0x9));
    ASSERT_EQ(joined.header.status, saStatus::kOk) << "cycle " << cycle;
    ASSERT_EQ(McFixture::answered(joined).mlid, kFirstMlid) << "cycle " << cycle;
    const auto partial = mc.leave(1, mc.member(1, kAppGroup, joinState::kFull));
    ASSERT_EQ(partial.header.status, saStatus::kOk);
    ASSERT_EQ(McFixture::answered(partial).joinState, joinState::kSendOnlyFull);
    const McGroup* g = mc.group(kAppGroup);
    ASSERT_NE(g, nullptr) << "the SendOnlyFull member keeps the group";
    ASSERT_EQ(g->members.at(mc.sa.guidOfHost(1)).joinState, joinState::kSendOnlyFull);
    ASSERT_FALSE(mc.groups().routes()[0].members[0].receives) << "a send-only member";
    ASSERT_EQ(mc.leave(1, mc.member(1, kAppGroup, joinState::kSendOnlyFull)).header.status,
              saStatus::kOk);
    ASSERT_EQ(mc.group(kAppGroup), nullptr) << "cycle " << cycle;
  }
  EXPECT_EQ(mc.groups().size(), 0U);
  EXPECT_EQ(mc.sa.responder.counters().mcGroupsCreated, 1100U);
  EXPECT_EQ(mc.sa.responder.counters().mcGroupsDeleted, 1100U);
}

TEST_F(McLeaveTest, APrecreatedGroupLivesWithoutMembersUntilTheConfigurationDropsIt) {
  McGroupSpec broadcast{.mgid = kBroadcast, .params = {}, .where = "partitions.conf:1"};
  EXPECT_EQ(mc.sa.responder.setPrecreated({broadcast}), 0U);
  ASSERT_NE(mc.group(kBroadcast), nullptr);
  EXPECT_EQ(mc.group(kBroadcast)->mlid, kFirstMlid);
  ASSERT_EQ(mc.join(1, mc.member(1, kBroadcast, joinState::kFull), mcmMask::kJoin).header.status,
            saStatus::kOk)
      << "IPoIB joins with MGID, PortGID, PKey and JoinState only";
  ASSERT_EQ(mc.leave(1, mc.member(1, kBroadcast, joinState::kFull)).header.status, saStatus::kOk);
  EXPECT_NE(mc.group(kBroadcast), nullptr) << "pre-created: lives with no member";

  ASSERT_EQ(mc.join(1, mc.member(1, kBroadcast, joinState::kFull), mcmMask::kJoin).header.status,
            saStatus::kOk);
  mc.sa.responder.setPrecreated({});  // reloaded without it
  ASSERT_NE(mc.group(kBroadcast), nullptr) << "host 1 still keeps it";
  EXPECT_FALSE(mc.group(kBroadcast)->precreated);
  ASSERT_EQ(mc.leave(1, mc.member(1, kBroadcast, joinState::kFull)).header.status, saStatus::kOk);
  EXPECT_EQ(mc.group(kBroadcast), nullptr);

  mc.sa.responder.setPrecreated({broadcast});
  mc.sa.responder.setPrecreated({});
  EXPECT_EQ(mc.group(kBroadcast), nullptr) << "dropped with no member: gone at once";
}

// The SM left MASTER: every member goes, with every group but the
// pre-created ones, whose MLIDs stay; the MLIDs of the others are free.
TEST_F(McLeaveTest, ForgettingTheJoinsKeepsOnlyThePrecreatedGroupsEmpty) {
  McGroupSpec broadcast{.mgid = kBroadcast, .params = {}, .where = "partitions.conf:1"};
  ASSERT_EQ(mc.sa.responder.setPrecreated({broadcast}), 0U);
  ASSERT_EQ(mc.join(1, mc.member(1, kBroadcast, joinState::kFull), mcmMask::kJoin).header.status,
            saStatus::kOk);
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  ASSERT_EQ(
      mc.join(2, mc.member(2, kAppGroup, joinState::kNonMember), mcmMask::kJoin).header.status,
      saStatus::kOk);
  const Lid appMlid = mc.group(kAppGroup)->mlid;
  (void)mc.sa.responder.takeGroupEvents();
  const auto generation = mc.groups().generation();

  EXPECT_EQ(mc.sa.responder.forgetJoins(), 3U);
  EXPECT_NE(mc.groups().generation(), generation);
  ASSERT_NE(mc.group(kBroadcast), nullptr);
  EXPECT_TRUE(mc.group(kBroadcast)->members.empty());
  EXPECT_EQ(mc.group(kBroadcast)->mlid, kFirstMlid);
  EXPECT_EQ(mc.group(kAppGroup), nullptr);
  EXPECT_EQ(mc.groups().size(), 1U);
  const auto events = mc.sa.responder.takeGroupEvents();
  ASSERT_EQ(events.size(), 1U) << "recorded; the daemon, no longer master, drops them";
  EXPECT_EQ(events[0].kind, McGroupEvent::Kind::Deleted);
  EXPECT_EQ(events[0].mgid, kAppGroup);
  // Its MLID is free for the next group.
  ASSERT_EQ(mc.join(2, mc.create(2, kOtherGroup)).header.status, saStatus::kOk);
  EXPECT_EQ(mc.group(kOtherGroup)->mlid, appMlid);
  EXPECT_EQ(mc.sa.responder.forgetJoins(), 1U);
  EXPECT_EQ(mc.sa.responder.forgetJoins(), 0U) << "nothing left to forget";
}

TEST_F(McLeaveTest, APortThatLeftTheFabricLeavesEveryGroup) {
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  ASSERT_EQ(mc.join(2, mc.member(2, kAppGroup, joinState::kFull), mcmMask::kJoin).header.status,
            saStatus::kOk);
  ASSERT_EQ(mc.join(2, mc.create(2, kOtherGroup)).header.status, saStatus::kOk);
  (void)mc.sa.responder.takeGroupEvents();
  const auto generation = mc.groups().generation();

  EXPECT_EQ(mc.sa.responder.dropPort(mc.sa.guidOfHost(2)), 2U);
  EXPECT_NE(mc.groups().generation(), generation);
  ASSERT_NE(mc.group(kAppGroup), nullptr) << "host 1 keeps it";
  EXPECT_EQ(mc.group(kAppGroup)->members.size(), 1U);
  EXPECT_EQ(mc.group(kOtherGroup), nullptr) << "host 2 alone kept it";
  const auto events = mc.sa.responder.takeGroupEvents();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].kind, McGroupEvent::Kind::Deleted);
  EXPECT_EQ(events[0].mgid, kOtherGroup);
  EXPECT_EQ(mc.sa.responder.dropPort(mc.sa.guidOfHost(2)), 0U);
}

TEST_F(McLeaveTest, RoutesListEveryGroupAndWhichMembersReceive) {
  mc.sa.responder.setPrecreated({McGroupSpec{.mgid = kBroadcast, .params = {}, .where = "t"}});
  ASSERT_EQ(mc.join(3, mc.create(3, kAppGroup)).header.status, saStatus::kOk);
  for (const auto& [host, state] :
       std::vector<std::pair<std::size_t, std::uint8_t>>{{1, joinState::kNonMember},
                                                         {2, joinState::kSendOnlyNonMember},
                                                         {4, joinState::kSendOnlyFull}}) {
    ASSERT_EQ(mc.join(host, mc.member(host, kAppGroup, state), mcmMask::kJoin).header.status,
              saStatus::kOk);
  }
  const auto routes = mc.groups().routes();
  ASSERT_EQ(routes.size(), 2U);
  const auto& app = routes[0].mgid == kAppGroup ? routes[0] : routes[1];
  const auto& bcast = routes[0].mgid == kAppGroup ? routes[1] : routes[0];
  EXPECT_TRUE(bcast.members.empty()) << "pre-created, nobody joined";
  ASSERT_EQ(app.members.size(), 4U);
  EXPECT_TRUE(std::ranges::is_sorted(app.members, {}, &McRouteMember::portGuid));
  for (const McRouteMember& m : app.members) {
    const bool full = m.portGuid == mc.sa.guidOfHost(3);
    const bool nonMember = m.portGuid == mc.sa.guidOfHost(1);
    EXPECT_EQ(m.receives, full || nonMember) << m.portGuid.value;
  }
}

TEST_F(McLeaveTest, TheGenerationMovesWhenTheRoutesChangeOnly) {
  auto g = mc.groups().generation();
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  EXPECT_NE(mc.groups().generation(), g);
  g = mc.groups().generation();
  ASSERT_EQ(mc.join(1, mc.member(1, kAppGroup, joinState::kFull), mcmMask::kJoin).header.status,
            saStatus::kOk);
  EXPECT_EQ(mc.groups().generation(), g) << "the same join again";
  ASSERT_EQ(mc.join(2, mc.member(2, kAppGroup, joinState::kSendOnlyNonMember), mcmMask::kJoin)
                .header.status,
            saStatus::kOk);
  EXPECT_NE(mc.groups().generation(), g) << "a new member";
  g = mc.groups().generation();
  ASSERT_EQ(
      mc.join(2, mc.member(2, kAppGroup, joinState::kNonMember), mcmMask::kJoin).header.status,
      saStatus::kOk);
  EXPECT_NE(mc.groups().generation(), g) << "it receives now";
}

TEST_F(McLeaveTest, GroupEventsTellCreationsAndDeletionsInOrder) {
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  ASSERT_EQ(mc.leave(1, mc.member(1, kAppGroup, joinState::kFull)).header.status, saStatus::kOk);
  const auto events = mc.sa.responder.takeGroupEvents();
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].kind, McGroupEvent::Kind::Created);
  EXPECT_EQ(events[1].kind, McGroupEvent::Kind::Deleted);
  EXPECT_EQ(events[0].mgid, kAppGroup);
  EXPECT_EQ(events[0].mlid, kFirstMlid);
  EXPECT_EQ(events[0].pkey, 0xFFFF);
  EXPECT_TRUE(mc.sa.responder.takeGroupEvents().empty()) << "taken once";
}

}  // namespace
}  // namespace ibsm::sm::sa
