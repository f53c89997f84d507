// IPoIB groups (RFC 4391): an MGID with the IPoIB signature is created only
// where the broadcast group of its partition and scope exists, and with
// the broadcast group's parameters (OpenSM's
// ipoib_mcgroup_creation_validation); the broadcast group itself is the
// configuration's, and IPoIB joins it naming only MGID, PortGID, PKey and
// JoinState.
#include <gtest/gtest.h>

#include "tests/sm/sa/McFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::kBroadcast;
using testing::McFixture;
using testing::mgidOf;

// ff12:401b:ffff::1:ff00:1, an IPv4 group of the default partition
// (224.0.0.1 and the like map there), and an IPv6 one.
const Gid kIpv4Group = mgidOf(0x12, 0x401B, 0xE0000001, 0xFFFF);
const Gid kIpv6Group = mgidOf(0x12, 0x601B, 0x00000001, 0xFFFF);

class McIpoibTest : public ::testing::Test {
 protected:
  void precreateBroadcast(McGroupParams params = {}) {
    mc.sa.responder.setPrecreated(
        {McGroupSpec{.mgid = kBroadcast, .params = params, .where = "t"}});
  }
  McFixture mc;
};

TEST_F(McIpoibTest, AnIpoibGroupNeedsItsPartitionsBroadcastGroup) {
  EXPECT_EQ(mc.join(1, mc.create(1, kIpv4Group)).header.status, saStatus::kReqInvalid);
  EXPECT_EQ(mc.join(1, mc.create(1, kIpv6Group)).header.status, saStatus::kReqInvalid);
  EXPECT_EQ(mc.groups().size(), 0U);
  precreateBroadcast();
  EXPECT_EQ(mc.join(1, mc.create(1, kIpv4Group)).header.status, saStatus::kOk);
  EXPECT_EQ(mc.join(1, mc.create(1, kIpv6Group)).header.status, saStatus::kOk);
}

TEST_F(McIpoibTest, AnIpoibGroupMustMatchTheBroadcastGroup) {
  precreateBroadcast();
  auto r = mc.create(1, kIpv4Group);
  r.qkey = 0x1;  // the broadcast group's is 0x0b1b
  EXPECT_EQ(mc.join(1, r).header.status, saStatus::kReqInvalid);
  r = mc.create(1, kIpv4Group);
  r.sl = 2;
  EXPECT_EQ(mc.join(1, r).header.status, saStatus::kReqInvalid);
  EXPECT_EQ(mc.group(kIpv4Group), nullptr);
}

TEST_F(McIpoibTest, AnotherScopeNeedsTheBroadcastGroupOfThatScope) {
  precreateBroadcast();  // link-local only
  const Gid siteLocal = mgidOf(0x15, 0x401B, 0xE0000001, 0xFFFF);
  EXPECT_EQ(mc.join(1, mc.create(1, siteLocal)).header.status, saStatus::kReqInvalid);
}

TEST_F(McIpoibTest, TheBroadcastGroupIsJoinedWithItsParametersInTheAnswer) {
  McGroupParams params;
  params.mtu = 4;
  params.rate = 3;
  params.sl = 1;
  params.qkey = 0x0b1b;
  precreateBroadcast(params);
  McMemberRecord r = mc.member(1, kBroadcast, joinState::kFull);
  r.pkey = 0xFFFF;
  const auto reply = mc.join(1, r, mcmMask::kJoin | mcmMask::kPKey);
  ASSERT_EQ(reply.header.status, saStatus::kOk);
  const auto a = McFixture::answered(reply);
  EXPECT_EQ(a.mlid, kFirstMlid);
  EXPECT_EQ(a.qkey, 0x0B1BU);
  EXPECT_EQ(a.mtu, 4);
  EXPECT_EQ(a.rate, 3);
  EXPECT_EQ(a.sl, 1);
  EXPECT_EQ(a.mtuSelector, selector::kExactly);
}

}  // namespace
}  // namespace ibsm::sm::sa
