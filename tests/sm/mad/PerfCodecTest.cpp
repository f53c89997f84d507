// The Performance Management layouts against libibmad: the same values set
// with mad_set_field() on its IB_PC_*, IB_PC_EXT_* and IB_CPI_* fields must
// give the same 192 data bytes, and decoding those bytes the values back.
#include <gtest/gtest.h>
#include <infiniband/mad.h>

#include "sm/mad/PerfCounters.h"
#include "tests/sm/support/LibibmadBytes.h"

namespace ibsm {
namespace {

using Reference = testing::LibibmadBytes<kPerfDataSize>;

// Values all different and filling each field to (near) its width, so a
// field one bit off or swapped with its neighbour shows.
PortCounters busyPortCounters() {
  return PortCounters{.portSelect = 17,
                      .counterSelect = 0xA5C3,
                      .symbolErrorCounter = 0xFEDC,
                      .linkErrorRecoveryCounter = 0xB7,
                      .linkDownedCounter = 0x6E,
                      .portRcvErrors = 0x1234,
                      .portRcvRemotePhysicalErrors = 0x5678,
                      .portRcvSwitchRelayErrors = 0x9ABC,
                      .portXmitDiscards = 0xDEF0,
                      .portXmitConstraintErrors = 0x3C,
                      .portRcvConstraintErrors = 0xC3,
                      .counterSelect2 = 0x81,
                      .localLinkIntegrityErrors = 0xA,
                      .excessiveBufferOverrunErrors = 0x5,
                      .vl15Dropped = 0xCAFE,
                      .portXmitData = 0xF0E1D2C3,
                      .portRcvData = 0x0A1B2C3D,
                      .portXmitPkts = 0x89ABCDEF,
                      .portRcvPkts = 0x76543210,
                      .portXmitWait = 0xDEADBEEF};
}

Reference libibmadPortCounters(const PortCounters& v) {
  Reference ref;
  ref.set(IB_PC_PORT_SELECT_F, v.portSelect)
      .set(IB_PC_COUNTER_SELECT_F, v.counterSelect)
      .set(IB_PC_ERR_SYM_F, v.symbolErrorCounter)
      .set(IB_PC_LINK_RECOVERS_F, v.linkErrorRecoveryCounter)
      .set(IB_PC_LINK_DOWNED_F, v.linkDownedCounter)
      .set(IB_PC_ERR_RCV_F, v.portRcvErrors)
      .set(IB_PC_ERR_PHYSRCV_F, v.portRcvRemotePhysicalErrors)
      .set(IB_PC_ERR_SWITCH_REL_F, v.portRcvSwitchRelayErrors)
      .set(IB_PC_XMT_DISCARDS_F, v.portXmitDiscards)
      .set(IB_PC_ERR_XMTCONSTR_F, v.portXmitConstraintErrors)
      .set(IB_PC_ERR_RCVCONSTR_F, v.portRcvConstraintErrors)
      .set(IB_PC_COUNTER_SELECT2_F, v.counterSelect2)
      .set(IB_PC_ERR_LOCALINTEG_F, v.localLinkIntegrityErrors)
      .set(IB_PC_ERR_EXCESS_OVR_F, v.excessiveBufferOverrunErrors)
      .set(IB_PC_VL15_DROPPED_F, v.vl15Dropped)
      .set(IB_PC_XMT_BYTES_F, v.portXmitData)
      .set(IB_PC_RCV_BYTES_F, v.portRcvData)
      .set(IB_PC_XMT_PKTS_F, v.portXmitPkts)
      .set(IB_PC_RCV_PKTS_F, v.portRcvPkts)
      .set(IB_PC_XMT_WAIT_F, v.portXmitWait);
  return ref;
}

TEST(PortCountersLayout, MatchesLibibmadFieldByField) {
  const PortCounters v = busyPortCounters();
  const Reference ref = libibmadPortCounters(v);
  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodePortCounters(ref.bytes), v);
}

// Every counter stopped at all ones for its width, as a port reports a
// counter that has saturated; AllPortSelect as a switch's sum is asked.
TEST(PortCountersLayout, SaturatedCountersAndAllPortSelectMatchLibibmad) {
  const PortCounters v{.portSelect = kAllPortSelect,
                       .counterSelect = counterSelect::kAll,
                       .symbolErrorCounter = saturated(kSymbolErrorCounterBits),
                       .linkErrorRecoveryCounter = saturated(kLinkErrorRecoveryCounterBits),
                       .linkDownedCounter = saturated(kLinkDownedCounterBits),
                       .portRcvErrors = 0xFFFF,
                       .portRcvRemotePhysicalErrors = 0xFFFF,
                       .portRcvSwitchRelayErrors = 0xFFFF,
                       .portXmitDiscards = 0xFFFF,
                       .portXmitConstraintErrors = 0xFF,
                       .portRcvConstraintErrors = 0xFF,
                       .counterSelect2 = 0xFF,
                       .localLinkIntegrityErrors = saturated(kLocalLinkIntegrityErrorsBits),
                       .excessiveBufferOverrunErrors = 0xF,
                       .vl15Dropped = 0xFFFF,
                       .portXmitData = saturated(kDataCounterBits),
                       .portRcvData = 0xFFFFFFFF,
                       .portXmitPkts = 0xFFFFFFFF,
                       .portRcvPkts = 0xFFFFFFFF,
                       .portXmitWait = 0xFFFFFFFF};
  const Reference ref = libibmadPortCounters(v);
  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodePortCounters(ref.bytes), v);
  EXPECT_EQ(ref.bytes[1], 0xFF) << "PortSelect is the second byte";
}

