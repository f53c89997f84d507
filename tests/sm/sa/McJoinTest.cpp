// Joining multicast groups (Set(MCMemberRecord), IBA o15-0.1.x, o15-0.2.x):
// a Full or SendOnlyFull join with every component the IBA requires
// creates a group, with an MLID and an MGID the SA picks where the request
// leaves them open; later joins must fit the group, the port and its
// partition; repeated joins OR their bits. A refused Set gets the status
// OpenSM answers and changes nothing.
#include <gtest/gtest.h>

#include "tests/sm/sa/McFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::kAppGroup;
using testing::kOtherGroup;
using testing::McFixture;
using testing::mgidOf;

class McJoinTest : public ::testing::Test {
 protected:
  McFixture mc;
};

TEST_F(McJoinTest, AFullJoinCreatesTheGroupWithTheRequestedParameters) {
  auto r = mc.create(1, kAppGroup);
  r.qkey = 0x12345678;
  r.sl = 3;
  r.tClass = 7;
  r.flowLabel = 0x1234;
  const auto reply = mc.join(1, r);
  EXPECT_EQ(reply.header.method, saMethod::kGetResp);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  const auto a = McFixture::answered(reply);
  EXPECT_EQ(a.mgid, kAppGroup);
  EXPECT_EQ(a.mlid, kFirstMlid) << "the first free MLID";
  EXPECT_EQ(a.qkey, 0x12345678U);
  EXPECT_EQ(a.sl, 3);
  EXPECT_EQ(a.tClass, 7);
  EXPECT_EQ(a.flowLabel, 0x1234U);
  EXPECT_EQ(a.pkey, 0xFFFF);
  EXPECT_EQ(a.joinState, joinState::kFull);
  EXPECT_EQ(a.portGid, mc.sa.gidOfHost(1));
  EXPECT_EQ(a.scope, mcScope::kLinkLocal);
  // No MTU or rate asked: the creating port's own, "exactly".
  EXPECT_EQ(a.mtu, 5) << "4096, what the generated links carry";
  EXPECT_EQ(a.mtuSelector, selector::kExactly);
  EXPECT_EQ(a.rateSelector, selector::kExactly);
  EXPECT_EQ(a.packetLifeTimeSelector, selector::kExactly);
  EXPECT_EQ(a.packetLifeTime, mc.sa.settings.packetLifeTime);

  const auto routes = mc.groups().routes();
  ASSERT_EQ(routes.size(), 1U);
  EXPECT_EQ(routes[0].mlid, kFirstMlid);
  ASSERT_EQ(routes[0].members.size(), 1U);
  EXPECT_EQ(routes[0].members[0].portGuid, mc.sa.guidOfHost(1));
  EXPECT_TRUE(routes[0].members[0].receives);
  EXPECT_EQ(mc.sa.responder.counters().mcJoins, 1U);
  EXPECT_EQ(mc.sa.responder.counters().mcGroupsCreated, 1U);
}

TEST_F(McJoinTest, ACreateMissingAComponentTheIbaRequiresIsInsufficientComponents) {
  for (const std::uint64_t missing :
       {mcmMask::kQKey, mcmMask::kTClass, mcmMask::kPKey, mcmMask::kFlowLabel, mcmMask::kSl}) {
    const auto reply = mc.join(1, mc.create(1, kAppGroup), McFixture::kCreateMask & ~missing);
    EXPECT_EQ(reply.header.status, saStatus::kReqInsufficientComponents) << missing;
  }
  EXPECT_EQ(mc.groups().size(), 0U);
  EXPECT_EQ(mc.sa.responder.counters().mcRefusedByStatus.at(saStatus::kReqInsufficientComponents),
            5U);
}

