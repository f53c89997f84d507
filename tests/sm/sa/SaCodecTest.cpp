// The SA MAD and its records, checked against libibmad, an independent
// encoder: the same values set field by field with mad_set_field() give the
// same bytes, and decoding those bytes gives the values back. Where
// libibmad names no field (most records past NodeRecord), the embedded SMP
// attribute is checked against its own encoding and the record's fields at
// the byte offsets of IBA 15.2.5.
#include <gtest/gtest.h>
#include <infiniband/mad.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "sm/sa/SaMad.h"
#include "sm/sa/SaRecords.h"

namespace ibsm {
namespace {

// A libibmad-built buffer, filled one field at a time.
struct Reference {
  std::vector<std::uint8_t> bytes;
  explicit Reference(std::size_t size) : bytes(size, 0) {}
  Reference& set(MAD_FIELDS f, std::uint32_t v) {
    mad_set_field(bytes.data(), 0, f, v);
    return *this;
  }
  Reference& set64(MAD_FIELDS f, std::uint64_t v) {
    mad_set_field64(bytes.data(), 0, f, v);
    return *this;
  }
  Reference& array(MAD_FIELDS f, const void* data) {
    mad_encode_field(bytes.data(), f, const_cast<void*>(data));
    return *this;
  }
};

Gid gidOf(std::uint64_t prefix, std::uint64_t guid) {
  return makeGid(prefix, Guid{guid});
}

TEST(SaMadLayout, HeadersMatchLibibmadFieldByField) {
  SaMad mad;
  mad.header.method = saMethod::kGetTableResp;
  mad.header.status = saStatus::kNoRecords | saStatus::kInvalidField;
  mad.header.tid = 0x0123456789ABCDEF;
  mad.header.attributeId = saAttr::kPathRecord;
  mad.header.attributeModifier = 0xA1B2C3D4;
  mad.header.rmpp = {.version = 1,
                     .type = rmpp::kTypeData,
                     .respTime = 0x13,
                     .flags = rmpp::kFlagActive | rmpp::kFlagLast,
                     .status = 0x42,
                     .segmentNumber = 0x01020304,
                     .payloadLength = 0x00000520};
  mad.header.smKey = 0x1122334455667788;
  mad.header.attributeOffset = 8;
  mad.header.componentMask = 0x8000000000000031;
  mad.data = {0xDE, 0xAD};

  Reference ref(256);
  ref.set(IB_MAD_BASEVER_F, 1)
      .set(IB_MAD_MGMTCLASS_F, 3)
      .set(IB_MAD_CLASSVER_F, 2)
      .set(IB_MAD_RESPONSE_F, 1)
      .set(IB_MAD_METHOD_F, 0x12)
      .set(IB_MAD_STATUS_F, 0x031C)
      .set64(IB_MAD_TRID_F, 0x0123456789ABCDEF)
      .set(IB_MAD_ATTRID_F, 0x35)
      .set(IB_MAD_ATTRMOD_F, 0xA1B2C3D4)
      .set(IB_SA_RMPP_VERS_F, 1)
      .set(IB_SA_RMPP_TYPE_F, 1)
      .set(IB_SA_RMPP_RESP_F, 0x13)
      .set(IB_SA_RMPP_FLAGS_F, 5)
      .set(IB_SA_RMPP_STATUS_F, 0x42)
      .set(IB_SA_RMPP_SEGNUM_F, 0x01020304)
      .set(IB_SA_RMPP_LEN_F, 0x520)
      .set64(IB_SA_MKEY_F, 0x1122334455667788)
      .set(IB_SA_ATTROFFS_F, 8)
      .set64(IB_SA_COMPMASK_F, 0x8000000000000031);
  ref.bytes[IB_SA_DATA_OFFS] = 0xDE;
  ref.bytes[IB_SA_DATA_OFFS + 1] = 0xAD;

  // An RMPP MAD is as long as its payload (a one-segment GetTableResp is
  // counted by its length); libibmad's buffer is a whole MAD, zero past it.
  const auto wire = encodeSaMad(mad);
  ASSERT_EQ(wire.size(), std::size_t{IB_SA_DATA_OFFS} + mad.data.size());
  EXPECT_TRUE(std::equal(wire.begin(), wire.end(), ref.bytes.begin()));
  EXPECT_TRUE(std::all_of(ref.bytes.begin() + static_cast<std::ptrdiff_t>(wire.size()),
                          ref.bytes.end(), [](std::uint8_t b) { return b == 0; }));
  auto back = decodeSaMad(ref.bytes);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->header, mad.header);
  EXPECT_EQ(back->data.size(), kSaDataSize);
  EXPECT_EQ(back->data[1], 0xAD);
}

TEST(SaMadLayout, AnAnswerLongerThanOneMadKeepsAllItsData) {
  SaMad mad;
  mad.data.assign(1000, 0x5A);
  const auto wire = encodeSaMad(mad);
  EXPECT_EQ(wire.size(), kSaHeaderSize + 1000);
  EXPECT_EQ(wire.back(), 0x5A);
}

TEST(SaMadRefusal, AMadShorterThanTheCommonHeaderIsNotEvenEchoed) {
  const std::vector<std::uint8_t> shortMad(20, 0);
  auto mad = decodeSaMad(shortMad);
  ASSERT_FALSE(mad);
  EXPECT_FALSE(mad.error().headerRead);
}

TEST(SaMadRefusal, AMadCutInsideTheSaHeaderIsAnInvalidFieldWithItsTidKept) {
  SaMad request;
  request.header.tid = 77;
  auto wire = encodeSaMad(request);
  wire.resize(40);
  auto mad = decodeSaMad(wire);
  ASSERT_FALSE(mad);
  EXPECT_TRUE(mad.error().headerRead);
  EXPECT_EQ(mad.error().status, saStatus::kInvalidField);
  EXPECT_EQ(mad.error().header.tid, 77U);
}

TEST(SaMadRefusal, WrongBaseVersionClassOrClassVersionIsBadVersion) {
  for (const auto& [byte, value] : {std::pair{0, 2}, std::pair{1, 0x81}, std::pair{2, 1}}) {
    auto wire = encodeSaMad(SaMad{});
    wire[static_cast<std::size_t>(byte)] = static_cast<std::uint8_t>(value);
    auto mad = decodeSaMad(wire);
    ASSERT_FALSE(mad) << "byte " << byte;
    EXPECT_EQ(mad.error().status, saStatus::kBadVersion) << "byte " << byte;
  }
}

TEST(SaMadRefusal, AnAttributeOffsetPastTheDataIsAnInvalidField) {
  SaMad request;
  request.header.attributeOffset = 26;  // 208 bytes > the 200 of one MAD
  auto mad = decodeSaMad(encodeSaMad(request));
  ASSERT_FALSE(mad);
  EXPECT_EQ(mad.error().status, saStatus::kInvalidField);
}

TEST(SaStatusCodes, AreTheIbaValues) {
  EXPECT_EQ(saStatus::kBadVersion, IB_MAD_STS_BAD_BASE_VER_OR_CLASS);
  EXPECT_EQ(saStatus::kMethodUnsupported, IB_MAD_STS_METHOD_NOT_SUPPORTED);
  EXPECT_EQ(saStatus::kMethodAttrUnsupported, IB_MAD_STS_METHOD_ATTR_NOT_SUPPORTED);
  EXPECT_EQ(saStatus::kInvalidField, IB_MAD_STS_INV_ATTR_VALUE);
  EXPECT_EQ(saStatus::kNoRecords, 0x0300);
  EXPECT_EQ(saStatus::kReqInsufficientComponents, 0x0600);
  EXPECT_EQ(saMethod::kGetTableResp, IB_MAD_METHOD_GET_TABLE_RESPONSE);
  EXPECT_EQ(saMethod::kGetMulti, IB_MAD_METHOD_GETMULTI);
  EXPECT_EQ(saMethod::kDeleteResp, IB_MAD_METHOD_DELETE_RESPONSE);
  EXPECT_EQ(saAttr::kMultiPathRecord, IB_SA_ATTR_MULTIPATH);
  EXPECT_EQ(saAttr::kInformInfoRecord, IB_SA_ATTR_INFORMINFORECORD);
}

TEST(NodeRecordLayout, MatchesLibibmadFieldByField) {
  NodeRecord r;
  r.lid = Lid{0x1234};
  r.nodeInfo = {.baseVersion = 1,
                .classVersion = 1,
                .nodeType = NodeType::Switch,
                .numPorts = 36,
                .systemImageGuid = Guid{0x0002c90300a1b2c3},
                .nodeGuid = Guid{0x0002c90300a1b2c4},
                .portGuid = Guid{0x0002c90300a1b2c5},
                .partitionCap = 0x1234,
                .deviceId = 0xCB20,
                .revision = 0xA1B2C3D4,
                .localPortNum = 17,
                .vendorId = 0x0002C9};
  r.nodeDescription.text = "leaf0 switch";

  char desc[64] = "leaf0 switch";
  Reference ref(NodeRecord::kSize);
  ref.set(IB_SA_NR_LID_F, 0x1234)
      .set(IB_SA_NR_BASEVER_F, 1)
      .set(IB_SA_NR_CLASSVER_F, 1)
      .set(IB_SA_NR_TYPE_F, 2)
      .set(IB_SA_NR_NPORTS_F, 36)
      .set64(IB_SA_NR_SYSTEM_GUID_F, 0x0002c90300a1b2c3)
      .set64(IB_SA_NR_GUID_F, 0x0002c90300a1b2c4)
      .set64(IB_SA_NR_PORT_GUID_F, 0x0002c90300a1b2c5)
      .set(IB_SA_NR_PARTITION_CAP_F, 0x1234)
      .set(IB_SA_NR_DEVID_F, 0xCB20)
      .set(IB_SA_NR_REVISION_F, 0xA1B2C3D4)
      .set(IB_SA_NR_LOCAL_PORT_F, 17)
      .set(IB_SA_NR_VENDORID_F, 0x0002C9)
      .array(IB_SA_NR_NODEDESC_F, desc);

  EXPECT_EQ(encodeRecord(r), ref.bytes);
  auto back = decodeRecord<NodeRecord>(ref.bytes);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, r);
}

