// Every SMP layout is checked against libibmad, an independent encoder:
// the same values set field by field with mad_set_field() must give the
// same 64 (or 256) bytes, and decoding those bytes must give the values back.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <ibsm/Mad.h>
#include <ibsm/MadAttributes.h>
#include <infiniband/mad.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "tests/sm/support/LibibmadBytes.h"

namespace ibsm {
namespace {

template <std::size_t N>
using Reference = testing::LibibmadBytes<N>;

TEST(NodeInfoLayout, MatchesLibibmadFieldByField) {
  NodeInfo v;
  v.baseVersion = 1;
  v.classVersion = 1;
  v.nodeType = NodeType::Switch;
  v.numPorts = 36;
  v.systemImageGuid = Guid{0x0002c90300a1b2c3};
  v.nodeGuid = Guid{0x0002c90300a1b2c4};
  v.portGuid = Guid{0x0002c90300a1b2c5};
  v.partitionCap = 0x1234;
  v.deviceId = 0xCB20;
  v.revision = 0xA1B2C3D4;
  v.localPortNum = 17;
  v.vendorId = 0x0002C9;

  Reference<64> ref;
  ref.set(IB_NODE_BASE_VERS_F, 1)
      .set(IB_NODE_CLASS_VERS_F, 1)
      .set(IB_NODE_TYPE_F, 2)
      .set(IB_NODE_NPORTS_F, 36)
      .set64(IB_NODE_SYSTEM_GUID_F, 0x0002c90300a1b2c3)
      .set64(IB_NODE_GUID_F, 0x0002c90300a1b2c4)
      .set64(IB_NODE_PORT_GUID_F, 0x0002c90300a1b2c5)
      .set(IB_NODE_PARTITION_CAP_F, 0x1234)
      .set(IB_NODE_DEVID_F, 0xCB20)
      .set(IB_NODE_REVISION_F, 0xA1B2C3D4)
      .set(IB_NODE_LOCAL_PORT_F, 17)
      .set(IB_NODE_VENDORID_F, 0x0002C9);

  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodeNodeInfo(ref.bytes), v);
}

// Values chosen to fill each field to (near) its width, all different, so a
// field placed one bit off or swapped with its neighbour shows.
PortInfo busyPortInfo() {
  PortInfo v;
  v.mKey = 0x0123456789ABCDEF;
  v.gidPrefix = 0xFE80000000000000;
  v.lid = Lid{0xBEEF};
  v.masterSmLid = Lid{0x0102};
  v.capabilityMask = 0x8251084A;
  v.diagCode = 0xD1A9;
  v.mKeyLeasePeriod = 0x7531;
  v.localPortNum = 33;
  v.linkWidthEnabled = 0x13;
  v.linkWidthSupported = 0x17;
  v.linkWidthActive = 0x02;
  v.linkSpeedSupported = 0x7;
  v.portState = PortState::Armed;
  v.physState = 0x5;
  v.linkDownDefaultState = 0x2;
  v.mKeyProtectBits = 0x3;
  v.lmc = 0x5;
  v.linkSpeedActive = 0x4;
  v.linkSpeedEnabled = 0xB;
  v.neighborMtu = 0x5;
  v.masterSmSl = 0xE;
  v.vlCap = 0x4;
  v.initType = 0x9;
  v.vlHighLimit = 0xA5;
  v.vlArbitrationHighCap = 0x08;
  v.vlArbitrationLowCap = 0x3F;
  v.initTypeReply = 0xC;
  v.mtuCap = 0x5;
  v.vlStallCount = 0x6;
  v.hoqLife = 0x13;
  v.operationalVls = 0x3;
  v.partitionEnforcementInbound = true;
  v.partitionEnforcementOutbound = false;
  v.filterRawInbound = true;
  v.filterRawOutbound = true;
  v.mKeyViolations = 0xFACE;
  v.pKeyViolations = 0x0BAD;
  v.qKeyViolations = 0xCAFE;
  v.guidCap = 0x80;
  v.clientReregister = true;
  v.multicastPKeyTrapSuppression = 0x2;
  v.subnetTimeout = 0x12;
  v.respTimeValue = 0x1B;
  v.localPhyErrors = 0xA;
  v.overrunErrors = 0x6;
  v.maxCreditHint = 0x4321;
  v.linkRoundTripLatency = 0xABCDEF;
  v.capabilityMask2 = 0x5A5A;
  v.linkSpeedExtActive = 0x2;
  v.linkSpeedExtSupported = 0xF;
  v.linkSpeedExtEnabled = 0x1E;
  return v;
}

TEST(PortInfoLayout, MatchesLibibmadFieldByField) {
  const PortInfo v = busyPortInfo();
  Reference<64> ref;
  ref.set64(IB_PORT_MKEY_F, v.mKey)
      .set64(IB_PORT_GID_PREFIX_F, v.gidPrefix)
      .set(IB_PORT_LID_F, v.lid.value)
      .set(IB_PORT_SMLID_F, v.masterSmLid.value)
      .set(IB_PORT_CAPMASK_F, v.capabilityMask)
      .set(IB_PORT_DIAG_F, v.diagCode)
      .set(IB_PORT_MKEY_LEASE_F, v.mKeyLeasePeriod)
      .set(IB_PORT_LOCAL_PORT_F, v.localPortNum)
      .set(IB_PORT_LINK_WIDTH_ENABLED_F, v.linkWidthEnabled)
      .set(IB_PORT_LINK_WIDTH_SUPPORTED_F, v.linkWidthSupported)
      .set(IB_PORT_LINK_WIDTH_ACTIVE_F, v.linkWidthActive)
      .set(IB_PORT_LINK_SPEED_SUPPORTED_F, v.linkSpeedSupported)
      .set(IB_PORT_STATE_F, 3)
      .set(IB_PORT_PHYS_STATE_F, v.physState)
      .set(IB_PORT_LINK_DOWN_DEF_F, v.linkDownDefaultState)
      .set(IB_PORT_MKEY_PROT_BITS_F, v.mKeyProtectBits)
      .set(IB_PORT_LMC_F, v.lmc)
      .set(IB_PORT_LINK_SPEED_ACTIVE_F, v.linkSpeedActive)
      .set(IB_PORT_LINK_SPEED_ENABLED_F, v.linkSpeedEnabled)
      .set(IB_PORT_NEIGHBOR_MTU_F, v.neighborMtu)
      .set(IB_PORT_SMSL_F, v.masterSmSl)
      .set(IB_PORT_VL_CAP_F, v.vlCap)
      .set(IB_PORT_INIT_TYPE_F, v.initType)
      .set(IB_PORT_VL_HIGH_LIMIT_F, v.vlHighLimit)
      .set(IB_PORT_VL_ARBITRATION_HIGH_CAP_F, v.vlArbitrationHighCap)
      .set(IB_PORT_VL_ARBITRATION_LOW_CAP_F, v.vlArbitrationLowCap)
      .set(IB_PORT_INIT_TYPE_REPLY_F, v.initTypeReply)
      .set(IB_PORT_MTU_CAP_F, v.mtuCap)
      .set(IB_PORT_VL_STALL_COUNT_F, v.vlStallCount)
      .set(IB_PORT_HOQ_LIFE_F, v.hoqLife)
      .set(IB_PORT_OPER_VLS_F, v.operationalVls)
      .set(IB_PORT_PART_EN_INB_F, 1)
      .set(IB_PORT_PART_EN_OUTB_F, 0)
      .set(IB_PORT_FILTER_RAW_INB_F, 1)
      .set(IB_PORT_FILTER_RAW_OUTB_F, 1)
      .set(IB_PORT_MKEY_VIOL_F, v.mKeyViolations)
      .set(IB_PORT_PKEY_VIOL_F, v.pKeyViolations)
      .set(IB_PORT_QKEY_VIOL_F, v.qKeyViolations)
      .set(IB_PORT_GUID_CAP_F, v.guidCap)
      .set(IB_PORT_CLIENT_REREG_F, 1)
      .set(IB_PORT_MCAST_PKEY_SUPR_ENAB_F, v.multicastPKeyTrapSuppression)
      .set(IB_PORT_SUBN_TIMEOUT_F, v.subnetTimeout)
      .set(IB_PORT_RESP_TIME_VAL_F, v.respTimeValue)
      .set(IB_PORT_LOCAL_PHYS_ERR_F, v.localPhyErrors)
      .set(IB_PORT_OVERRUN_ERR_F, v.overrunErrors)
      .set(IB_PORT_MAX_CREDIT_HINT_F, v.maxCreditHint)
      .set(IB_PORT_LINK_ROUND_TRIP_F, v.linkRoundTripLatency)
      .set(IB_PORT_CAPMASK2_F, v.capabilityMask2)
      .set(IB_PORT_LINK_SPEED_EXT_ACTIVE_F, v.linkSpeedExtActive)
      .set(IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, v.linkSpeedExtSupported)
      .set(IB_PORT_LINK_SPEED_EXT_ENABLED_F, v.linkSpeedExtEnabled);

  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodePortInfo(ref.bytes), v);
}