TEST(PortCountersLayout, FourBitCountersDoNotSpillIntoTheirNeighbour) {
  PortCounters v;
  v.localLinkIntegrityErrors = 0xFF;  // 4 bits on the wire
  const PortCounters back = decodePortCounters(encode(v));
  EXPECT_EQ(back.localLinkIntegrityErrors, 0xF);
  EXPECT_EQ(back.excessiveBufferOverrunErrors, 0);
  EXPECT_EQ(back.counterSelect2, 0);
}

TEST(PortCountersExtendedLayout, MatchesLibibmadFieldByField) {
  const PortCountersExtended v{.portSelect = kAllPortSelect,
                               .counterSelect = 0x00FF,
                               .portXmitData = 0x0123456789ABCDEF,
                               .portRcvData = 0xFEDCBA9876543210,
                               .portXmitPkts = saturated(kExtendedCounterBits),
                               .portRcvPkts = 0x0000000100000002,
                               .portUnicastXmitPkts = 0x1111222233334444,
                               .portUnicastRcvPkts = 0x5555666677778888,
                               .portMulticastXmitPkts = 0x99990000AAAABBBB,
                               .portMulticastRcvPkts = 0xCCCCDDDDEEEEFFFF};
  Reference ref;
  ref.set(IB_PC_EXT_PORT_SELECT_F, v.portSelect)
      .set(IB_PC_EXT_COUNTER_SELECT_F, v.counterSelect)
      .set64(IB_PC_EXT_XMT_BYTES_F, v.portXmitData)
      .set64(IB_PC_EXT_RCV_BYTES_F, v.portRcvData)
      .set64(IB_PC_EXT_XMT_PKTS_F, v.portXmitPkts)
      .set64(IB_PC_EXT_RCV_PKTS_F, v.portRcvPkts)
      .set64(IB_PC_EXT_XMT_UPKTS_F, v.portUnicastXmitPkts)
      .set64(IB_PC_EXT_RCV_UPKTS_F, v.portUnicastRcvPkts)
      .set64(IB_PC_EXT_XMT_MPKTS_F, v.portMulticastXmitPkts)
      .set64(IB_PC_EXT_RCV_MPKTS_F, v.portMulticastRcvPkts);
  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodePortCountersExtended(ref.bytes), v);
}

TEST(PerfClassPortInfoLayout, MatchesLibibmadFieldByField) {
  const PerfClassPortInfo v{.baseVersion = 1,
                            .classVersion = kPerfClassVersion,
                            .capabilityMask = 0x9700,
                            .capabilityMask2 = 0x5A5A5A5,
                            .respTimeValue = 0x13};
  Reference ref;
  ref.set(IB_CPI_BASEVER_F, v.baseVersion)
      .set(IB_CPI_CLASSVER_F, v.classVersion)
      .set(IB_CPI_CAPMASK_F, v.capabilityMask)
      .set(IB_CPI_CAPMASK2_F, v.capabilityMask2)
      .set(IB_CPI_RESP_TIME_VALUE_F, v.respTimeValue);
  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodePerfClassPortInfo(ref.bytes), v);
}