TEST(PathRecordLayout, MatchesLibibmadWhereItNamesTheFields) {
  PathRecord r;
  r.dgid = gidOf(0xFE80000000000000, 0x0002c90300000011);
  r.sgid = gidOf(0xFE80000000000000, 0x0002c90300000022);
  r.dlid = Lid{0x0102};
  r.slid = Lid{0x0304};
  r.numbPath = 0x7F;
  r.sl = 0xA;

  Reference ref(PathRecord::kSize);
  ref.array(IB_SA_PR_DGID_F, r.dgid.data())
      .array(IB_SA_PR_SGID_F, r.sgid.data())
      .set(IB_SA_PR_DLID_F, 0x0102)
      .set(IB_SA_PR_SLID_F, 0x0304)
      .set(IB_SA_PR_NPATH_F, 0x7F)
      .set(IB_SA_PR_SL_F, 0xA);
  EXPECT_EQ(encodeRecord(r), ref.bytes);
}

TEST(MultiPathRecordLayout, MatchesLibibmadWhereItNamesTheFieldsAndGidsFollowTheRecord) {
  MultiPathRecord r;
  r.numbPath = 0x55;
  r.sgids = {gidOf(0xFE80000000000000, 0x0002c90300000011)};
  r.dgids = {gidOf(0xFE80000000000000, 0x0002c90300000022),
             gidOf(0xFE80000000000000, 0x0002c90300000033)};

  Reference ref(MultiPathRecord::kSize + 3 * 16);
  ref.set(IB_SA_MP_NPATH_F, 0x55).set(IB_SA_MP_NSRC_F, 1).set(IB_SA_MP_NDEST_F, 2);
  ref.array(IB_SA_MP_GID0_F, r.sgids[0].data());
  std::ranges::copy(r.dgids[0], ref.bytes.begin() + 40);
  std::ranges::copy(r.dgids[1], ref.bytes.begin() + 56);
  EXPECT_EQ(encodeRecord(r), ref.bytes);
  EXPECT_EQ(decodeRecord<MultiPathRecord>(ref.bytes), r);
}

