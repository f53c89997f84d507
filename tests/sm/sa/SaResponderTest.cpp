// The SA as a client sees it: requests in, whole answers out, every record
// from the snapshot of a planned fat tree.
#include <gtest/gtest.h>

#include "sm/sa/SaResponder.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using testing::SaFixture;

constexpr std::uint64_t kLidComponent = 1;

class SaResponderTest : public ::testing::Test {
 protected:
  SaFixture sa{FatTreeSpec{.levels = 2, .radix = 4}};
};

TEST_F(SaResponderTest, AGetOfANodeRecordByLidAnswersThatPortWithTheTidEchoed) {
  const auto reply = sa.ask(saMethod::kGet, NodeRecord{.lid = sa.lidOfHost(2)}, kLidComponent);
  EXPECT_EQ(reply.header.method, saMethod::kGetResp);
  EXPECT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_EQ(reply.header.tid, 0xC0FFEE0000000001);
  EXPECT_EQ(reply.header.smKey, 0U);
  EXPECT_EQ(reply.header.attributeOffset, NodeRecord::kSize / 8);
  const auto records = SaFixture::records<NodeRecord>(reply);
  ASSERT_EQ(records.size(), 1U);
  const Node& host = sa.plan.fabric.node(sa.hosts[2]);
  EXPECT_EQ(records[0].lid, sa.lidOfHost(2));
  EXPECT_EQ(records[0].nodeInfo.nodeGuid, host.guid);
  EXPECT_EQ(records[0].nodeInfo.portGuid, sa.guidOfHost(2));
  EXPECT_EQ(records[0].nodeInfo.nodeType, NodeType::Ca);
  EXPECT_EQ(records[0].nodeDescription.text, host.description);
}

TEST_F(SaResponderTest, AGetTableWithoutComponentsListsEveryPortThatHoldsALid) {
  const auto reply = sa.ask(saMethod::kGetTable, NodeRecord{}, 0);
  EXPECT_EQ(reply.header.method, saMethod::kGetTableResp);
  EXPECT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_EQ(reply.header.rmpp.flags & rmpp::kFlagActive, rmpp::kFlagActive);
  const auto records = SaFixture::records<NodeRecord>(reply);
  EXPECT_EQ(records.size(), sa.subnet->endPorts().size());
  for (std::size_t i = 1; i < records.size(); ++i) EXPECT_LT(records[i - 1].lid, records[i].lid);
}

TEST_F(SaResponderTest, AGetTableAnswersAtMostMaxRecordsTheFirstByLidAndCountsIt) {
  const auto all = SaFixture::records<NodeRecord>(sa.ask(saMethod::kGetTable, NodeRecord{}, 0));
  ASSERT_GT(all.size(), 3U);
  sa.settings.maxRecords = 3;
  sa.rebuild();
  const auto reply = sa.ask(saMethod::kGetTable, NodeRecord{}, 0);
  EXPECT_EQ(reply.header.status, saStatus::kOk) << "trimmed, as OpenSM trims, not refused";
  const auto records = SaFixture::records<NodeRecord>(reply);
  ASSERT_EQ(records.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(records[i].lid, all[i].lid);
  EXPECT_EQ(sa.responder.counters().answersTrimmed, 1U);

  // An answer at the limit is whole and not counted.
  (void)sa.ask(saMethod::kGetTable, NodeRecord{.lid = sa.lidOfHost(1)}, kLidComponent);
  EXPECT_EQ(sa.responder.counters().answersTrimmed, 1U);
}

TEST_F(SaResponderTest, PathRecordTablesAreTrimmedToMaxRecordsToo) {
  sa.settings.maxRecords = 2;
  sa.rebuild();
  const auto reply = sa.ask(saMethod::kGetTable, PathRecord{}, 0);
  EXPECT_EQ(SaFixture::records<PathRecord>(reply).size(), 2U);
  EXPECT_EQ(sa.responder.counters().answersTrimmed, 1U);
}

TEST_F(SaResponderTest, AGetMatchingSeveralRecordsIsTooManyRecords) {
  const auto reply = sa.ask(saMethod::kGet, NodeRecord{}, 0);
  EXPECT_EQ(reply.header.method, saMethod::kGetResp);
  EXPECT_EQ(reply.header.status, saStatus::kTooManyRecords);
}

TEST_F(SaResponderTest, AGetMatchingNothingIsNoRecords) {
  const auto reply = sa.ask(saMethod::kGet, NodeRecord{.lid = Lid{0xBFF0}}, kLidComponent);
  EXPECT_EQ(reply.header.status, saStatus::kNoRecords);
}

TEST_F(SaResponderTest, AGetTableMatchingNothingIsAnEmptyTableAsOpenSmAnswers) {
  const auto reply = sa.ask(saMethod::kGetTable, NodeRecord{.lid = Lid{0xBFF0}}, kLidComponent);
  EXPECT_EQ(reply.header.method, saMethod::kGetTableResp);
  EXPECT_EQ(reply.header.status, saStatus::kOk);
  EXPECT_EQ(reply.header.rmpp.payloadLength, 20U);  // the SA header alone
  EXPECT_TRUE(SaFixture::records<NodeRecord>(reply).empty());
}

TEST_F(SaResponderTest, OnlyTheComponentsTheMaskSelectsMustMatch) {
  NodeRecord query;
  query.lid = sa.lidOfHost(1);
  query.nodeInfo.nodeType = NodeType::Switch;  // not selected: ignored
  query.nodeInfo.portGuid = sa.guidOfHost(3);
  const std::uint64_t portGuidComponent = 1ULL << 8;
  auto reply = sa.ask(saMethod::kGetTable, query, portGuidComponent);
  auto records = SaFixture::records<NodeRecord>(reply);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].lid, sa.lidOfHost(3));

  reply = sa.ask(saMethod::kGetTable, query, portGuidComponent | kLidComponent);
  EXPECT_TRUE(SaFixture::records<NodeRecord>(reply).empty());
}

