// The test client's MCMemberRecord codec (tests/tools/sa-client) judged by
// another reader: libibmad's field table (IB_SA_MCM_*, rdma-core), and by
// the IBA 15.2.5.17 bit layout for the fields libibmad does not name. A
// codec both the client and the SA got wrong the same way would otherwise
// pass every ibsim test.
#include <gtest/gtest.h>
#include <infiniband/mad.h>

#include <array>
#include <cstring>

#include "tests/tools/sa-client/McMemberRecord.h"

namespace ibsm::test::sa {
namespace {

McMemberRecord sample() {
  McMemberRecord r;
  r.mgid = parseGid("ff12:401b:8001::ffff:ffff").value();
  r.portGid = makeGid(0xfe80000000000000ULL, 0x0002c90300a1b2c3ULL);
  r.qkey = 0x80010b1b;
  r.mlid = 0xc012;
  r.mtuSelector = 2;
  r.mtu = 5;
  r.tclass = 0x40;
  r.pkey = 0x8001;
  r.rateSelector = 1;
  r.rate = 7;
  r.packetLifeTimeSelector = 3;
  r.packetLifeTime = 18;
  r.sl = 9;
  r.flowLabel = 0xabcde;
  r.hopLimit = 0x7f;
  r.scope = 5;
  r.joinState = 0x9;
  r.proxyJoin = true;
  return r;
}

TEST(McMemberRecord, EveryFieldLibibmadNamesIsWhereLibibmadReadsIt) {
  std::array<std::uint8_t, 64> buf{};
  sample().encode(Bytes{buf.data()});
  std::array<std::uint8_t, 16> gid{};
  mad_get_array(buf.data(), 0, IB_SA_MCM_MGID_F, gid.data());
  EXPECT_EQ(formatGid(gid), "ff12:401b:8001::ffff:ffff");
  mad_get_array(buf.data(), 0, IB_SA_MCM_PORTGID_F, gid.data());
  EXPECT_EQ(gidGuid(gid), 0x0002c90300a1b2c3ULL);
  EXPECT_EQ(mad_get_field(buf.data(), 0, IB_SA_MCM_QKEY_F), 0x80010b1bU);
  EXPECT_EQ(mad_get_field(buf.data(), 0, IB_SA_MCM_MLID_F), 0xc012U);
  EXPECT_EQ(mad_get_field(buf.data(), 0, IB_SA_MCM_MTU_F), 5U);
  EXPECT_EQ(mad_get_field(buf.data(), 0, IB_SA_MCM_TCLASS_F), 0x40U);
  EXPECT_EQ(mad_get_field(buf.data(), 0, IB_SA_MCM_PKEY_F), 0x8001U);
  EXPECT_EQ(mad_get_field(buf.data(), 0, IB_SA_MCM_RATE_F), 7U);
  EXPECT_EQ(mad_get_field(buf.data(), 0, IB_SA_MCM_SL_F), 9U);
  EXPECT_EQ(mad_get_field(buf.data(), 0, IB_SA_MCM_FLOW_LABEL_F), 0xabcdeU);
  EXPECT_EQ(mad_get_field(buf.data(), 0, IB_SA_MCM_JOIN_STATE_F), 0x9U);
  EXPECT_EQ(mad_get_field(buf.data(), 0, IB_SA_MCM_PROXY_JOIN_F), 1U);
}

TEST(McMemberRecord, SelectorsHopLimitAndScopeSitWhereTheIbaPutsThem) {
  std::array<std::uint8_t, 64> buf{};
  sample().encode(Bytes{buf.data()});
  EXPECT_EQ(buf[38], 2 << 6 | 5);    // MTUSelector | MTU
  EXPECT_EQ(buf[42], 1 << 6 | 7);    // RateSelector | Rate
  EXPECT_EQ(buf[43], 3 << 6 | 18);   // PacketLifeTimeSelector | PacketLifeTime
  EXPECT_EQ(buf[47], 0x7f);          // HopLimit, after SL:4 | FlowLabel:20
  EXPECT_EQ(buf[48], 5 << 4 | 0x9);  // Scope | JoinState
  EXPECT_EQ(buf[49], 0x80);          // ProxyJoin, the high bit
}

TEST(McMemberRecord, DecodeReadsBackWhatEncodeWrote) {
  std::array<std::uint8_t, 64> buf{};
  const McMemberRecord r = sample();
  r.encode(Bytes{buf.data()});
  const McMemberRecord back = McMemberRecord::decode(Bytes{buf.data()});
  EXPECT_EQ(back.mgid, r.mgid);
  EXPECT_EQ(back.portGid, r.portGid);
  EXPECT_EQ(back.qkey, r.qkey);
  EXPECT_EQ(back.mlid, r.mlid);
  EXPECT_EQ(back.mtuSelector, r.mtuSelector);
  EXPECT_EQ(back.rate, r.rate);
  EXPECT_EQ(back.packetLifeTime, r.packetLifeTime);
  EXPECT_EQ(back.sl, r.sl);
  EXPECT_EQ(back.flowLabel, r.flowLabel);
  EXPECT_EQ(back.hopLimit, r.hopLimit);
  EXPECT_EQ(back.scope, r.scope);
  EXPECT_EQ(back.joinState, r.joinState);
  EXPECT_TRUE(back.proxyJoin);
}

TEST(McMemberRecord, GidsParseAsInet6TextAndZero) {
  EXPECT_EQ(parseGid("0").value(), Gid{});
  EXPECT_EQ(formatGid(parseGid("ff12:601b:ffff::1").value()), "ff12:601b:ffff::1");
  EXPECT_FALSE(parseGid("ff12:zz::1").has_value());
}

}  // namespace
}  // namespace ibsm::test::sa
