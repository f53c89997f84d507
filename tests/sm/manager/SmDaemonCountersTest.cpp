// The daemon's counter sweep on the fake fabric: PerfMgt GMPs go out only
// as MASTER with the subnet up, a pass every health.counter_interval; their
// answers (through the same GMP port as the SA's queries) reach the
// requester and never the SA, while the SA keeps answering its own; the
// status shows the passes and the error counters over zero.
#include <gtest/gtest.h>

#include <csignal>
#include <regex>

#include "sm/control/StatusFormat.h"
#include "sm/loop/EventLoop.h"
#include "sm/manager/SmDaemon.h"
#include "tests/sm/health/FakePma.h"
#include "tests/sm/manager/DaemonOnFakeFabric.h"
#include "tests/sm/support/GmpInjector.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::FakePma;
using ibsm::testing::GmpInjector;

constexpr std::uint8_t kGetResp = 0x81;

// Answers every SA request with itself as a GetResp.
class EchoResponder final : public GmpResponder {
 public:
  std::optional<std::vector<std::uint8_t>> answer(std::span<const std::uint8_t> request,
                                                  const GmpAddress&) override {
    std::vector<std::uint8_t> out(request.begin(), request.end());
    out[3] = kGetResp;
    return out;
  }
};

class SmDaemonCountersTest : public DaemonOnFakeFabric {
 protected:
  SmDaemonCountersTest()
      : DaemonOnFakeFabric("ibsm-daemon-counters-test"),
        pma_(wire_.fabric(), perfCapability::kAllPortSelect) {
    // The PMAs answer 1 ms after each PerfMgt GMP, from its destination.
    gmps_.onSend([this](const GmpInjector::SentGmp& sent) {
      if (sent.mad.size() < 2 || sent.mad[1] != kPerfClass) return;
      ++perfSent_;
      if (!upAt_) firstPerfBeforeUp_ = true;
      if (auto answer = pma_.answer(sent.mad, sent.to.lid)) {
        GmpAddress from;
        from.lid = sent.to.lid;
        gmps_.inject({{answer->begin(), answer->end()}, from}, sent.at + 1ms);
      }
    });
  }

  int run(std::chrono::milliseconds stopAt) {
    SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(firstCaPort()).guid, settings_, {},
                    quiet());
    daemon.serveSa(gmps_, std::make_shared<EchoResponder>());
    auto stop = loop_.at(wire_.now() + stopAt, [&daemon] { daemon.signal(SIGTERM); });
    // Watches for "up" every 100 ms, to tell GMPs sent before it.
    std::function<void()> watch = [&] {
      if (!upAt_ && daemon.status().up) upAt_ = wire_.now();
      watchTimer_ = loop_.at(wire_.now() + 100ms, watch);
    };
    watch();
    std::optional<loop::EventLoop::TimerId> snapshot;
    if (snapshotAt_)
      snapshot = loop_.at(wire_.now() + *snapshotAt_, [&] { snapshot_ = daemon.status(); });
    const int code = daemon.run();
    loop_.cancel(stop);
    loop_.cancel(watchTimer_);
    if (snapshot) loop_.cancel(*snapshot);
    status_ = daemon.status();
    return code;
  }

  FakePma pma_;
  std::size_t perfSent_{0};
  bool firstPerfBeforeUp_{false};
  std::optional<MadClock::time_point> upAt_;
  loop::EventLoop::TimerId watchTimer_{};
  control::DaemonStatus status_;
  std::optional<std::chrono::milliseconds> snapshotAt_;  // status() then, into snapshot_
  control::DaemonStatus snapshot_;
};

TEST_F(SmDaemonCountersTest, PassesEveryIntervalAsMasterWithTheAnswersNeverReachingTheSa) {
  settings_.counterInterval = 2s;
  // An SA query in the middle: still the SA's.
  std::vector<std::uint8_t> query(kMadSize, 0);
  query[0] = 1;
  query[1] = kSaClass;
  query[2] = kSaClassVersion;
  query[3] = 0x01;
  GmpAddress host;
  host.lid = Lid{42};
  gmps_.inject({query, host}, wire_.now() + 5s);
  EXPECT_EQ(run(9s), 0);

  EXPECT_FALSE(firstPerfBeforeUp_) << "no PerfMgt GMP before the subnet is up";
  const control::HealthCounters& h = status_.healthCounters;
  EXPECT_TRUE(h.figures.enabled);
  EXPECT_GE(h.figures.passes, 3U) << "up within a second, then a pass every 2 s";
  EXPECT_LE(h.figures.passes, 5U);
  EXPECT_EQ(h.figures.gmpsSent, perfSent_);
  EXPECT_EQ(h.figures.timeouts, 0U);
  EXPECT_GT(h.ports, 0U);
  EXPECT_GT(h.figures.allPortReads, 0U);
  EXPECT_GT(h.figures.portReadsSpared, 0U) << "nothing moved after the first pass";
  EXPECT_EQ(status_.sa.traffic.received, 1U) << "the SA saw its query and no PerfMgt answer";
  EXPECT_EQ(status_.sa.traffic.answered, 1U);
  EXPECT_EQ(status_.sa.traffic.droppedUndecodable, 0U);
}