TEST_F(SaResponderTest, AnUnknownAttributeIsAnUnsupportedMethodAttributeCombination) {
  // 0x0039: TraceRecord, which the SA does not serve.
  for (const std::uint16_t attr : {std::uint16_t{0x0099}, std::uint16_t{0x0039}}) {
    const auto reply = sa.answer(SaFixture::request(saMethod::kGet, attr, 0, {}));
    EXPECT_EQ(reply.header.status, saStatus::kMethodAttrUnsupported) << attr;
  }
}

TEST_F(SaResponderTest, AnUnknownMethodIsUnsupported) {
  const auto reply = sa.answer(SaFixture::request(0x10, saAttr::kNodeRecord, 0, {}));
  EXPECT_EQ(reply.header.status, saStatus::kMethodUnsupported);
  EXPECT_EQ(reply.header.method, 0x90);
}

TEST_F(SaResponderTest, ASetOfARecordTheSaOnlyReadsIsRefusedInAGetResp) {
  const auto reply = sa.ask(saMethod::kSet, NodeRecord{}, 0);
  EXPECT_EQ(reply.header.method, saMethod::kGetResp);
  EXPECT_EQ(reply.header.status, saStatus::kMethodAttrUnsupported);
}

TEST_F(SaResponderTest, AWrongClassVersionIsBadVersionWithTheTidEchoed) {
  auto bytes = SaFixture::request(saMethod::kGet, saAttr::kNodeRecord, 0, {});
  bytes[2] = 1;
  auto reply = sa.responder.answer(bytes, sa.from);
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)[3], saMethod::kGetResp);
  EXPECT_EQ(((*reply)[4] << 8) | (*reply)[5], saStatus::kBadVersion);
  EXPECT_EQ((*reply)[15], 0x01);  // last byte of the TID
  EXPECT_EQ((*reply)[2], kSaClassVersion) << "answered in the version the SA speaks";
}

TEST_F(SaResponderTest, ResponsesAndUnreadableMadsAreDroppedAndCounted) {
  EXPECT_FALSE(sa.responder.answer(
      SaFixture::request(saMethod::kReportResp, saAttr::kNotice, 0, {}), sa.from));
  EXPECT_FALSE(sa.responder.answer(std::vector<std::uint8_t>(10, 0), sa.from));
  EXPECT_EQ(sa.responder.counters().dropped, 2U);
}

