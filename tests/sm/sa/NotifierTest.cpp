// The notice path: the end ports in service after each sweep that
// programmed, compared with the sweep before, become traps 64 (came) and 65
// (went) -- none on the first sweep as master; the traps the SM receives
// are forwarded with their issuer's GID; each goes as a Report to the
// subscriptions (Set(InformInfo) through the SA) that ask for it, at the
// address their Set came from, and only between ports sharing a partition.
#include <gtest/gtest.h>

#include "sm/sa/Notices.h"
#include "sm/sa/Notifier.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

using namespace std::chrono_literals;
using testing::SaFixture;

const Notifier::Clock::time_point t0{};

class NotifierTest : public ::testing::Test {
 protected:
  NotifierTest() {
    for (std::size_t h = 0; h < sa.hosts.size(); ++h) all.insert(sa.guidOfHost(h));
  }

  // Host `host` subscribes, through the SA, to `trap` (0xFFFF: all).
  void subscribe(std::size_t host, std::uint16_t trap) {
    InformInfo i;
    i.lidRangeBegin = Lid{InformInfo::kAllLids};
    i.trapNumber = trap;
    i.producerType = kAnyProducer;
    i.qpn = 1;
    sa.from = GmpAddress{
        .lid = sa.lidOfHost(host), .qpn = 1, .sl = 0, .pkeyIndex = 0, .gid = std::nullopt};
    const auto reply =
        sa.answer(SaFixture::request(saMethod::kSet, saAttr::kInformInfo, 0, encodeRecord(i)));
    ASSERT_EQ(reply.header.status, saStatus::kOk);
  }

  std::set<Guid> without(std::size_t host) const {
    auto ports = all;
    ports.erase(sa.guidOfHost(host));
    return ports;
  }

  struct Sent {
    Lid to;
    SaNotice notice;
  };
  std::vector<Sent> sent(Notifier::Clock::time_point now = t0) {
    std::vector<Sent> out;
    for (const OutgoingGmp& g : notices.due(now))
      out.push_back({g.to.lid, *decodeRecord<SaNotice>(std::span(g.mad).subspan(kSaHeaderSize))});
    return out;
  }

  SaFixture sa{FatTreeSpec{.levels = 2, .radix = 4}};
  // The fixture owns the responder; the notifier only reads it.
  Notifier notices{std::shared_ptr<SaResponder>(std::shared_ptr<void>{}, &sa.responder),
                   kDefaultSubnetPrefix};
  std::set<Guid> all;
  const Lid smLid{1};
  const Guid smGuid{0x99};
};

TEST_F(NotifierTest, TheFirstSweepAsMasterIssuesNoNotice) {
  subscribe(1, kAnyTrap);
  EXPECT_TRUE(notices.inService(without(3), smLid, smGuid, t0).empty());
  EXPECT_TRUE(sent().empty());
  EXPECT_TRUE(notices.noticesByTrap().empty());
}

TEST_F(NotifierTest, APortThatLeavesIsATrap65AndOneThatComesBackATrap64) {
  subscribe(1, kAnyTrap);
  notices.inService(all, smLid, smGuid, t0);
  notices.inService(without(3), smLid, smGuid, t0);
  auto out = sent();
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].to, sa.lidOfHost(1)) << "to the subscriber, where its Set came from";
  EXPECT_EQ(out[0].notice.notice.trapNumber, noticeTrap::kGidOutOfService);
  EXPECT_EQ(noticeGid(out[0].notice), sa.gidOfHost(3));
  EXPECT_EQ(out[0].notice.notice.issuerLid, smLid);
  EXPECT_EQ(out[0].notice.issuerGid, makeGid(kDefaultSubnetPrefix, smGuid));

  notices.inService(without(3), smLid, smGuid, t0);
  EXPECT_TRUE(sent().empty()) << "nothing changed";
  notices.inService(all, smLid, smGuid, t0);
  out = sent();
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].notice.notice.trapNumber, noticeTrap::kGidInService);
  EXPECT_EQ(noticeGid(out[0].notice), sa.gidOfHost(3));
  EXPECT_EQ(notices.noticesByTrap(), (std::map<std::uint16_t, std::uint64_t>{{64, 1}, {65, 1}}));
}