// IBA 15.2.5.20's other fields, from a record with every field filled.
TEST(MultiPathRecordLayout, PutsTheOtherFieldsWhereTheSpecDrawsThem) {
  MultiPathRecord r;
  r.rawTraffic = true;
  r.flowLabel = 0xABCDE;
  r.hopLimit = 0x40;
  r.tClass = 0x81;
  r.reversible = true;
  r.numbPath = 3;
  r.pkey = 0xFFFF;
  r.qosClass = 0x123;
  r.sl = 5;
  r.mtuSelector = selector::kExactly;
  r.mtu = 5;
  r.rateSelector = selector::kExactly;
  r.rate = 16;
  r.packetLifeTimeSelector = selector::kExactly;
  r.packetLifeTime = 0x12;
  r.serviceIdMsb = 0x11;
  r.independenceSelector = 2;
  r.serviceIdLsb = 0x22334455667788;
  const auto bytes = encodeRecord(r);
  EXPECT_EQ(bytes, (std::vector<std::uint8_t>{0x8A, 0xBC, 0xDE, 0x40, 0x81, 0x83, 0xFF, 0xFF,
                                              0x12, 0x35, 0x85, 0x90, 0x92, 0x11, 0x80, 0x00,
                                              0x00, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}));
  EXPECT_EQ(decodeRecord<MultiPathRecord>(bytes), r);
}

