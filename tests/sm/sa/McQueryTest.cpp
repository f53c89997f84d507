// Finding multicast groups (Get/GetTable(MCMemberRecord)): the component
// mask selects groups and members; a requester sees the groups of its own
// partitions; one that does not present the SA key gets one record per
// group with PortGID, JoinState and ProxyJoin zero (IBA 15.2.5.17), a
// trusted one every member.
#include <gtest/gtest.h>

#include "tests/sm/sa/McFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::kAppGroup;
using testing::kOtherGroup;
using testing::McFixture;

class McQueryTest : public ::testing::Test {
 protected:
  McQueryTest() {
    // kAppGroup: host 1 Full, host 2 NonMember; kOtherGroup: host 3 Full.
    EXPECT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
    EXPECT_EQ(
        mc.join(2, mc.member(2, kAppGroup, joinState::kNonMember), mcmMask::kJoin).header.status,
        saStatus::kOk);
    EXPECT_EQ(mc.join(3, mc.create(3, kOtherGroup)).header.status, saStatus::kOk);
  }
  McFixture mc;
};

TEST_F(McQueryTest, AnUntrustedRequesterSeesEachGroupOnceWithoutItsMembers) {
  const auto all = mc.table(4, McMemberRecord{}, 0);
  ASSERT_EQ(all.size(), 2U);
  for (const auto& r : all) {
    EXPECT_EQ(r.portGid, Gid{});
    EXPECT_EQ(r.joinState, 0);
    EXPECT_FALSE(r.proxyJoin);
    EXPECT_EQ(r.mtuSelector, selector::kExactly);
  }
  EXPECT_EQ(all[0].mlid.value ^ all[1].mlid.value, kFirstMlid.value ^ 0xC001);
}

TEST_F(McQueryTest, ATrustedRequesterSeesEveryMember) {
  const auto all = mc.table(4, McMemberRecord{}, 0, /*trusted=*/true);
  ASSERT_EQ(all.size(), 3U);
  McMemberRecord q;
  q.joinState = joinState::kNonMember;
  const auto nonMembers = mc.table(4, q, mcmMask::kJoinState, true);
  ASSERT_EQ(nonMembers.size(), 1U);
  EXPECT_EQ(nonMembers[0].portGid, mc.sa.gidOfHost(2));
  EXPECT_EQ(nonMembers[0].mgid, kAppGroup);
}

TEST_F(McQueryTest, ThePortGidComponentSelectsThatPortsMemberships) {
  McMemberRecord q;
  q.portGid = mc.sa.gidOfHost(3);
  const auto mine = mc.table(3, q, mcmMask::kPortGid, true);
  ASSERT_EQ(mine.size(), 1U);
  EXPECT_EQ(mine[0].mgid, kOtherGroup);
  EXPECT_EQ(mine[0].joinState, joinState::kFull);
  q.portGid = mc.sa.gidOfHost(4);
  EXPECT_TRUE(mc.table(3, q, mcmMask::kPortGid, true).empty());
}

TEST_F(McQueryTest, MgidMlidAndParameterComponentsSelectGroups) {
  McMemberRecord q;
  q.mgid = kOtherGroup;
  ASSERT_EQ(mc.table(1, q, mcmMask::kMgid).size(), 1U);
  q = {};
  q.mlid = mc.group(kAppGroup)->mlid;
  const auto byMlid = mc.table(1, q, mcmMask::kMlid);
  ASSERT_EQ(byMlid.size(), 1U);
  EXPECT_EQ(byMlid[0].mgid, kAppGroup);
  q = {};
  q.qkey = 0x99;
  EXPECT_TRUE(mc.table(1, q, mcmMask::kQKey).empty());
  q = {};
  q.mtuSelector = selector::kLess;
  q.mtu = 5;
  EXPECT_TRUE(mc.table(1, q, mcmMask::kMtuSelector | mcmMask::kMtu).empty())
      << "both groups are 4096";
}

TEST_F(McQueryTest, AGetOfOneGroupAnswersItAndOfSeveralIsTooMany) {
  McMemberRecord q;
  q.mgid = kAppGroup;
  const auto one = mc.send(saMethod::kGet, 1, q, mcmMask::kMgid);
  ASSERT_EQ(one.header.status, saStatus::kOk);
  EXPECT_EQ(McFixture::answered(one).mgid, kAppGroup);
  EXPECT_EQ(mc.send(saMethod::kGet, 1, McMemberRecord{}, 0).header.status,
            saStatus::kTooManyRecords);
  q.mgid = testing::mgidOf(0x12, 0, 0x77);
  EXPECT_EQ(mc.send(saMethod::kGet, 1, q, mcmMask::kMgid).header.status, saStatus::kNoRecords);
}

TEST_F(McQueryTest, ARequesterSeesOnlyGroupsOfItsPartitions) {
  mc.partitions({{5, {0x8001}}});
  auto r = mc.create(5, testing::mgidOf(0x12, 0, 0x55));
  r.pkey = 0x8001;
  ASSERT_EQ(mc.join(5, r).header.status, saStatus::kOk);
  EXPECT_EQ(mc.table(5, McMemberRecord{}, 0).size(), 1U) << "host 5 is in partition 1 only";
  EXPECT_EQ(mc.table(4, McMemberRecord{}, 0).size(), 2U) << "host 4 is not in partition 1";
}

TEST_F(McQueryTest, OtherMethodsAreUnsupported) {
  EXPECT_EQ(mc.send(saMethod::kGetMulti, 1, McMemberRecord{}, 0).header.status,
            saStatus::kMethodAttrUnsupported);
}

}  // namespace
}  // namespace ibsm::sm::sa