TEST_F(NotifierTest, ManyPortsAtOnceAreOneNoticeEach) {
  notices.inService(all, smLid, smGuid, t0);
  auto fewer = without(2);
  fewer.erase(sa.guidOfHost(3));
  fewer.insert(Guid{0xABCD});  // and one new
  const auto issued = notices.inService(fewer, smLid, smGuid, t0);
  ASSERT_EQ(issued.size(), 3U);
  EXPECT_EQ(gidGuid(noticeGid(issued[2])), Guid{0xABCD});
  EXPECT_EQ(issued[2].notice.trapNumber, noticeTrap::kGidInService);
  EXPECT_EQ(notices.noticesByTrap(), (std::map<std::uint16_t, std::uint64_t>{{64, 1}, {65, 2}}));
}

TEST_F(NotifierTest, ASubscriberHearsOnlyTheTrapItAskedFor) {
  subscribe(1, noticeTrap::kGidInService);
  subscribe(2, noticeTrap::kGidOutOfService);
  notices.inService(all, smLid, smGuid, t0);
  notices.inService(without(3), smLid, smGuid, t0);
  const auto out = sent();
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].to, sa.lidOfHost(2));
}

TEST_F(NotifierTest, ThePortThatLeftLosesItsSubscriptions) {
  subscribe(3, kAnyTrap);
  subscribe(1, kAnyTrap);
  notices.inService(all, smLid, smGuid, t0);
  notices.inService(without(3), smLid, smGuid, t0);
  ASSERT_EQ(sent().size(), 2U) << "host 3 is told too: its cable may be back before it notices";
  EXPECT_EQ(notices.subscribersDropped(), 1U);
  ASSERT_EQ(sa.responder.subscriptions().size(), 1U);
  EXPECT_EQ(sa.responder.subscriptions()[0].subscriber, sa.gidOfHost(1));
}

TEST_F(NotifierTest, AfterResetTheNextSweepOnlyRecordsAgain) {
  subscribe(1, kAnyTrap);
  notices.inService(all, smLid, smGuid, t0);
  notices.reset();  // standby, then master again
  notices.inService(without(3), smLid, smGuid, t0);
  EXPECT_TRUE(sent().empty());
}

TEST_F(NotifierTest, AReceivedTrapIsForwardedWithItsIssuersGid) {
  subscribe(1, 128);
  Notice trap;
  trap.type = 1;
  trap.producerType = 2;
  trap.trapNumber = 128;
  trap.issuerLid = sa.lidOfHost(2);
  notices.trapReceived(trap, Lid{}, t0);
  const auto out = sent();
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].notice.notice, trap);
  EXPECT_EQ(out[0].notice.issuerGid, sa.gidOfHost(2));
  EXPECT_EQ(notices.noticesByTrap().at(128), 1U);

  trap.issuerLid = Lid{};  // no issuer LID: the MAD's source stands in
  trap.trapNumber = 144;
  notices.trapReceived(trap, sa.lidOfHost(3), t0);
  EXPECT_TRUE(sent().empty()) << "host 1 asked for 128 only";
  EXPECT_EQ(notices.noticesByTrap().at(144), 1U);
}

TEST_F(NotifierTest, NoReportAboutAPortInNoPartitionOfTheSubscriber) {
  PKeyTables t;
  t.ports.push_back({.port = sa.hostPort(1), .pkeys = {0x8001}});
  t.ports.push_back({.port = sa.hostPort(2), .pkeys = {0x8002}});
  t.ports.push_back({.port = sa.hostPort(3), .pkeys = {0x8001}});
  sortByPort(t);
  sa.plan.pkeys = t;
  sa.rebuild();
  subscribe(1, kAnyTrap);
  Notice trap;
  trap.trapNumber = 128;
  trap.issuerLid = sa.lidOfHost(2);
  notices.trapReceived(trap, Lid{}, t0);
  EXPECT_TRUE(sent().empty()) << "hosts 1 and 2 share no partition";
  trap.issuerLid = sa.lidOfHost(3);
  notices.trapReceived(trap, Lid{}, t0);
  EXPECT_EQ(sent().size(), 1U);
}