TEST(PortInfoLayout, ValuesWiderThanTheirFieldDoNotSpillIntoNeighbours) {
  PortInfo v;
  v.lmc = 0xFF;  // 3 bits on the wire
  const PortInfo back = decodePortInfo(encode(v));
  EXPECT_EQ(back.lmc, 0x7);
  EXPECT_EQ(back.mKeyProtectBits, 0);
  EXPECT_EQ(back.linkSpeedActive, 0);
}

TEST(SwitchInfoLayout, MatchesLibibmadFieldByField) {
  SwitchInfo v;
  v.linearFdbCap = 49152;
  v.randomFdbCap = 0x0102;
  v.multicastFdbCap = 0x1FFF;
  v.linearFdbTop = 0xBFFF;
  v.defaultPort = 0x21;
  v.defaultMulticastPrimaryPort = 0x22;
  v.defaultMulticastNotPrimaryPort = 0xFF;
  v.lifeTimeValue = 0x12;
  v.portStateChange = true;
  v.optimizedSlToVlMappingProgramming = 0x2;
  v.lidsPerPort = 0x0808;
  v.partitionEnforcementCap = 0x0020;
  v.inboundEnforcementCap = true;
  v.outboundEnforcementCap = false;
  v.filterRawInboundCap = true;
  v.filterRawOutboundCap = false;
  v.enhancedPort0 = true;
  v.multicastFdbTop = 0xC3FF;

  Reference<64> ref;
  ref.set(IB_SW_LINEAR_FDB_CAP_F, 49152)
      .set(IB_SW_RANDOM_FDB_CAP_F, 0x0102)
      .set(IB_SW_MCAST_FDB_CAP_F, 0x1FFF)
      .set(IB_SW_LINEAR_FDB_TOP_F, 0xBFFF)
      .set(IB_SW_DEF_PORT_F, 0x21)
      .set(IB_SW_DEF_MCAST_PRIM_F, 0x22)
      .set(IB_SW_DEF_MCAST_NOT_PRIM_F, 0xFF)
      .set(IB_SW_LIFE_TIME_F, 0x12)
      .set(IB_SW_STATE_CHANGE_F, 1)
      .set(IB_SW_OPT_SLTOVL_MAPPING_F, 0x2)
      .set(IB_SW_LIDS_PER_PORT_F, 0x0808)
      .set(IB_SW_PARTITION_ENFORCE_CAP_F, 0x0020)
      .set(IB_SW_PARTITION_ENF_INB_F, 1)
      .set(IB_SW_PARTITION_ENF_OUTB_F, 0)
      .set(IB_SW_FILTER_RAW_INB_F, 1)
      .set(IB_SW_FILTER_RAW_OUTB_F, 0)
      .set(IB_SW_ENHANCED_PORT0_F, 1)
      .set(IB_SW_MCAST_FDB_TOP_F, 0xC3FF);

  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodeSwitchInfo(ref.bytes), v);
}