// The bits as the kernel's PMA (rdma/ib_pma.h) and infiniband-diags test them.
TEST(PerfClassPortInfo, CapabilityBitsSayWhichAttributesAPortAnswers) {
  PerfClassPortInfo cpi;
  EXPECT_FALSE(cpi.has(perfCapability::kAllPortSelect));
  EXPECT_FALSE(cpi.hasPortCountersExtended());
  cpi.capabilityMask = 0x0100;
  EXPECT_TRUE(cpi.has(perfCapability::kAllPortSelect));
  cpi.capabilityMask = 0x0400;  // extended width, no IETF counters
  EXPECT_TRUE(cpi.hasPortCountersExtended());
  cpi.capabilityMask = 0x0200;
  EXPECT_TRUE(cpi.hasPortCountersExtended());
  cpi.capabilityMask = 0x1000;
  EXPECT_TRUE(cpi.has(perfCapability::kIsPortXmitWaitSupported));
}

// The common MAD header of a PerfMgt request, against libibmad's IB_MAD_*
// fields, and the data placed at byte 64 as its mad_get_field(.., IB_PC_*)
// read it from a whole MAD.
TEST(PerfMadLayout, HeaderMatchesLibibmadAndDataFollowsAtByte64) {
  PerfMad v{.method = perfMethod::kGetResp,
            .status = 0x001C,
            .classSpecific = 0xA5A5,
            .tid = 0x0123456789ABCDEF,
            .attributeId = perfAttr::kPortCounters,
            .attributeModifier = 0xDEADBEEF};
  v.data = encode(busyPortCounters());
  testing::LibibmadBytes<kPerfMadSize> ref;
  ref.set(IB_MAD_BASEVER_F, 1)
      .set(IB_MAD_MGMTCLASS_F, kPerfClass)
      .set(IB_MAD_CLASSVER_F, kPerfClassVersion)
      .set(IB_MAD_METHOD_F, perfMethod::kGetResp & 0x7F)
      .set(IB_MAD_RESPONSE_F, 1)
      .set(IB_MAD_STATUS_F, v.status)
      .set(IB_DRSMP_HOPCNT_F, 0xA5)  // class-specific, the SMP's hop fields
      .set(IB_DRSMP_HOPPTR_F, 0xA5)
      .set64(IB_MAD_TRID_F, v.tid)
      .set(IB_MAD_ATTRID_F, v.attributeId)
      .set(IB_MAD_ATTRMOD_F, v.attributeModifier);
  for (std::size_t i = 0; i < kPerfDataSize; ++i) ref.bytes[kPerfDataOffset + i] = v.data[i];
  EXPECT_EQ(encode(v), ref.bytes);
  ASSERT_TRUE(decodePerfMad(ref.bytes).has_value());
  EXPECT_EQ(*decodePerfMad(ref.bytes), v);
  EXPECT_EQ(mad_get_field(ref.bytes.data(), kPerfDataOffset, IB_PC_ERR_SYM_F),
            busyPortCounters().symbolErrorCounter);
}

TEST(PerfMadLayout, ACutMadIsNotDecoded) {
  const PerfMadBytes whole = encode(PerfMad{});
  EXPECT_FALSE(decodePerfMad(std::span(whole).first(kPerfMadSize - 1)).has_value());
}

TEST(CounterSelect, ErrorBitsAreTheTwelveBelowTheDataCounters) {
  EXPECT_EQ(counterSelect::kErrors, counterSelect::kVl15Dropped * 2 - 1);
  EXPECT_EQ(counterSelect::kErrors | counterSelect::kPortXmitData | counterSelect::kPortRcvData |
                counterSelect::kPortXmitPkts | counterSelect::kPortRcvPkts,
            counterSelect::kAll);
}

}  // namespace
}  // namespace ibsm