TEST_F(SaResponderTest, AComponentMaskPastTheRecordsLastComponentIsAnInvalidRequest) {
  const auto reply = sa.ask(saMethod::kGetTable, LinkRecord{}, 1ULL << 4);
  EXPECT_EQ(reply.header.status, saStatus::kReqInvalid);
}

TEST_F(SaResponderTest, PKeyTableRecordsGoOnlyToARequesterPresentingTheSaKey) {
  const PKeyTableRecord query{.lid = sa.lidOfHost(0)};
  auto reply = sa.ask(saMethod::kGetTable, query, kLidComponent, /*smKey=*/0);
  EXPECT_EQ(reply.header.status, saStatus::kReqInvalid);
  reply = sa.ask(saMethod::kGetTable, query, kLidComponent, kDefaultSmKey);
  EXPECT_EQ(reply.header.status, saStatus::kOk);
  const auto records = SaFixture::records<PKeyTableRecord>(reply);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].table.pkeys[0], 0xFFFF);
}

TEST_F(SaResponderTest, EverySwitchPortHasAPKeyTableRecord) {
  const NodeId sw = sa.plan.fabric.switches().front();
  const PKeyTableRecord query{.lid = sa.plan.fabric.node(sw).ports[0].lid};
  const auto records = SaFixture::records<PKeyTableRecord>(
      sa.ask(saMethod::kGetTable, query, kLidComponent, kDefaultSmKey));
  ASSERT_EQ(records.size(), sa.plan.fabric.node(sw).ports.size());
  for (std::size_t p = 0; p < records.size(); ++p) EXPECT_EQ(records[p].port, p);
}

TEST_F(SaResponderTest, PortInfoCapabilityMaskMatchesAsASubsetAsSrpDaemonAsks) {
  PortInfoRecord query;
  query.portInfo.capabilityMask = capability::kIsSm;
  const std::uint64_t capabilityMaskComponent = 1ULL << 7;
  const auto reply = sa.ask(saMethod::kGetTable, query, capabilityMaskComponent);
  const auto records = SaFixture::records<PortInfoRecord>(reply);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].endPortLid, sa.lidOfHost(0));
  EXPECT_EQ(records[0].portInfo.masterSmLid, sa.lidOfHost(0));
  EXPECT_EQ(records[0].portInfo.gidPrefix, kDefaultSubnetPrefix);
}

TEST_F(SaResponderTest, PortInfoCapabilityMask2MatchesAsASubsetToo) {
  const PortRef port = sa.hostPort(2);
  sa.plan.fabric.port(port).capabilityMask |= capability::kIsSm;
  std::unordered_map<PortRef, PortInfo> held;
  PortInfo pi;
  pi.capabilityMask2 = 0x0034;
  held[port] = pi;
  SaSource source{.plan = std::make_shared<const SubnetPlan>(sa.plan),
                  .portInfo = &held,
                  .smPort = sa.smPort,
                  .smInfo = sa.smInfo};
  sa.responder.setSubnet(SaSubnet::build(source, sa.settings));
  PortInfoRecord query;
  query.portInfo.capabilityMask2 = 0x0014;
  const std::uint64_t capabilityMask2Component = 1ULL << 53;  // IB_PIR_COMPMASK_CAPMASK2
  const auto records = SaFixture::records<PortInfoRecord>(
      sa.ask(saMethod::kGetTable, query, capabilityMask2Component));
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].endPortLid, sa.lidOfHost(2));
  query.portInfo.capabilityMask2 = 0x0041;
  EXPECT_TRUE(SaFixture::records<PortInfoRecord>(
                  sa.ask(saMethod::kGetTable, query, capabilityMask2Component))
                  .empty());
}

TEST_F(SaResponderTest, ANodeRecordCarriesTheRevisionTheNodeReported) {
  sa.plan.fabric.node(sa.hosts[2]).revision = 0xA1;
  sa.rebuild();
  const auto records = SaFixture::records<NodeRecord>(
      sa.ask(saMethod::kGet, NodeRecord{.lid = sa.lidOfHost(2)}, kLidComponent));
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].nodeInfo.revision, 0xA1U);
}