TEST(SmInfoLayout, MatchesLibibmadFieldByField) {
  SmInfo v{.guid = Guid{0x0002c90300001234},
           .smKey = 0x1122334455667788,
           .actCount = 0xDEADBEEF,
           .priority = 0xD,
           .smState = SmState::Master};
  Reference<64> ref;
  ref.set64(IB_SMINFO_GUID_F, 0x0002c90300001234)
      .set64(IB_SMINFO_KEY_F, 0x1122334455667788)
      .set(IB_SMINFO_ACT_F, 0xDEADBEEF)
      .set(IB_SMINFO_PRIO_F, 0xD)
      .set(IB_SMINFO_STATE_F, 3);
  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodeSmInfo(ref.bytes), v);
}

TEST(NodeDescriptionLayout, IsTheTextPaddedWithNuls) {
  const std::string text = "leaf07 HCA-1 mlx5_0";
  char raw[64] = {};
  std::memcpy(raw, text.data(), text.size());
  Reference<64> ref;
  ref.array(IB_NODE_DESC_F, raw);
  EXPECT_EQ(encode(NodeDescription{text}), ref.bytes);
  EXPECT_EQ(decodeNodeDescription(ref.bytes).text, text);
}

TEST(NodeDescriptionLayout, KeepsAll64BytesWhenThereIsNoNul) {
  const std::string text(64, 'x');
  EXPECT_EQ(decodeNodeDescription(encode(NodeDescription{text})).text, text);
  EXPECT_EQ(decodeNodeDescription(encode(NodeDescription{text + "tail"})).text, text);
}