TEST(MultiPathRecordLayout, GidsPastTheBytesAreRefused) {
  MultiPathRecord r;
  r.sgids.resize(2);
  r.dgids.resize(1);
  auto bytes = encodeRecord(r);
  EXPECT_TRUE(decodeRecord<MultiPathRecord>(bytes));
  bytes.pop_back();
  EXPECT_FALSE(decodeRecord<MultiPathRecord>(bytes));
  EXPECT_FALSE(decodeRecord<MultiPathRecord>(std::span(bytes).first(23)));
}

// libibmad names no field of it: IBA 15.2.5.9's offsets (OpenSM's
// ib_vl_arb_table_record_t), the block as the SMP carries it.
TEST(VlArbitrationTableRecordLayout, IsLidPortBlockThenTheSmpBlockAtByte8) {
  VlArbitrationTableRecord r;
  r.lid = Lid{0x0102};
  r.outputPort = 7;
  r.block = vlArbBlock::kLowSecond;
  r.table.entries[0] = {.vl = 3, .weight = 0x40};
  r.table.entries[31] = {.vl = 15, .weight = 0xFF};
  const auto bytes = encodeRecord(r);
  ASSERT_EQ(bytes.size(), VlArbitrationTableRecord::kSize);
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 10),
            (std::vector<std::uint8_t>{0x01, 0x02, 7, 2, 0, 0, 0, 0, 0x03, 0x40}));
  const auto block = encode(r.table);
  EXPECT_TRUE(std::equal(block.begin(), block.end(), bytes.begin() + 8));
  EXPECT_EQ(decodeRecord<VlArbitrationTableRecord>(bytes), r);
}

// The fields libibmad does not name, at IBA 15.2.5.16's offsets: bytes
// 44-63 as the spec draws them, from a record with every field filled.
TEST(PathRecordLayout, PutsTheOtherFieldsWhereTheSpecDrawsThem) {
  PathRecord r;
  r.serviceId = 0x1122334455667788;
  r.rawTraffic = true;
  r.flowLabel = 0xABCDE;
  r.hopLimit = 0x40;
  r.tClass = 0x81;
  r.reversible = true;
  r.numbPath = 3;
  r.pkey = 0xFFFF;
  r.qosClass = 0x123;
  r.sl = 5;
  r.mtuSelector = selector::kExactly;
  r.mtu = 5;
  r.rateSelector = selector::kExactly;
  r.rate = 16;
  r.packetLifeTimeSelector = selector::kExactly;
  r.packetLifeTime = 0x12;
  r.preference = 1;
  const auto bytes = encodeRecord(r);
  EXPECT_EQ(bytes[0], 0x11);
  EXPECT_EQ(bytes[7], 0x88);
  const std::vector<std::uint8_t> tail(bytes.begin() + 44, bytes.begin() + 58);
  EXPECT_EQ(tail, (std::vector<std::uint8_t>{0x8A, 0xBC, 0xDE, 0x40, 0x81, 0x83, 0xFF, 0xFF, 0x12,
                                             0x35, 0x85, 0x90, 0x92, 0x01}));
  auto back = decodeRecord<PathRecord>(bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, r);
}