// Found against OpenSM on ibsim: a switch's external ports hold no LID,
// subnet prefix or SM LID; only its port 0 does.
TEST_F(SaResponderTest, ASwitchsExternalPortRecordCarriesNoLidOnlyItsPortZeroDoes) {
  const NodeId sw = sa.plan.fabric.switches().front();
  const Lid lid = sa.plan.fabric.node(sw).ports[0].lid;
  const auto records = SaFixture::records<PortInfoRecord>(
      sa.ask(saMethod::kGetTable, PortInfoRecord{.endPortLid = lid}, kLidComponent));
  ASSERT_EQ(records.size(), sa.plan.fabric.node(sw).ports.size());
  EXPECT_EQ(records[0].portInfo.lid, lid);
  EXPECT_EQ(records[0].portInfo.gidPrefix, kDefaultSubnetPrefix);
  for (std::size_t p = 1; p < records.size(); ++p) {
    EXPECT_EQ(records[p].portNum, p);
    EXPECT_EQ(records[p].portInfo.lid, Lid{}) << "port " << p;
    EXPECT_EQ(records[p].portInfo.gidPrefix, 0U) << "port " << p;
    EXPECT_EQ(records[p].portInfo.masterSmLid, Lid{}) << "port " << p;
  }
}

TEST_F(SaResponderTest, LinkRecordsNameBothEndsOfACable) {
  const PortRef leafSide = *sa.plan.fabric.port(sa.hostPort(1)).remote;
  const auto reply =
      sa.ask(saMethod::kGet, LinkRecord{.fromLid = sa.lidOfHost(1), .fromPort = 1}, 0b011);
  const auto records = SaFixture::records<LinkRecord>(reply);
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].toPort, leafSide.port);
  EXPECT_EQ(records[0].toLid, sa.plan.fabric.node(leafSide.node).ports[0].lid);
}

TEST_F(SaResponderTest, LftRecordsCarryThePlannedTablesUpToLinearFdbTop) {
  const NodeId sw = sa.plan.fabric.switches().front();
  const Lid lid = sa.plan.fabric.node(sw).ports[0].lid;
  const auto reply = sa.ask(saMethod::kGetTable, LftRecord{.lid = lid}, kLidComponent);
  const auto records = SaFixture::records<LftRecord>(reply);
  const Lft& lft = sa.plan.routing.lfts[sw];
  ASSERT_EQ(records.size(), lft.top().value / 64U + 1);
  EXPECT_EQ(records[0].lft, lftBlock(lft.port, 0));
  EXPECT_EQ(records[0].lft.ports[sa.lidOfHost(1).value], lft.at(sa.lidOfHost(1)));
}

TEST_F(SaResponderTest, SwitchInfoGuidInfoAndSmInfoRecordsAnswerAGetByLid) {
  const NodeId sw = sa.plan.fabric.switches().front();
  const Lid swLid = sa.plan.fabric.node(sw).ports[0].lid;
  auto records = SaFixture::records<SwitchInfoRecord>(
      sa.ask(saMethod::kGet, SwitchInfoRecord{.lid = swLid}, kLidComponent));
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].switchInfo.linearFdbTop, sa.plan.routing.lfts[sw].top().value);

  auto guids = SaFixture::records<GuidInfoRecord>(
      sa.ask(saMethod::kGet, GuidInfoRecord{.lid = sa.lidOfHost(3)}, kLidComponent));
  ASSERT_EQ(guids.size(), 1U);
  EXPECT_EQ(guids[0].guids[0], sa.guidOfHost(3));

  auto sm = SaFixture::records<SmInfoRecord>(sa.ask(saMethod::kGet, SmInfoRecord{}, 0));
  ASSERT_EQ(sm.size(), 1U);
  EXPECT_EQ(sm[0].lid, sa.lidOfHost(0));
  EXPECT_EQ(sm[0].smInfo.guid, sa.smInfo.guid);
  EXPECT_EQ(sm[0].smInfo.smState, SmState::Master);
  EXPECT_EQ(sm[0].smInfo.smKey, 0U);  // never shown
}