TEST(LinearForwardingTableLayout, IsOnePortPerLid) {
  LftBlock v;
  for (std::size_t i = 0; i < 64; ++i) v.ports[i] = static_cast<std::uint8_t>(i * 3 + 1);
  Reference<64> ref;
  ref.array(IB_LINEAR_FORW_TBL_F, v.ports.data());
  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodeLftBlock(ref.bytes), v);
  EXPECT_EQ(lftModifier(767), 767U);
}

TEST(MulticastForwardingTableLayout, Is32BigEndianPortMasksOnePerMlid) {
  MftBlock v;
  for (std::size_t i = 0; i < kMftBlockSize; ++i)
    v.masks[i] = static_cast<std::uint16_t>((i * 0x0901) ^ 0x8001);
  // libibmad carries the table as one 512-bit array; its users (OpenSM,
  // ibsim, ibroute -M) read each MLID's mask as a network-order uint16,
  // bit j = port 16*position + j.
  std::array<std::uint8_t, 64> raw{};
  for (std::size_t i = 0; i < kMftBlockSize; ++i) {
    const std::uint16_t be = htons(v.masks[i]);
    std::memcpy(raw.data() + 2 * i, &be, 2);
  }
  Reference<64> ref;
  ref.array(IB_MULTICAST_FORW_TBL_F, raw.data());
  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodeMftBlock(ref.bytes), v);
  MftBlock port17;
  port17.masks[3] = 1U << 1;  // MLID 32*block+3, port 16*1 + 1 in position 1
  EXPECT_EQ(encode(port17)[6], 0x00);
  EXPECT_EQ(encode(port17)[7], 0x02);
}

TEST(MulticastForwardingTableLayout, ModifierIsBlockLowAndPositionHigh) {
  // ibsim: position = mod >> 28, block = mod & 0x1ff.
  EXPECT_EQ(mftModifier(0, 0), 0U);
  EXPECT_EQ(mftModifier(511, 2), 0x200001FFU);
  EXPECT_EQ(mftModifier(3, 15), 0xF0000003U);
  EXPECT_EQ(mftPositions(8), 1);   // ports 0..8
  EXPECT_EQ(mftPositions(15), 1);  // ports 0..15
  EXPECT_EQ(mftPositions(16), 2);  // port 16 is in position 1
  EXPECT_EQ(mftPositions(36), 3);
}

TEST(PKeyTableLayout, Is32BigEndianEntries) {
  PKeyBlock v;
  for (std::size_t i = 0; i < 32; ++i) v.pkeys[i] = static_cast<std::uint16_t>(0x8000 | (i * 257));
  // libibmad has no P_Key field enum; its users copy network-order uint16s.
  SmpData expected{};
  for (std::size_t i = 0; i < 32; ++i) {
    const std::uint16_t be = htons(v.pkeys[i]);
    std::memcpy(expected.data() + 2 * i, &be, 2);
  }
  EXPECT_EQ(encode(v), expected);
  EXPECT_EQ(decodePKeyBlock(expected), v);
  EXPECT_EQ(pkeyModifier(2, 5), 0x00050002U);
}