TEST(GuidInfoRecordLayout, MatchesLibibmadFieldByField) {
  GuidInfoRecord r;
  r.lid = Lid{0x00AB};
  r.block = 3;
  for (std::size_t i = 0; i < 8; ++i) r.guids[i] = Guid{0x0002c90300000100 + i};

  Reference ref(GuidInfoRecord::kSize);
  ref.set(IB_SA_GIR_LID_F, 0xAB).set(IB_SA_GIR_BLOCKNUM_F, 3);
  for (int i = 0; i < 8; ++i) {
    ref.set64(static_cast<MAD_FIELDS>(IB_SA_GIR_GUID0_F + i),
              0x0002c90300000100 + static_cast<std::uint64_t>(i));
  }
  EXPECT_EQ(encodeRecord(r), ref.bytes);
  auto back = decodeRecord<GuidInfoRecord>(ref.bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, r);
}

TEST(ClassPortInfoLayout, MatchesLibibmadFieldByField) {
  ClassPortInfo r;
  r.capabilityMask = 0x2602;
  r.capabilityMask2 = 0x5ABCDEF;
  r.respTimeValue = 0x13;
  r.redirectGid = gidOf(0xFE80000000000001, 0x1111);
  r.redirectTc = 0x21;
  r.redirectSl = 0x9;
  r.redirectFl = 0xFEDCB;
  r.redirectLid = Lid{0x0A0B};
  r.redirectPKey = 0x8001;
  r.redirectQp = 0xABCDEF;
  r.redirectQKey = 0x80010000;
  r.trapGid = gidOf(0xFE80000000000002, 0x2222);
  r.trapTc = 0x31;
  r.trapSl = 0x7;
  r.trapFl = 0x12345;
  r.trapLid = Lid{0x0C0D};
  r.trapPKey = 0x7FFF;
  r.trapHopLimit = 0x40;
  r.trapQp = 0x000001;
  r.trapQKey = 0x12345678;

  Reference ref(ClassPortInfo::kSize);
  ref.set(IB_CPI_BASEVER_F, 1)
      .set(IB_CPI_CLASSVER_F, 2)
      .set(IB_CPI_CAPMASK_F, 0x2602)
      .set(IB_CPI_CAPMASK2_F, 0x5ABCDEF)
      .set(IB_CPI_RESP_TIME_VALUE_F, 0x13)
      .array(IB_CPI_REDIRECT_GID_F, r.redirectGid.data())
      .set(IB_CPI_REDIRECT_TC_F, 0x21)
      .set(IB_CPI_REDIRECT_SL_F, 0x9)
      .set(IB_CPI_REDIRECT_FL_F, 0xFEDCB)
      .set(IB_CPI_REDIRECT_LID_F, 0x0A0B)
      .set(IB_CPI_REDIRECT_PKEY_F, 0x8001)
      .set(IB_CPI_REDIRECT_QP_F, 0xABCDEF)
      .set(IB_CPI_REDIRECT_QKEY_F, 0x80010000)
      .array(IB_CPI_TRAP_GID_F, r.trapGid.data())
      .set(IB_CPI_TRAP_TC_F, 0x31)
      .set(IB_CPI_TRAP_SL_F, 0x7)
      .set(IB_CPI_TRAP_FL_F, 0x12345)
      .set(IB_CPI_TRAP_LID_F, 0x0C0D)
      .set(IB_CPI_TRAP_PKEY_F, 0x7FFF)
      .set(IB_CPI_TRAP_HL_F, 0x40)
      .set(IB_CPI_TRAP_QP_F, 0x000001)
      .set(IB_CPI_TRAP_QKEY_F, 0x12345678);
  EXPECT_EQ(encodeRecord(r), ref.bytes);
  auto back = decodeRecord<ClassPortInfo>(ref.bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, r);
}

