// MCMemberRecord's layout (IBA 15.2.5.17) against libibmad, an independent
// encoder: the fields libibmad names (IB_SA_MCM_*) set with mad_set_field()
// give the same bytes as ours; the selectors, packet life, hop limit and
// scope, which it does not name, sit at the IBA's bit offsets. And each
// named component-mask bit is the component of that field.
#include <gtest/gtest.h>
#include <infiniband/mad.h>

#include <bit>

#include "sm/mad/BitField.h"
#include "sm/sa/Components.h"
#include "sm/sa/SaRecords.h"

namespace ibsm {
namespace {

McMemberRecord sample() {
  McMemberRecord r;
  r.mgid = makeGid(0xFF12401BFFFF0000ULL, Guid{0x00000000FFFFFFFFULL});
  r.portGid = makeGid(kDefaultSubnetPrefix, Guid{0x0002C90300A1B2C3ULL});
  r.qkey = 0x80010B1B;
  r.mlid = Lid{0xC012};
  r.mtuSelector = 2;
  r.mtu = 4;
  r.tClass = 0xA5;
  r.pkey = 0x8001;
  r.rateSelector = 1;
  r.rate = 16;
  r.packetLifeTimeSelector = 3;
  r.packetLifeTime = 0x12;
  r.sl = 0xD;
  r.flowLabel = 0xABCDE;
  r.hopLimit = 0x40;
  r.scope = 0x5;
  r.joinState = 0x9;
  r.proxyJoin = true;
  return r;
}

TEST(McMemberRecordLayout, MatchesLibibmadFieldByField) {
  const McMemberRecord r = sample();
  std::vector<std::uint8_t> ref(McMemberRecord::kSize, 0);
  mad_encode_field(ref.data(), IB_SA_MCM_MGID_F, const_cast<std::uint8_t*>(r.mgid.data()));
  mad_encode_field(ref.data(), IB_SA_MCM_PORTGID_F, const_cast<std::uint8_t*>(r.portGid.data()));
  mad_set_field(ref.data(), 0, IB_SA_MCM_QKEY_F, r.qkey);
  mad_set_field(ref.data(), 0, IB_SA_MCM_MLID_F, r.mlid.value);
  mad_set_field(ref.data(), 0, IB_SA_MCM_MTU_F, r.mtu);
  mad_set_field(ref.data(), 0, IB_SA_MCM_TCLASS_F, r.tClass);
  mad_set_field(ref.data(), 0, IB_SA_MCM_PKEY_F, r.pkey);
  mad_set_field(ref.data(), 0, IB_SA_MCM_RATE_F, r.rate);
  mad_set_field(ref.data(), 0, IB_SA_MCM_SL_F, r.sl);
  mad_set_field(ref.data(), 0, IB_SA_MCM_FLOW_LABEL_F, r.flowLabel);
  mad_set_field(ref.data(), 0, IB_SA_MCM_JOIN_STATE_F, r.joinState);
  mad_set_field(ref.data(), 0, IB_SA_MCM_PROXY_JOIN_F, 1);
  // Not named by libibmad: IBA 15.2.5.17's offsets.
  sm::mad::setBits(ref, 304, 2, r.mtuSelector);
  sm::mad::setBits(ref, 336, 2, r.rateSelector);
  sm::mad::setBits(ref, 344, 2, r.packetLifeTimeSelector);
  sm::mad::setBits(ref, 346, 6, r.packetLifeTime);
  sm::mad::setBits(ref, 376, 8, r.hopLimit);
  sm::mad::setBits(ref, 384, 4, r.scope);

  EXPECT_EQ(encodeRecord(r), ref);
  const auto back = decodeRecord<McMemberRecord>(ref);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, r);
  EXPECT_EQ(std::size_t{IB_SA_MCM_RECSZ} - 1, 52U) << "libibmad counts a byte more";
  EXPECT_FALSE(decodeRecord<McMemberRecord>(std::span(ref).first(51))) << "cut short";
  EXPECT_TRUE(decodeRecord<McMemberRecord>(std::span(ref).first(52))) << "padding may go";
}

TEST(McMemberRecordLayout, EachNamedMaskBitIsItsFieldsComponent) {
  using namespace sm::sa;
  const auto table = componentsOf(saAttr::kMcMemberRecord);
  ASSERT_EQ(table.size(), 19U);
  const auto bits = encodeRecord(sample());
  const auto valueOf = [&](std::uint64_t maskBit) {
    const auto c = table[static_cast<std::size_t>(std::countr_zero(maskBit))];
    return sm::mad::getBits(bits, c.bit, std::min<unsigned>(c.width, 64));
  };
  EXPECT_EQ(valueOf(mcmMask::kQKey), 0x80010B1BU);
  EXPECT_EQ(valueOf(mcmMask::kMlid), 0xC012U);
  EXPECT_EQ(valueOf(mcmMask::kMtuSelector), 2U);
  EXPECT_EQ(valueOf(mcmMask::kMtu), 4U);
  EXPECT_EQ(valueOf(mcmMask::kTClass), 0xA5U);
  EXPECT_EQ(valueOf(mcmMask::kPKey), 0x8001U);
  EXPECT_EQ(valueOf(mcmMask::kRateSelector), 1U);
  EXPECT_EQ(valueOf(mcmMask::kRate), 16U);
  EXPECT_EQ(valueOf(mcmMask::kLifeSelector), 3U);
  EXPECT_EQ(valueOf(mcmMask::kLife), 0x12U);
  EXPECT_EQ(valueOf(mcmMask::kSl), 0xDU);
  EXPECT_EQ(valueOf(mcmMask::kFlowLabel), 0xABCDEU);
  EXPECT_EQ(valueOf(mcmMask::kHopLimit), 0x40U);
  EXPECT_EQ(valueOf(mcmMask::kScope), 5U);
  EXPECT_EQ(valueOf(mcmMask::kJoinState), 9U);
  EXPECT_EQ(valueOf(mcmMask::kProxyJoin), 1U);
  EXPECT_EQ(table[0].width, 128);  // MGID
  EXPECT_EQ(table[1].bit, 128);    // PortGID
  EXPECT_EQ(recordSizeOf(saAttr::kMcMemberRecord), McMemberRecord::kSize);
}

}  // namespace
}  // namespace ibsm