TEST(SlToVlLayout, PacksTwoSlsPerByteHighNibbleFirst) {
  SlToVlTable v;
  for (std::size_t sl = 0; sl < 16; ++sl) v.vl[sl] = static_cast<std::uint8_t>((sl * 7) % 15);
  // libibmad takes this 64-bit field as one number: SL0 is its top nibble.
  std::uint64_t packed = 0;
  for (std::size_t sl = 0; sl < 16; ++sl) packed = (packed << 4) | v.vl[sl];
  Reference<64> ref;
  ref.set64(IB_SLTOVL_MAPPING_TABLE_F, packed);
  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodeSlToVlTable(ref.bytes), v);
  EXPECT_EQ(slToVlModifier(3, 7), 0x0307U);
}

TEST(VlArbitrationLayout, ReadsAsLibibmadDumpsIt) {
  VlArbitrationBlock v;
  for (std::size_t i = 0; i < v.entries.size(); ++i) {
    v.entries[i].vl = static_cast<std::uint8_t>(i % 15);
    v.entries[i].weight = static_cast<std::uint8_t>(0xF0 - i);
  }
  const SmpData bytes = encode(v);
  // libibmad's own reading of the block (what smpquery vlarb prints).
  std::array<char, 1024> text{};
  mad_dump_vlarbitration(text.data(), static_cast<int>(text.size()),
                         const_cast<std::uint8_t*>(bytes.data()), 64);
  std::string vls = "\nVL    : |";
  std::string weights = "\nWEIGHT: |";
  for (const auto& e : v.entries) {
    vls += fmt::format("0x{:<2X}|", e.vl);
    weights += fmt::format("0x{:<2X}|", e.weight);
  }
  EXPECT_EQ(std::string(text.data()).substr(0, vls.size() + weights.size()), vls + weights);
  EXPECT_EQ(bytes[0], 0x00) << "4 reserved bits, then the VL";
  EXPECT_EQ(bytes[3], 0xEF);
  EXPECT_EQ(decodeVlArbitrationBlock(bytes), v);
  EXPECT_EQ(vlArbitrationModifier(vlArbBlock::kHighFirst, 7), 0x00030007U);
}

TEST(NoticeLayout, Trap128MatchesLibibmad) {
  Notice v;
  v.isGeneric = true;
  v.type = 1;          // urgent
  v.producerType = 2;  // switch
  v.trapNumber = 128;
  v.issuerLid = Lid{0x0042};
  v.toggle = true;
  v.count = 0x1234;
  v.dataDetails = encodeDetails(Trap128Details{Lid{0x0042}});

  Reference<64> ref;
  ref.set(IB_NOTICE_IS_GENERIC_F, 1)
      .set(IB_NOTICE_TYPE_F, 1)
      .set(IB_NOTICE_PRODUCER_F, 2)
      .set(IB_NOTICE_TRAP_NUMBER_F, 128)
      .set(IB_NOTICE_ISSUER_LID_F, 0x42)
      // libibmad's count field is 16 bits wide and overlaps the toggle
      // bit, so the toggle is written after it.
      .set(IB_NOTICE_COUNT_F, 0x1234)
      .set(IB_NOTICE_TOGGLE_F, 1)
      .set(IB_NOTICE_DATA_LID_F, 0x42);

  EXPECT_EQ(encode(v), ref.bytes);
  const Notice back = decodeNotice(ref.bytes);
  EXPECT_EQ(back, v);
  EXPECT_EQ(decodeTrap128(back).lid, Lid{0x42});
}