// Records libibmad has no fields for: the record's own fields at IBA
// 15.2.5's byte offsets, the embedded attribute as its own encoder writes it.
template <typename R>
std::vector<std::uint8_t> slice(const R& r, std::size_t from, std::size_t length) {
  const auto bytes = encodeRecord(r);
  EXPECT_EQ(bytes.size(), R::kSize);
  auto back = decodeRecord<R>(bytes);
  EXPECT_TRUE(back && *back == r) << "round trip of " << saAttributeName(R::kAttributeId);
  return {bytes.begin() + static_cast<std::ptrdiff_t>(from),
          bytes.begin() + static_cast<std::ptrdiff_t>(from + length)};
}
template <std::size_t N>
std::vector<std::uint8_t> head(const std::array<std::uint8_t, N>& attr, std::size_t length) {
  return {attr.begin(), attr.begin() + static_cast<std::ptrdiff_t>(length)};
}

TEST(PortInfoRecordLayout, IsLidPortOptionsThenPortInfo) {
  PortInfoRecord r{.endPortLid = Lid{0x0203}, .portNum = 7, .options = 1, .portInfo = {}};
  r.portInfo.lid = Lid{0x0203};
  r.portInfo.capabilityMask = 0x02510868;
  r.portInfo.lmc = 2;
  r.portInfo.portState = PortState::Active;
  EXPECT_EQ(slice(r, 0, 4), (std::vector<std::uint8_t>{0x02, 0x03, 7, 1}));
  EXPECT_EQ(slice(r, 4, 64), head(encode(r.portInfo), 64));
}

TEST(LinkRecordLayout, IsFromLidFromPortToPortToLid) {
  LinkRecord r{.fromLid = Lid{0x0102}, .fromPort = 3, .toPort = 4, .toLid = Lid{0x0506}};
  EXPECT_EQ(slice(r, 0, 8), (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 0, 0}));
}

TEST(SwitchInfoRecordLayout, IsLidThenSwitchInfo) {
  SwitchInfoRecord r{.lid = Lid{0x0A0B}, .switchInfo = {}};
  r.switchInfo.linearFdbCap = 0xC000;
  r.switchInfo.linearFdbTop = 0x0123;
  r.switchInfo.lifeTimeValue = 0x13;
  r.switchInfo.enhancedPort0 = true;
  r.switchInfo.multicastFdbTop = 0xC010;
  EXPECT_EQ(slice(r, 0, 4), (std::vector<std::uint8_t>{0x0A, 0x0B, 0, 0}));
  EXPECT_EQ(slice(r, 4, 20), head(encode(r.switchInfo), 20));
}

// Found on ibsim: saquery LFTR printed every entry 4 LIDs early when the
// block followed BlockNum directly.
TEST(LftRecordLayout, IsLidBlockReservedThenTheBlock) {
  LftRecord r{.lid = Lid{0x0011}, .block = 0x0203, .lft = {}};
  for (std::size_t i = 0; i < 64; ++i) r.lft.ports[i] = static_cast<std::uint8_t>(i + 1);
  EXPECT_EQ(slice(r, 0, 8), (std::vector<std::uint8_t>{0, 0x11, 2, 3, 0, 0, 0, 0}));
  EXPECT_EQ(slice(r, 8, 64), head(encode(r.lft), 64));
}

TEST(Sl2VlTableRecordLayout, IsLidInOutReservedThenTheTable) {
  Sl2VlTableRecord r{.lid = Lid{0x0011}, .inPort = 5, .outPort = 9, .table = {}};
  for (std::size_t sl = 0; sl < 16; ++sl) r.table.vl[sl] = static_cast<std::uint8_t>(sl % 8);
  EXPECT_EQ(slice(r, 0, 8), (std::vector<std::uint8_t>{0, 0x11, 5, 9, 0, 0, 0, 0}));
  EXPECT_EQ(slice(r, 8, 8),
            (std::vector<std::uint8_t>{0x01, 0x23, 0x45, 0x67, 0x01, 0x23, 0x45, 0x67}));
}

