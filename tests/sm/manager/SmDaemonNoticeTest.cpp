// The daemon sends the SA's notices: a host subscribes (Set(InformInfo)
// through the port), a trap the master receives is forwarded to it as a
// Report, and the Report is sent again on the loop's timers until the
// host's ReportResp comes -- or given up after the retries. The first
// sweeps as master issue no trap 64/65 (nothing came or went since). On the
// fake fabric and its clock, with the real SaResponder and Notifier; the
// tests read the status's `sa` counters and the GMPs sent.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include <csignal>
#include <filesystem>

#include "sm/control/StatusFormat.h"
#include "sm/loop/EventLoop.h"
#include "sm/manager/SaFeed.h"
#include "sm/manager/SmDaemon.h"
#include "sm/sa/Notices.h"
#include "sm/sa/Notifier.h"
#include "tests/sm/manager/DaemonOnFakeFabric.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/sm/support/GmpInjector.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::FakeFabricTransport;
using ibsm::testing::GmpInjector;

class SmDaemonNoticeTest : public DaemonOnFakeFabric {
 protected:
  SmDaemonNoticeTest() : DaemonOnFakeFabric("ibsm-daemon-notice-test") {}

  static PortRef hostPort() { return lastCaPort(); }

  GmpAddress host() const {
    return GmpAddress{
        .lid = wire_.fabric().port(hostPort()).lid, .qpn = 1, .sl = 0, .pkeyIndex = 0, .gid = {}};
  }

  // At `at`: the host subscribes to every notice, then traps 144 a second later.
  void subscribeThenTrap(std::chrono::seconds at) {
    loop_.at(wire_.now() + at, [this] {
      InformInfo info;
      info.lidRangeBegin = Lid{InformInfo::kAllLids};
      info.trapNumber = sa::kAnyTrap;
      info.producerType = sa::kAnyProducer;
      SaMad set;
      set.header.method = saMethod::kSet;
      set.header.tid = 0x5E7;
      set.header.attributeId = saAttr::kInformInfo;
      set.data = encodeRecord(info);
      gmps_.inject({encodeSaMad(set), host()}, wire_.now());
      Smp trap = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
      Notice notice;
      notice.trapNumber = 144;
      notice.issuerLid = host().lid;
      trap.data = encode(notice);
      wire_.inject(trap, MadAddress::toLid(host().lid), 1s);
    });
  }

  // The Reports sent, in order.
  std::vector<GmpInjector::SentGmp> reports() const {
    std::vector<GmpInjector::SentGmp> out;
    for (const auto& g : gmps_.sentGmps())
      if (g.mad[3] == saMethod::kReport) out.push_back(g);
    return out;
  }

  int run(std::chrono::seconds stopAt) {
    SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(firstCaPort()).guid, settings_, {},
                    quiet());
    auto sa = std::make_shared<sa::SaResponder>(nullptr, loop_.clock());
    daemon.serveSa(gmps_, sa);
    daemon.onSubnetProgrammed(
        [sa](const SweepResult& result, const program::HeldSubnet& held, const SmInfo& self) {
          sa->setSubnet(saSnapshot(result, held, self, sa::SaSettings{}));
        });
    daemon.describeSa([sa](control::SaStatus& c) { describeSa(*sa, c); });
    daemon.sendNotices(std::make_shared<sa::Notifier>(sa, kDefaultSubnetPrefix));
    auto stop = loop_.at(wire_.now() + stopAt, [&daemon] { daemon.signal(SIGTERM); });
    const int code = daemon.run();
    loop_.cancel(stop);
    status_ = daemon.status();
    return code;
  }

  control::DaemonStatus status_;
};

TEST_F(SmDaemonNoticeTest, AReceivedTrapIsForwardedAndItsReportRespEndsIt) {
  gmps_.onSend([this](const GmpInjector::SentGmp& g) {
    if (g.mad[3] != saMethod::kReport) return;
    auto resp = g.mad;
    resp[3] = saMethod::kReportResp;
    gmps_.inject({resp, g.to}, wire_.now() + 5ms);
  });
  subscribeThenTrap(5s);
  EXPECT_EQ(run(10s), 0);
  EXPECT_EQ(status_.sa.subscribers, 1U) << control::formatStatus(status_);
  const auto sent = reports();
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].to, host());
  const auto notice = decodeRecord<SaNotice>(std::span(sent[0].mad).subspan(kSaHeaderSize));
  EXPECT_EQ(notice->notice.trapNumber, 144);
  EXPECT_EQ(notice->issuerGid, makeGid(kDefaultSubnetPrefix, wire_.fabric().port(hostPort()).guid));
  EXPECT_EQ(status_.sa.reportsSent, 1U);
  EXPECT_EQ(status_.sa.reportsAcknowledged, 1U);
  EXPECT_EQ(status_.sa.reportsRetried, 0U);
  EXPECT_EQ(status_.sa.noticesByTrap, (std::map<std::string, std::uint64_t>{{"144", 1}}))
      << "no 64/65 on the sweeps that brought the subnet up";
}

TEST_F(SmDaemonNoticeTest, AnUnansweredReportIsSentAgainEachTimeoutThenGivenUp) {
  subscribeThenTrap(5s);
  EXPECT_EQ(run(30s), 0);
  const auto sent = reports();
  const sa::ReportSettings defaults;
  ASSERT_EQ(sent.size(), 1 + defaults.retries);
  const auto timeout = sa::reportTimeout(0, defaults);
  for (std::size_t i = 1; i < sent.size(); ++i) {
    EXPECT_EQ(sent[i].mad, sent[0].mad) << "the same Report, the same TID";
    EXPECT_GE(sent[i].at - sent[i - 1].at, timeout);
    EXPECT_LT(sent[i].at - sent[i - 1].at, timeout + 50ms) << "on time, sweeps or not";
  }
  EXPECT_EQ(status_.sa.reportsRetried, defaults.retries);
  EXPECT_EQ(status_.sa.reportsFailed, 1U);
  EXPECT_EQ(status_.sa.reportsAcknowledged, 0U);
  EXPECT_EQ(status_.sa.subscribers, 1U) << "kept, as OpenSM keeps it";
}

}  // namespace
}  // namespace ibsm::sm::manager