TEST_F(McJoinTest, EverySetAndDeleteNamesTheGroupThePortAndTheBits) {
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  for (const std::uint64_t missing : {mcmMask::kMgid, mcmMask::kPortGid, mcmMask::kJoinState}) {
    const auto m = mc.member(2, kAppGroup, joinState::kFull);
    EXPECT_EQ(mc.join(2, m, mcmMask::kJoin & ~missing).header.status,
              saStatus::kReqInsufficientComponents);
    EXPECT_EQ(mc.leave(1, mc.member(1, kAppGroup, joinState::kFull), mcmMask::kJoin & ~missing)
                  .header.status,
              saStatus::kReqInsufficientComponents);
  }
  EXPECT_EQ(mc.group(kAppGroup)->members.size(), 1U);
}

TEST_F(McJoinTest, OnlyAFullOrSendOnlyFullJoinCreatesAGroup) {
  EXPECT_EQ(mc.join(1, mc.create(1, kAppGroup, joinState::kNonMember)).header.status,
            saStatus::kReqInvalid);
  EXPECT_EQ(mc.join(1, mc.create(1, kAppGroup, joinState::kSendOnlyNonMember)).header.status,
            saStatus::kReqInvalid);
  EXPECT_EQ(mc.groups().size(), 0U);
  EXPECT_EQ(mc.join(1, mc.create(1, kAppGroup, joinState::kSendOnlyFull)).header.status,
            saStatus::kOk);
}

TEST_F(McJoinTest, RepeatedJoinsOrTheJoinStateBits) {
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  const auto reply =
      mc.join(1, mc.member(1, kAppGroup, joinState::kSendOnlyNonMember), mcmMask::kJoin);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_EQ(McFixture::answered(reply).joinState, joinState::kFull | joinState::kSendOnlyNonMember);
  EXPECT_EQ(mc.group(kAppGroup)->members.at(mc.sa.guidOfHost(1)).joinState, 0x5);
}

TEST_F(McJoinTest, AZeroMgidGetsAUniqueSaAssignedOne) {
  const auto first = mc.join(1, mc.create(1, Gid{}));
  const auto second = mc.join(2, mc.create(2, Gid{}));
  ASSERT_EQ(first.header.status, saStatus::kOk);
  ASSERT_EQ(second.header.status, saStatus::kOk);
  const Gid a = McFixture::answered(first).mgid;
  const Gid b = McFixture::answered(second).mgid;
  EXPECT_NE(a, b);
  // ff12:a01b, then the subnet prefix (IBA 4.1.1: SA-assigned, link-local).
  EXPECT_EQ(a[0], 0xFF);
  EXPECT_EQ(a[1], 0x12);
  EXPECT_EQ(a[2], 0xA0);
  EXPECT_EQ(a[3], 0x1B);
  EXPECT_EQ(a[4], 0xFE);
  EXPECT_EQ(a[5], 0x80);
  EXPECT_NE(mc.group(a), nullptr);
  // The Scope component, when given, is the assigned MGID's scope.
  auto siteLocal = mc.create(3, Gid{});
  siteLocal.scope = mcScope::kSiteLocal;
  const auto third = mc.join(3, siteLocal, McFixture::kCreateMask | mcmMask::kScope);
  ASSERT_EQ(third.header.status, saStatus::kOk);
  EXPECT_EQ(McFixture::answered(third).mgid[1], 0x15);
}

// After a failover the hosts re-create the SA-assigned groups they were in,
// with the MGIDs the old master gave them: the new master (here, a fresh
// McGroups) takes them, and its own next assignment does not collide.
TEST_F(McJoinTest, AnSaAssignedMgidOfThisSubnetCanBeCreatedAgainAfterAFailover) {
  const auto first = mc.join(1, mc.create(1, Gid{}));
  ASSERT_EQ(first.header.status, saStatus::kOk);
  const Gid assigned = McFixture::answered(first).mgid;
  McFixture next;  // the standby that takes over: no group but its own
  const auto again = next.join(1, next.create(1, assigned));
  ASSERT_EQ(again.header.status, saStatus::kOk);
  EXPECT_EQ(McFixture::answered(again).mgid, assigned);
  const auto fresh = next.join(2, next.create(2, Gid{}));
  ASSERT_EQ(fresh.header.status, saStatus::kOk);
  EXPECT_NE(McFixture::answered(fresh).mgid, assigned);
  // Another subnet's prefix in a link-local SA-assigned MGID: refused.
  Gid foreign = assigned;
  foreign[11] ^= 0x01;
  EXPECT_EQ(next.join(3, next.create(3, foreign)).header.status, saStatus::kReqInvalid);
}