TEST_F(SmDaemonCountersTest, ErrorCountersOverZeroAreInTheStatus) {
  settings_.counterInterval = 2s;
  const Fabric& f = wire_.fabric();
  const Node& leaf = f.node(f.switches().front());
  pma_.counters(PortKey{leaf.guid, 1}).symbolErrorCounter = 9;
  EXPECT_EQ(run(5s), 0);
  ASSERT_EQ(status_.healthCounters.overZero.size(), 1U);
  const control::CounterOverZero& c = status_.healthCounters.overZero.front();
  EXPECT_EQ(c.node, leaf.guid);
  EXPECT_EQ(c.port, 1);
  EXPECT_EQ(c.counter, "SymbolErrorCounter");
  EXPECT_EQ(c.total, 9U);
  EXPECT_EQ(c.last, 9U);
  EXPECT_FALSE(c.lowerBound);
}

TEST_F(SmDaemonCountersTest, TheStatusShowsTheQueuesEmptyAtTheEndAndTheMemoryHeld) {
  settings_.counterInterval = 2s;
  EXPECT_EQ(run(5s), 0);
  const control::ResourceCounts& r = status_.resources;
  EXPECT_EQ(r.madOutstanding + r.madQueued, 0U) << "nothing left once stopped";
  EXPECT_EQ(r.gmpOutstanding + r.gmpQueued, 0U);
  EXPECT_EQ(r.counterPorts, status_.healthCounters.ports) << "every port of the fabric, no more";
  EXPECT_GT(r.rssBytes, 0U);
#if !defined(__SANITIZE_ADDRESS__)  // ASan's allocator replaces glibc's: mallinfo2 says 0
  EXPECT_GT(r.heapInUse, 0U);
#endif
  EXPECT_GE(r.memoryReleases, 3U) << "after the heavy sweep and each counter pass";
}

// A silent PMA keeps the first pass waiting (timeouts and retries): the
// SIGTERM lands in the middle of it, and the daemon ends cleanly, its
// outstanding GMPs cancelled.
TEST_F(SmDaemonCountersTest, AStopInTheMiddleOfAPassEndsCleanly) {
  settings_.counterInterval = 2s;
  const Fabric& f = wire_.fabric();
  pma_.silence(f.node(f.switches().back()).guid);
  EXPECT_EQ(run(3500ms), 0);
  EXPECT_GT(perfSent_, 0U);
  EXPECT_EQ(status_.healthCounters.figures.passes, 0U) << "the first pass was still waiting";
}

// Issue 27: up as master, before the first pass, status said "counters
// off"; it says the sweep is on and when its first pass is due.
TEST_F(SmDaemonCountersTest, BeforeTheFirstPassTheStatusSaysWhenItIsDue) {
  settings_.counterInterval = 30s;
  snapshotAt_ = 3s;  // up within a second; the first pass 30 s after
  EXPECT_EQ(run(4s), 0);
  EXPECT_TRUE(snapshot_.up);
  EXPECT_TRUE(snapshot_.health.counterSweep.enabled);
  EXPECT_EQ(snapshot_.health.counterSweep.passes, 0U);
  const std::string text = control::formatStatus(snapshot_);
  EXPECT_EQ(text.find("counters off"), std::string::npos) << text;
  std::smatch due;
  ASSERT_TRUE(
      std::regex_search(text, due, std::regex("counters every 30 s, first pass in (\\d+) s")))
      << text;
  const int in = std::stoi(due[1]);
  EXPECT_GE(in, 25);
  EXPECT_LE(in, 30);
}

TEST_F(SmDaemonCountersTest, OffSendsNoPerfMgtGmp) {
  settings_.counterInterval = 0s;
  EXPECT_EQ(run(6s), 0);
  EXPECT_EQ(perfSent_, 0U);
  EXPECT_FALSE(status_.healthCounters.figures.enabled);
  EXPECT_EQ(status_.healthCounters.figures.passes, 0U);
}

}  // namespace
}  // namespace ibsm::sm::manager