TEST_F(SaResponderTest, ClassPortInfoSaysWhatIsImplemented) {
  const auto reply = sa.ask(saMethod::kGet, ClassPortInfo{}, 0);
  EXPECT_EQ(reply.header.status, saStatus::kOk);
  auto cpi = decodeRecord<ClassPortInfo>(reply.data);
  ASSERT_TRUE(cpi);
  EXPECT_EQ(cpi->classVersion, 2);
  EXPECT_EQ(cpi->capabilityMask,
            saCapability::kIsUdMulticastSupported | saCapability::kIsPortInfoCapMaskMatchSupported);
  // Not (yet) implemented, so not claimed: optional records, Notice,
  // alias GUIDs.
  EXPECT_EQ(cpi->capabilityMask & saCapability::kIsSubnetOptionalRecordsSupported, 0);
  EXPECT_EQ(cpi->capabilityMask2 & saCapability::kIsAliasGuidsSupported, 0U);
  // Issue 27: MulticastFDBTop claimed as OpenSM (use_mfttop) claims it: the
  // MFT programming sets it on every switch whose PortInfo says it has it.
  EXPECT_NE(cpi->capabilityMask2 & saCapability::kIsMulticastFdbTopSupported, 0U);
  EXPECT_EQ(
      cpi->capabilityMask2,
      saCapability::kIsMulticastFdbTopSupported | saCapability::kIsFullPortInfoRecordSupported |
          saCapability::kIsExtendedSpeedsSupported |
          saCapability::kIsPortInfoCapMask2MatchSupported |
          saCapability::kIsSendOnlyFullMemberSupported | saCapability::kIsLinkWidth2xSupported |
          saCapability::kIsLinkSpeedHdrSupported | saCapability::kIsLinkSpeedNdrSupported);
  EXPECT_EQ(cpi->respTimeValue, 16) << "OpenSM's, from its 200 ms transaction timeout";
  EXPECT_EQ(cpi->respTimeValue, sa.settings.respTimeValue);
  // Not redirected: QP1 and its Q_Key, for queries and for reports alike.
  EXPECT_EQ(cpi->redirectQp, 1u);
  EXPECT_EQ(cpi->redirectQKey, kQp1QKey);
  EXPECT_EQ(cpi->trapQKey, kQp1QKey);
}

TEST_F(SaResponderTest, BeforeAnySnapshotEveryQueryIsNoResources) {
  SaResponder fresh;
  auto reply =
      fresh.answer(SaFixture::request(saMethod::kGet, saAttr::kNodeRecord, 0, {}), sa.from);
  ASSERT_TRUE(reply);
  EXPECT_EQ(((*reply)[4] << 8) | (*reply)[5], saStatus::kNoResources);
}

TEST_F(SaResponderTest, ANewSnapshotIsWhatTheNextQuerySees) {
  const Lid lid = sa.lidOfHost(2);
  sa.plan.fabric.node(sa.hosts[2]).description = "renamed";
  EXPECT_NE(SaFixture::records<NodeRecord>(sa.ask(saMethod::kGet, NodeRecord{.lid = lid}, 1))[0]
                .nodeDescription.text,
            "renamed");
  sa.rebuild();
  EXPECT_EQ(SaFixture::records<NodeRecord>(sa.ask(saMethod::kGet, NodeRecord{.lid = lid}, 1))[0]
                .nodeDescription.text,
            "renamed");
}

TEST_F(SaResponderTest, CountersCountQueriesByAttributeAndMethodAndErrorsByStatus) {
  (void)sa.ask(saMethod::kGet, NodeRecord{.lid = sa.lidOfHost(2)}, kLidComponent);
  (void)sa.ask(saMethod::kGet, NodeRecord{}, 0);
  (void)sa.ask(saMethod::kGetTable, LinkRecord{}, 0);
  const SaCounters& c = sa.responder.counters();
  EXPECT_EQ(c.received, 3U);
  EXPECT_EQ(c.answered, 3U);
  EXPECT_EQ(c.byAttribute.at(saAttr::kNodeRecord), 2U);
  EXPECT_EQ(c.byAttribute.at(saAttr::kLinkRecord), 1U);
  EXPECT_EQ(c.byMethod.at(saMethod::kGet), 2U);
  EXPECT_EQ(c.byMethod.at(saMethod::kGetTable), 1U);
  EXPECT_EQ(c.errorsByStatus.at(saStatus::kTooManyRecords), 1U);
  EXPECT_EQ(c.errorsByStatus.size(), 1U);
}

}  // namespace
}  // namespace ibsm::sm::sa