TEST_F(McJoinTest, TheMlidAskedForIsUsedWhenFreeElseTheFirstFree) {
  auto r = mc.create(1, kAppGroup);
  r.mlid = Lid{0xC123};
  const auto first = mc.join(1, r, McFixture::kCreateMask | mcmMask::kMlid);
  EXPECT_EQ(McFixture::answered(first).mlid, Lid{0xC123});
  auto again = mc.create(1, kOtherGroup);
  again.mlid = Lid{0xC123};
  const auto second = mc.join(1, again, McFixture::kCreateMask | mcmMask::kMlid);
  EXPECT_EQ(McFixture::answered(second).mlid, kFirstMlid) << "0xC123 is taken";
  auto unicast = mc.create(1, mgidOf(0x12, 0, 3));
  unicast.mlid = Lid{0x0010};
  const auto third = mc.join(1, unicast, McFixture::kCreateMask | mcmMask::kMlid);
  EXPECT_EQ(McFixture::answered(third).mlid, Lid{0xC001}) << "a unicast LID is no MLID";
}

TEST_F(McJoinTest, AJoinMustMatchTheComponentsOfTheGroup) {
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  auto wrongQKey = mc.create(2, kAppGroup);
  wrongQKey.qkey = 0x1;
  EXPECT_EQ(mc.join(2, wrongQKey).header.status, saStatus::kReqInvalid);
  auto wrongSl = mc.create(2, kAppGroup);
  wrongSl.sl = 1;
  EXPECT_EQ(mc.join(2, wrongSl).header.status, saStatus::kReqInvalid);
  // MTU with its selector: the group's 4096 is not greater than 4096...
  auto greater = mc.create(2, kAppGroup);
  greater.mtuSelector = selector::kGreater;
  greater.mtu = 5;
  const std::uint64_t withMtu = McFixture::kCreateMask | mcmMask::kMtuSelector | mcmMask::kMtu;
  EXPECT_EQ(mc.join(2, greater, withMtu).header.status, saStatus::kReqInvalid);
  // ...but is greater than 2048.
  greater.mtu = 4;
  EXPECT_EQ(mc.join(2, greater, withMtu).header.status, saStatus::kOk);
  EXPECT_EQ(mc.group(kAppGroup)->members.size(), 2U);
}

TEST_F(McJoinTest, AJoiningPortMustHoldTheGroupsPKey) {
  mc.partitions({{1, {0x8001}}, {2, {0x8002}}, {3, {0x0001}}});
  auto r = mc.create(1, kAppGroup);
  r.pkey = 0x8001;
  ASSERT_EQ(mc.join(1, r).header.status, saStatus::kOk);
  EXPECT_EQ(mc.join(2, mc.member(2, kAppGroup, joinState::kFull), mcmMask::kJoin).header.status,
            saStatus::kReqInvalid)
      << "host 2 is not in partition 1";
  EXPECT_EQ(mc.join(3, mc.member(3, kAppGroup, joinState::kFull), mcmMask::kJoin).header.status,
            saStatus::kOk)
      << "a limited member of the partition may join";
  auto notMine = mc.create(1, kOtherGroup);
  notMine.pkey = 0x8002;
  EXPECT_EQ(mc.join(1, notMine).header.status, saStatus::kReqInvalid)
      << "nor create a group of a partition it is not in";
  auto invalid = mc.create(1, kOtherGroup);
  invalid.pkey = 0x8000;
  EXPECT_EQ(mc.join(1, invalid).header.status, saStatus::kReqInvalid) << "PKey 0 is invalid";
}