TEST(NoticeLayout, Trap144CarriesLidAndCapabilityMaskWhereLibibmadPutsThem) {
  Notice v;
  v.type = 4;
  v.producerType = 1;
  v.trapNumber = 144;
  v.issuerLid = Lid{7};
  Trap144Details details{.lid = Lid{7},
                         .otherLocalChanges = true,
                         .capabilityMask = 0x02510868,
                         .changeFlags = 0x0007,
                         .capabilityMask2 = 0x0010};
  v.dataDetails = encodeDetails(details);

  Reference<64> ref;
  ref.set(IB_NOTICE_IS_GENERIC_F, 1)
      .set(IB_NOTICE_TYPE_F, 4)
      .set(IB_NOTICE_PRODUCER_F, 1)
      .set(IB_NOTICE_TRAP_NUMBER_F, 144)
      .set(IB_NOTICE_ISSUER_LID_F, 7)
      .set(IB_NOTICE_DATA_144_LID_F, 7)
      .set(IB_NOTICE_DATA_144_CAPMASK_F, 0x02510868);
  // The flags libibmad has no enum for: OtherLocalChanges is the low bit of
  // details byte 5; ChangeFlags follow CapabilityMask in details bytes 10-11
  // and CapabilityMask2 in 12-13 (where OpenSM and the kernel read them).
  ref.bytes[10 + 5] = 0x01;
  ref.bytes[10 + 11] = 0x07;
  ref.bytes[10 + 13] = 0x10;

  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodeTrap144(decodeNotice(ref.bytes)), details);
}

// libibmad has no fields for trap 256's details beyond the Notice header;
// the details follow Linux's packed ntc_256 (qib_mad.h, ib_mad_notice_attr)
// and OpenSM's layout: LID at details byte 2, DrSLID 4, Method 6,
// AttributeID 8, AttributeModifier 10, M_Key 14, DR flags and hop count 23.
TEST(NoticeLayout, Trap256CarriesTheOffendingSmpWhereLinuxPutsIt) {
  Notice v;
  v.type = 2;  // security
  v.producerType = 2;
  v.trapNumber = 256;
  v.issuerLid = Lid{0x0012};
  const Trap256Details details{.lid = Lid{0x0012},
                               .drSlid = Lid{0xFFFF},
                               .method = Method::Set,
                               .attributeId = AttributeId::LinearForwardingTable,
                               .attributeModifier = 0x01020304,
                               .mKey = 0x1122334455667788,
                               .drNotice = true,
                               .drPathTruncated = false,
                               .drHopCount = 3};
  v.dataDetails = encodeDetails(details);

  Reference<64> ref;
  ref.set(IB_NOTICE_IS_GENERIC_F, 1)
      .set(IB_NOTICE_TYPE_F, 2)
      .set(IB_NOTICE_PRODUCER_F, 2)
      .set(IB_NOTICE_TRAP_NUMBER_F, 256)
      .set(IB_NOTICE_ISSUER_LID_F, 0x12);
  const std::array<std::uint8_t, 24> detailBytes{
      0x00, 0x00, 0x00, 0x12,                          // reserved, LID
      0xFF, 0xFF, 0x02, 0x00, 0x00, 0x19,              // DrSLID, Method, reserved, AttributeID
      0x01, 0x02, 0x03, 0x04,                          // AttributeModifier
      0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,  // M_Key
      0x00, 0x83};                                     // reserved, DRNotice | hop count 3
  std::ranges::copy(detailBytes, ref.bytes.begin() + 10);

  EXPECT_EQ(encode(v), ref.bytes);
  EXPECT_EQ(decodeTrap256(decodeNotice(ref.bytes)), details);
}