TEST(PKeyTableRecordLayout, IsLidBlockPortReservedThenTheBlock) {
  PKeyTableRecord r{.lid = Lid{0x0011}, .block = 1, .port = 12, .table = {}};
  r.table.pkeys[0] = 0xFFFF;
  r.table.pkeys[31] = 0x8001;
  EXPECT_EQ(slice(r, 0, 8), (std::vector<std::uint8_t>{0, 0x11, 0, 1, 12, 0, 0, 0}));
  EXPECT_EQ(slice(r, 8, 64), head(encode(r.table), 64));
}

TEST(SmInfoRecordLayout, IsLidThenSmInfo) {
  SmInfoRecord r{.lid = Lid{0x0001}, .smInfo = {}};
  r.smInfo.guid = Guid{0x0002c90300000001};
  r.smInfo.smKey = 1;
  r.smInfo.actCount = 0x01020304;
  r.smInfo.priority = 15;
  r.smInfo.smState = SmState::Master;
  EXPECT_EQ(slice(r, 0, 4), (std::vector<std::uint8_t>{0, 1, 0, 0}));
  EXPECT_EQ(slice(r, 4, 21), head(encode(r.smInfo), 21));
}

TEST(ServiceRecordLayout, MatchesLibibmadWhereItNamesTheFieldsAndTheSpecForTheData) {
  ServiceRecord r;
  r.serviceId = 0x1000000000000ABC;
  r.serviceGid = gidOf(0xFE80000000000000, 0x0002c90300000042);
  r.servicePKey = 0x8001;
  r.serviceLease = 0xFFFFFFFF;
  for (std::uint8_t i = 0; i < 16; ++i) r.serviceKey[i] = static_cast<std::uint8_t>(0xA0 + i);
  r.serviceName = "ibsm-test-service";
  r.data8[0] = 0x11;
  r.data16[7] = 0x2233;
  r.data32[1] = 0x44556677;
  r.data64[1] = 0x8899AABBCCDDEEFF;

  char name[64] = "ibsm-test-service";
  Reference ref(ServiceRecord::kSize);
  ref.set64(IB_SA_SR_ID_F, 0x1000000000000ABC)
      .array(IB_SA_SR_GID_F, r.serviceGid.data())
      .set(IB_SA_SR_PKEY_F, 0x8001)
      .set(IB_SA_SR_LEASE_F, 0xFFFFFFFF)
      .array(IB_SA_SR_KEY_F, r.serviceKey.data())
      .array(IB_SA_SR_NAME_F, name);
  ref.bytes[112] = 0x11;                         // Data8[0]
  ref.bytes[142] = 0x22, ref.bytes[143] = 0x33;  // Data16[7]
  ref.bytes[148] = 0x44, ref.bytes[151] = 0x77;  // Data32[1]
  ref.bytes[150] = 0x66, ref.bytes[149] = 0x55;
  for (int i = 0; i < 8; ++i)
    ref.bytes[168 + static_cast<std::size_t>(i)] =
        static_cast<std::uint8_t>(0x88 + 0x11 * i);  // Data64[1]
  EXPECT_EQ(encodeRecord(r), ref.bytes);
  auto back = decodeRecord<ServiceRecord>(ref.bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, r);
}

TEST(DecodeRecord, RefusesFewerBytesThanTheFieldsTakeButNotAMissingPadding) {
  const std::vector<std::uint8_t> nodeRecordUnpadded(108, 0);
  EXPECT_TRUE(decodeRecord<NodeRecord>(nodeRecordUnpadded));
  const std::vector<std::uint8_t> cut(107, 0);
  auto r = decodeRecord<NodeRecord>(cut);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("NodeRecord"), std::string::npos);
}

}  // namespace
}  // namespace ibsm