TEST_F(McJoinTest, APortWhoseLinkCannotCarryTheGroupsMtuIsRefused) {
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);  // 4096
  mc.sa.plan.fabric.port(mc.sa.hostPort(2)).mtuCap = 3;                         // 1024
  mc.sa.rebuild();
  EXPECT_EQ(mc.join(2, mc.member(2, kAppGroup, joinState::kFull), mcmMask::kJoin).header.status,
            saStatus::kReqInvalid);
  EXPECT_EQ(mc.group(kAppGroup)->members.size(), 1U);
  // A group created by that port is a 1024 one, and 4096 ports join it.
  ASSERT_EQ(mc.join(2, mc.create(2, kOtherGroup)).header.status, saStatus::kOk);
  EXPECT_EQ(mc.group(kOtherGroup)->params.mtu, 3);
  EXPECT_EQ(mc.join(1, mc.member(1, kOtherGroup, joinState::kFull), mcmMask::kJoin).header.status,
            saStatus::kOk);
  // Asking a group MTU above what the port carries is unrealizable.
  auto big = mc.create(2, mgidOf(0x12, 0, 9));
  big.mtuSelector = selector::kExactly;
  big.mtu = 5;
  EXPECT_EQ(
      mc.join(2, big, McFixture::kCreateMask | mcmMask::kMtuSelector | mcmMask::kMtu).header.status,
      saStatus::kReqInvalid);
}

TEST_F(McJoinTest, AnMtuOrRateCodeTheIbaDoesNotDefineIsInvalid) {
  auto r = mc.create(1, kAppGroup);
  r.mtuSelector = selector::kExactly;
  r.mtu = 7;
  EXPECT_EQ(
      mc.join(1, r, McFixture::kCreateMask | mcmMask::kMtuSelector | mcmMask::kMtu).header.status,
      saStatus::kReqInvalid);
  r = mc.create(1, kAppGroup);
  r.rateSelector = selector::kExactly;
  r.rate = 0x3F;
  EXPECT_EQ(
      mc.join(1, r, McFixture::kCreateMask | mcmMask::kRateSelector | mcmMask::kRate).header.status,
      saStatus::kReqInvalid);
  EXPECT_EQ(mc.groups().size(), 0U);
}

TEST_F(McJoinTest, AProxyJoinIsAllowedBetweenPortsSharingAPartition) {
  mc.partitions({{1, {0x8001}}, {2, {0x0001}}, {3, {0x8002}}});
  auto forHost2 = mc.create(2, kAppGroup);
  forHost2.pkey = 0x8001;
  const auto reply = mc.join(1, forHost2);  // host 1 asks for host 2
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_TRUE(McFixture::answered(reply).proxyJoin);
  EXPECT_TRUE(mc.group(kAppGroup)->members.at(mc.sa.guidOfHost(2)).proxyJoin);

  auto forHost3 = mc.create(3, kOtherGroup);
  forHost3.pkey = 0x8002;
  EXPECT_EQ(mc.join(1, forHost3).header.status, saStatus::kReqInvalid)
      << "hosts 1 and 3 share no partition";
  EXPECT_EQ(mc.group(kOtherGroup), nullptr);
}

TEST_F(McJoinTest, OnlyThePortItselfChangesAMembershipItMadeItself) {
  ASSERT_EQ(mc.join(2, mc.create(2, kAppGroup)).header.status, saStatus::kOk);
  const auto byOther = mc.member(2, kAppGroup, joinState::kNonMember);
  EXPECT_EQ(mc.join(1, byOther, mcmMask::kJoin).header.status, saStatus::kReqInvalid);
  EXPECT_EQ(mc.leave(1, mc.member(2, kAppGroup, joinState::kFull)).header.status,
            saStatus::kReqInvalid);
  EXPECT_EQ(mc.group(kAppGroup)->members.at(mc.sa.guidOfHost(2)).joinState, joinState::kFull);
}