TEST(SmpHeaderLayout, DirectedRouteMatchesLibibmad) {
  const DrPath path = *DrPath::fromPorts(std::vector<std::uint8_t>{1, 3, 17});
  Smp smp = Smp::directed(Method::Get, AttributeId::PortInfo, 0x11, path);
  smp.header.tid = 0x0000002A12345678;
  smp.header.mKey = 0x0102030405060708;
  smp.header.hopPointer = 2;
  smp.header.direction = true;
  smp.header.status = madstatus::kInvalidField;
  smp.data[0] = 0xAB;
  smp.returnPath[2] = 9;

  Reference<256> ref;
  ref.set(IB_MAD_BASEVER_F, 1)
      .set(IB_MAD_MGMTCLASS_F, 0x81)
      .set(IB_MAD_CLASSVER_F, 1)
      .set(IB_MAD_METHOD_F, 0x01)
      .set(IB_DRSMP_STATUS_F, madstatus::kInvalidField)  // 16 bits including D
      .set(IB_DRSMP_DIRECTION_F, 1)
      .set(IB_DRSMP_HOPPTR_F, 2)
      .set(IB_DRSMP_HOPCNT_F, 3)
      .set64(IB_MAD_TRID_F, 0x0000002A12345678)
      .set(IB_MAD_ATTRID_F, 0x15)
      .set(IB_MAD_ATTRMOD_F, 0x11)
      .set64(IB_MAD_MKEY_F, 0x0102030405060708)
      .set(IB_DRSMP_DRSLID_F, 0xFFFF)
      .set(IB_DRSMP_DRDLID_F, 0xFFFF);
  std::uint8_t initial[64] = {0, 1, 3, 17};
  std::uint8_t ret[64] = {0, 0, 9};
  mad_set_array(ref.bytes.data(), 0, IB_DRSMP_PATH_F, initial);
  mad_set_array(ref.bytes.data(), 0, IB_DRSMP_RPATH_F, ret);
  ref.bytes[64] = 0xAB;

  EXPECT_EQ(encodeSmp(smp), ref.bytes);
  auto back = decodeSmp(ref.bytes);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, smp);
  EXPECT_TRUE(back->isDirected());
}

TEST(SmpHeaderLayout, LidRoutedMatchesLibibmadAndLeavesDrFieldsZero) {
  Smp smp = Smp::lidRouted(Method::Set, AttributeId::LinearForwardingTable, 5);
  smp.header.tid = 77;
  smp.header.status = madstatus::kBusy;

  Reference<256> ref;
  ref.set(IB_MAD_BASEVER_F, 1)
      .set(IB_MAD_MGMTCLASS_F, 0x01)
      .set(IB_MAD_CLASSVER_F, 1)
      .set(IB_MAD_METHOD_F, 0x02)
      .set(IB_MAD_STATUS_F, madstatus::kBusy)
      .set64(IB_MAD_TRID_F, 77)
      .set(IB_MAD_ATTRID_F, 0x19)
      .set(IB_MAD_ATTRMOD_F, 5);

  EXPECT_EQ(encodeSmp(smp), ref.bytes);
  EXPECT_EQ(*decodeSmp(ref.bytes), smp);
}

TEST(SmpHeaderLayout, ResponseMethodCarriesTheResponseBit) {
  Smp smp = Smp::lidRouted(Method::GetResp, AttributeId::SmInfo, 0);
  MadBuffer wire = encodeSmp(smp);
  EXPECT_EQ(mad_get_field(wire.data(), 0, IB_MAD_RESPONSE_F), 1U);
  EXPECT_EQ(mad_get_field(wire.data(), 0, IB_MAD_METHOD_F), 0x01U);
  EXPECT_TRUE(isResponse(decodeSmp(wire)->header.method));
  EXPECT_FALSE(isResponse(Method::TrapRepress));
}

TEST(SmpDecoding, RejectsWhatIsNotAnSmp) {
  MadBuffer mad = encodeSmp(Smp::lidRouted(Method::Get, AttributeId::NodeInfo, 0));
  EXPECT_FALSE(decodeSmp(std::span(mad).first(100)));

  MadBuffer badVersion = mad;
  badVersion[0] = 2;
  auto v = decodeSmp(badVersion);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("base version 2"), std::string::npos);

  MadBuffer saClass = mad;
  saClass[1] = 0x03;
  auto c = decodeSmp(saClass);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("0x03"), std::string::npos);
}

TEST(MadStatus, IsDescribedForOperators) {
  EXPECT_EQ(describeMadStatus(0), "success");
  EXPECT_EQ(describeMadStatus(madstatus::kBusy), "busy (0x0001)");
  EXPECT_EQ(describeMadStatus(madstatus::kMethodAttrUnsupported),
            "method/attribute combination unsupported (0x000c)");
  EXPECT_EQ(describeMadStatus(madstatus::kInvalidField),
            "invalid field in attribute or modifier (0x001c)");
}

}  // namespace
}  // namespace ibsm