TEST_F(NotifierTest, AGroupCreatedIsATrap66AndOneDeletedATrap67NamingItsMgid) {
  subscribe(1, kAnyTrap);
  const Gid mgid = makeGid(0xFF12601B00000000ULL, Guid{0x1});
  const std::vector<McGroupEvent> events{
      {.kind = McGroupEvent::Kind::Created, .mgid = mgid, .mlid = Lid{0xC000}, .pkey = 0xFFFF},
      {.kind = McGroupEvent::Kind::Deleted, .mgid = mgid, .mlid = Lid{0xC000}, .pkey = 0xFFFF}};
  const auto issued = notices.groupsChanged(events, smLid, smGuid, t0);
  ASSERT_EQ(issued.size(), 2U);
  auto out = sent();
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].notice.notice.trapNumber, noticeTrap::kMcGroupCreated);
  EXPECT_EQ(out[1].notice.notice.trapNumber, noticeTrap::kMcGroupDeleted);
  EXPECT_EQ(noticeGid(out[0].notice), mgid) << "GIDADDR: the group's MGID";
  EXPECT_EQ(out[0].notice.notice.issuerLid, smLid);
  EXPECT_EQ(out[0].notice.issuerGid, makeGid(kDefaultSubnetPrefix, smGuid));
  EXPECT_EQ(out[0].notice.notice.type, kNoticeTypeSubnetManagement);
  EXPECT_EQ(notices.noticesByTrap().at(noticeTrap::kMcGroupCreated), 1U);
}

TEST_F(NotifierTest, OnlySubscribersInTheGroupsPartitionHearOfIt) {
  PKeyTables t;
  t.ports.push_back({.port = sa.hostPort(1), .pkeys = {0x8001}});
  t.ports.push_back({.port = sa.hostPort(2), .pkeys = {0x8002}});
  sortByPort(t);
  sa.plan.pkeys = t;
  sa.rebuild();
  subscribe(1, noticeTrap::kMcGroupCreated);
  subscribe(2, noticeTrap::kMcGroupCreated);
  const std::vector<McGroupEvent> events{{.kind = McGroupEvent::Kind::Created,
                                          .mgid = makeGid(0xFF12000000000000ULL, Guid{0x2}),
                                          .mlid = Lid{0xC001},
                                          .pkey = 0x8002}};
  notices.groupsChanged(events, smLid, smGuid, t0);
  const auto out = sent();
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].to, sa.lidOfHost(2));
}

TEST_F(NotifierTest, AnUnansweredReportIsRetriedAndAnAnsweredOneEnds) {
  subscribe(1, kAnyTrap);
  notices.inService(all, smLid, smGuid, t0);
  notices.inService(without(3), smLid, smGuid, t0);
  const auto first = notices.due(t0);
  ASSERT_EQ(first.size(), 1U);
  ASSERT_TRUE(notices.nextDeadline());
  const auto again = notices.due(*notices.nextDeadline());
  ASSERT_EQ(again.size(), 1U);
  auto resp = again[0].mad;
  resp[3] = saMethod::kReportResp;
  EXPECT_TRUE(notices.acknowledge(resp));
  EXPECT_FALSE(notices.nextDeadline());
  EXPECT_EQ(notices.reportCounters().sent, 1U);
  EXPECT_EQ(notices.reportCounters().retried, 1U);
  EXPECT_EQ(notices.reportCounters().acknowledged, 1U);
}

}  // namespace
}  // namespace ibsm::sm::sa