TEST_F(McJoinTest, AnMgidTheSaCannotCreateIsRefused) {
  const std::vector<Gid> bad{
      mgidOf(0xFE, 0, 1) /* not multicast: set below */, mgidOf(0x32, 0, 1) /* reserved flag */,
      mgidOf(0x13, 0, 1) /* scope 3 is reserved */, mgidOf(0x1F, 0, 1) /* scope F */,
      mgidOf(0x12, 0xA01B, 1) /* SA-assigned signature, link-local */};
  for (Gid mgid : bad) {
    if (mgid[1] == 0xFE) mgid[0] = 0xFE;
    EXPECT_EQ(mc.join(1, mc.create(1, mgid)).header.status, saStatus::kReqInvalid);
  }
  // A Scope component that is not the MGID's own.
  auto foreign = mc.create(1, mgidOf(0x12, 0, 1));
  foreign.scope = mcScope::kGlobal;
  EXPECT_EQ(mc.join(1, foreign, McFixture::kCreateMask | mcmMask::kScope).header.status,
            saStatus::kReqInvalid);
  EXPECT_EQ(mc.groups().size(), 0U);
  EXPECT_EQ(mc.join(1, mc.create(1, mgidOf(0x15, 0xA01B, 1))).header.status, saStatus::kOk)
      << "site-local SA-assigned-style MGIDs are fine";
}

TEST_F(McJoinTest, APortGidOfAnotherSubnetOrOfNoPortIsRefused) {
  auto r = mc.create(1, kAppGroup);
  r.portGid = makeGid(0xFEC0000000000000ULL, mc.sa.guidOfHost(1));
  EXPECT_EQ(mc.join(1, r).header.status, saStatus::kReqInvalidGid);
  r.portGid = makeGid(kDefaultSubnetPrefix, Guid{0xDEAD});
  EXPECT_EQ(mc.join(1, r).header.status, saStatus::kReqInvalid);
  EXPECT_EQ(mc.groups().size(), 0U);
}

TEST_F(McJoinTest, ARefusedSetChangesNothing) {
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  const auto generation = mc.groups().generation();
  const auto before = mc.groups().routes();
  auto wrong = mc.create(2, kAppGroup);
  wrong.qkey = 0x5;
  ASSERT_EQ(mc.join(2, wrong).header.status, saStatus::kReqInvalid);
  ASSERT_EQ(mc.join(2, mc.create(2, kOtherGroup, joinState::kNonMember)).header.status,
            saStatus::kReqInvalid);
  EXPECT_EQ(mc.groups().generation(), generation);
  const auto after = mc.groups().routes();
  ASSERT_EQ(after.size(), before.size());
  EXPECT_EQ(after[0].members, before[0].members);
  EXPECT_EQ(mc.sa.responder.counters().mcRefusedByStatus.at(saStatus::kReqInvalid), 2U);
}

TEST_F(McJoinTest, AnswersOfTheGroupsParametersAreExactly) {
  auto r = mc.create(1, kAppGroup);
  r.mtuSelector = selector::kLess;  // below 4096: 2048
  r.mtu = 5;
  r.rateSelector = selector::kLargest;  // the largest there is, the port's
  r.rate = 3;
  const std::uint64_t mask = McFixture::kCreateMask | mcmMask::kMtuSelector | mcmMask::kMtu |
                             mcmMask::kRateSelector | mcmMask::kRate;
  const auto reply = mc.join(1, r, mask);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  const auto a = McFixture::answered(reply);
  EXPECT_EQ(a.mtu, 4);
  EXPECT_EQ(a.mtuSelector, selector::kExactly);
  EXPECT_EQ(a.rateSelector, selector::kExactly);
  EXPECT_EQ(a.rate, mc.group(kAppGroup)->params.rate);
}

}  // namespace
}  // namespace ibsm::sm::sa
