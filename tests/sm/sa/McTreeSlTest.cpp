// A multicast group's SL under an engine that drops SLs at some turns
// (issue 33: ftree's second VL drops SL 0 where a route would descend then
// climb, and a tree may need that turn to reach a host above the leaves).
// The SA answers the lowest SL no turn drops instead of the one the group
// holds (the creator's, the partition's, the QoS level's: the engine's SL
// wins), in join answers and GetTable alike; a join naming another SL in
// its component mask does not match the group: REQ_INVALID (o15-0.2.4).
#include <gtest/gtest.h>
#include <ibsm/QosPolicy.h>

#include "tests/sm/sa/McFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::kAppGroup;
using testing::McFixture;

class McTreeSlTest : public ::testing::Test {
 protected:
  // One turn of one switch drops `dropped` (bit i: SL i).
  void dropAtOneTurn(std::uint16_t dropped) {
    Sl2VlEntry e{.sw = mc.sa.plan.fabric.switches().front(), .inPort = 1, .outPort = 2};
    for (std::uint8_t sl = 0; sl < 16; ++sl) e.vl[sl] = (dropped >> sl) & 1u ? 15 : 0;
    mc.sa.plan.routing.sl2vl = {e};
    mc.sa.plan.routing.vlsUsed = 2;
    mc.sa.rebuild();
  }
  std::uint8_t heldSl() {
    McMemberRecord q;
    q.mgid = kAppGroup;
    return mc.table(2, q, mcmMask::kMgid).at(0).sl;
  }

  McFixture mc;
};

TEST_F(McTreeSlTest, AGroupWhoseSlATurnDropsIsAnsweredTheLowestSlEveryTurnCarries) {
  dropAtOneTurn(0b1011);  // SLs 0, 1 and 3
  const auto reply = mc.join(1, mc.create(1, kAppGroup));
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_EQ(McFixture::answered(reply).sl, 2) << "the creator asked for SL 0";
  EXPECT_EQ(heldSl(), 2);
  EXPECT_EQ(mc.group(kAppGroup)->params.sl, 0) << "kept as asked, answered as carried";
}

TEST_F(McTreeSlTest, ACarriedSlStands) {
  dropAtOneTurn(0b0001);
  McMemberRecord r = mc.create(1, kAppGroup);
  r.sl = 5;
  EXPECT_EQ(McFixture::answered(mc.join(1, r)).sl, 5);
  mc.sa.plan.routing.sl2vl.clear();
  mc.sa.rebuild();
  EXPECT_EQ(heldSl(), 5);
}

// An engine that layers unicast on VLs gives the trees a VL of their own
// where one is spare (routing/multicast/McSl.h): SL 15 alone on it at every
// turn. Every group is answered SL 15 then, whatever it asked, in join
// answers and GetTable alike -- the dry run's rule.
TEST_F(McTreeSlTest, TreesOnAVlOfTheirOwnAreAnsweredTheirSl) {
  Sl2VlEntry e{.sw = mc.sa.plan.fabric.switches().front(), .inPort = 1, .outPort = 2};
  e.vl.fill(0);
  e.vl[1] = 1;
  e.vl[15] = 2;
  mc.sa.plan.routing.sl2vl = {e};
  mc.sa.plan.routing.vlsUsed = 2;
  mc.sa.rebuild();
  McMemberRecord r = mc.create(1, kAppGroup);
  r.sl = 5;
  EXPECT_EQ(McFixture::answered(mc.join(1, r)).sl, 15);
  EXPECT_EQ(heldSl(), 15);
  mc.sa.plan.routing.sl2vl.front().vl[15] = 1;  // shared with SL 1: not their own
  mc.sa.rebuild();
  EXPECT_EQ(heldSl(), 5);
}

// Beside them every CA port's own table (planSubnet() adds one, every SL on
// VL 0, SL 15 with the rest): a host's first hop, no turn of a tree, so the
// trees keep their VL and every SL is still carried everywhere.
TEST_F(McTreeSlTest, TheCaPortsTablesLeaveTheTreesTheirVl) {
  Sl2VlEntry e{.sw = mc.sa.plan.fabric.switches().front(), .inPort = 1, .outPort = 2};
  e.vl[1] = 1;
  e.vl[15] = 2;
  mc.sa.plan.routing.sl2vl = {e};
  for (const NodeId host : mc.sa.hosts)
    mc.sa.plan.routing.sl2vl.push_back({.sw = host, .inPort = 0, .outPort = 1, .vl = {}});
  mc.sa.plan.routing.vlsUsed = 2;
  mc.sa.rebuild();
  EXPECT_TRUE(mc.sa.subnet->paths().treesOnTheTreeSl());
  EXPECT_EQ(mc.sa.subnet->paths().slsCarriedEverywhere(), 0xFFFF);
  McMemberRecord r = mc.create(1, kAppGroup);
  r.sl = 5;
  EXPECT_EQ(McFixture::answered(mc.join(1, r)).sl, 15);
}

TEST_F(McTreeSlTest, AJoinNamingTheDroppedSlIsRefused) {
  dropAtOneTurn(0b0001);
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  McMemberRecord join = mc.member(2, kAppGroup, joinState::kFull);
  join.sl = 0;
  EXPECT_EQ(mc.join(2, join, mcmMask::kJoin | mcmMask::kSl).header.status, saStatus::kReqInvalid);
  join.sl = 1;
  EXPECT_EQ(mc.join(2, join, mcmMask::kJoin | mcmMask::kSl).header.status, saStatus::kOk);
  EXPECT_EQ(mc.join(2, join, mcmMask::kJoin).header.status, saStatus::kOk) << "no SL named";
}

TEST_F(McTreeSlTest, TheEnginesSlWinsOverTheQosLevels) {
  qos::QosPolicy policy;
  policy.levels = {{.name = "DEFAULT", .sl = 3}};
  auto resolved = std::make_shared<qos::ResolvedQos>();
  resolved->policy = std::make_shared<const qos::QosPolicy>(policy);
  mc.sa.plan.qos = resolved;
  dropAtOneTurn(0b1000);  // SL 3
  ASSERT_EQ(mc.join(1, mc.create(1, kAppGroup)).header.status, saStatus::kOk);
  EXPECT_EQ(heldSl(), 0);
  dropAtOneTurn(0b0001);
  EXPECT_EQ(heldSl(), 3) << "the level's SL, carried everywhere";
}

}  // namespace
}  // namespace ibsm::sm::sa
