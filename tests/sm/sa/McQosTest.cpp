// A multicast group's SL under a QoS policy (issue 30): its partition's
// level -- the one a PathRecord query naming only the group's PKey gets --
// overrides the partition config's `sl` and the creator's, as a level's SL
// overrides the partition's in PathRecords (OpenSM's
// pr_rcv_get_path_parms). OpenSM up to 3.3.20 rewrote a partition's
// groups' SL from the rules naming its PKey (osm_qos_policy.c,
// __qos_policy_validate_pkey before commit 2f4713da); ibsm keeps unicast
// and multicast of a partition on one SL by matching as for a PathRecord.
#include <gtest/gtest.h>
#include <ibsm/QosPolicy.h>

#include "tests/sm/sa/McFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::kAppGroup;
using testing::kBroadcast;
using testing::McFixture;
using testing::mgidOf;

// The IPoIB broadcast group of partition 0x8001.
const Gid kBroadcast1 = mgidOf(0x12, 0x401B, 0xFFFFFFFF, 0x8001);

class McQosTest : public ::testing::Test {
 protected:
  McQosTest() {
    mc.partitions({{1, {0xFFFF, 0x8001}}, {2, {0xFFFF, 0x8001}}});
    policy.levels = {{.name = "Ipoib", .sl = 4}, {.name = "Mpi", .sl = 2}};
  }
  void apply() {
    auto resolved = std::make_shared<qos::ResolvedQos>();
    resolved->policy = std::make_shared<const qos::QosPolicy>(policy);
    resolved->members["hosts"] = {mc.sa.guidOfHost(1), mc.sa.guidOfHost(2)};
    mc.sa.plan.qos = resolved;
    mc.sa.rebuild();
  }
  McMemberRecord createIn(std::uint16_t pkey, const Gid& mgid) const {
    McMemberRecord r = mc.create(1, mgid);
    r.pkey = pkey;
    return r;
  }
  void precreate(std::uint8_t partitionSl) {
    McGroupParams p;
    p.pkey = 0x8001;
    p.sl = partitionSl;
    mc.sa.responder.setPrecreated({McGroupSpec{.mgid = kBroadcast1, .params = p, .where = "t"}});
  }

  McFixture mc;
  qos::QosPolicy policy;
};

TEST_F(McQosTest, AGroupTakesItsPartitionsLevelSlOverTheCreators) {
  policy.rules = {{.pkeys = {{0x0001, 0x0001}}, .level = "Ipoib"}};
  apply();
  const auto reply = mc.join(1, createIn(0x8001, kAppGroup));
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_EQ(McFixture::answered(reply).sl, 4) << "the creator asked for SL 0";
  McMemberRecord q;
  q.mgid = kAppGroup;
  EXPECT_EQ(mc.table(2, q, mcmMask::kMgid).at(0).sl, 4);
}

TEST_F(McQosTest, ThePartitionsLevelSlWinsOverThePartitionConfigsSl) {
  precreate(/*partitionSl=*/3);
  McMemberRecord q;
  q.mgid = kBroadcast1;
  EXPECT_EQ(mc.table(1, q, mcmMask::kMgid).at(0).sl, 3) << "no policy: the partition's";
  policy.rules = {{.pkeys = {{0x8001, 0x8001}}, .level = "Ipoib"}};
  apply();
  EXPECT_EQ(mc.table(1, q, mcmMask::kMgid).at(0).sl, 4);
  q.sl = 3;
  EXPECT_TRUE(mc.table(1, q, mcmMask::kMgid | mcmMask::kSl).empty()) << "matched on the SL held";
  McMemberRecord join = mc.member(2, kBroadcast1, joinState::kFull);
  join.sl = 3;
  EXPECT_EQ(mc.join(2, join, mcmMask::kJoin | mcmMask::kSl).header.status, saStatus::kReqInvalid)
      << "a joiner naming the old SL does not match the group";
  join.sl = 4;
  EXPECT_EQ(mc.join(2, join, mcmMask::kJoin | mcmMask::kSl).header.status, saStatus::kOk);
}

// The level matched for the PKey alone: rules that need ports, a service
// id or a QoS class cannot hold; with none matching, DEFAULT; no DEFAULT
// either, the group's own SL.
TEST_F(McQosTest, OnlyRulesThePKeyAloneSatisfiesCount) {
  policy.rules = {{.sources = {"hosts"}, .level = "Mpi"},
                  {.serviceIds = {{1, 1}}, .pkeys = {{0x0001, 0x0001}}, .level = "Mpi"}};
  precreate(/*partitionSl=*/3);
  apply();
  McMemberRecord q;
  q.mgid = kBroadcast1;
  EXPECT_EQ(mc.table(1, q, mcmMask::kMgid).at(0).sl, 3);
  policy.levels.push_back({.name = "DEFAULT", .sl = 6});
  apply();
  EXPECT_EQ(mc.table(1, q, mcmMask::kMgid).at(0).sl, 6);
  EXPECT_EQ(mc.group(kBroadcast1)->params.sl, 3) << "the group keeps its own for a new policy";
}

TEST_F(McQosTest, WithoutAPolicyTheCreatorsSlStands) {
  McMemberRecord r = createIn(0xFFFF, kAppGroup);
  r.sl = 7;
  EXPECT_EQ(McFixture::answered(mc.join(1, r)).sl, 7);
  mc.sa.responder.setPrecreated({McGroupSpec{.mgid = kBroadcast, .params = {}, .where = "t"}});
  McMemberRecord q;
  q.mgid = kBroadcast;
  EXPECT_EQ(mc.table(1, q, mcmMask::kMgid).at(0).sl, 0);
}

}  // namespace
}  // namespace ibsm::sm::sa
