// Traps never drive the daemon faster than a sweep can usefully run, on
// the fake fabric's clock: traps that arrive together are answered by one
// sweep; a port repeating traps (2,000 a second) turns noisy within
// milliseconds and costs at most one sweep over what a quiet fabric runs,
// is named in `ibsm health`, and asks for sweeps again once it calms down;
// a trap whose Notice names another port than its sender is dropped;
// traps 256/257/258 are counted per port; trap log lines are held back per
// port and counted. Every trap is repressed (the IBA has the SM answer a
// Trap() with a TrapRepress(), so the SMA stops resending it). The tests
// read the daemon's status and health, not its log.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include <csignal>
#include <filesystem>

#include "sm/loop/EventLoop.h"
#include "sm/manager/SmDaemon.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::FakeFabricTransport;

Fabric fabric() {
  return ibsm::testing::unprogrammed(
      ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}));
}

// A daemon on its own fake fabric, with its own state directory.
struct TrapBench {
  TrapBench()
      : wire_(fabric(), smPort()),
        stateDir_(std::filesystem::temp_directory_path() /
                  ("ibsm-trap-test-" + std::to_string(::getpid()) + "-" +
                   std::to_string(reinterpret_cast<std::uintptr_t>(this)))),
        store_(stateDir_) {
    wire_.fabric().port(smPort()).capabilityMask |= capability::kIsSm;
    MadEngineOptions o;
    o.clock = loop_.clock();
    o.waiter = &loop_;
    o.logger = logger_;
    engine_.emplace(wire_, o);
    settings_.sweep.plan.engines = {"ftree"};
    settings_.sweepInterval = 10s;
  }
  ~TrapBench() { std::filesystem::remove_all(stateDir_); }
  TrapBench(const TrapBench&) = delete;
  TrapBench& operator=(const TrapBench&) = delete;

  static PortRef smPort() {
    static const PortRef p = [] {
      const Fabric f = fabric();
      for (NodeId n : f.endNodes()) return PortRef{n, 1};
      return PortRef{};
    }();
    return p;
  }

  static Smp trapSmp(std::uint16_t number, Lid issuer) {
    Smp smp = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
    Notice notice;
    notice.trapNumber = number;
    notice.issuerLid = issuer;
    if (number == 128) notice.dataDetails = encodeDetails(Trap128Details{issuer});
    smp.data = encode(notice);
    return smp;
  }

  // `count` traps `number` from LID `from` naming `issuer`, `gap` apart from `at`.
  void traps(std::uint16_t number, Lid from, Lid issuer, std::chrono::microseconds at, int count,
             std::chrono::microseconds gap = 0us) {
    for (int i = 0; i < count; ++i)
      wire_.inject(trapSmp(number, issuer), MadAddress::toLid(from), at + i * gap);
  }
  void storm(Lid from, std::chrono::microseconds at, std::chrono::seconds length) {
    traps(128, from, from, at, static_cast<int>(length / 500us), 500us);  // 2,000/s
  }

  // Runs to SIGTERM at `stop`; status and health taken at `look` too.
  void run(std::chrono::milliseconds stop, std::chrono::milliseconds look) {
    const auto start = wire_.now();
    SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(smPort()).guid, settings_, {},
                    logger_);
    const auto t1 = loop_.at(start + stop, [&daemon] { daemon.signal(SIGTERM); });
    const auto t2 = loop_.at(start + look, [&] {
      running_ = daemon.status();
      health_ = daemon.health();
    });
    ASSERT_EQ(daemon.run(), 0);
    loop_.cancel(t1);
    loop_.cancel(t2);
    status_ = daemon.status();
  }

  std::size_t represses() const {
    std::size_t n = 0;
    for (const auto& s : wire_.sent()) n += s.smp.header.method == Method::TrapRepress ? 1 : 0;
    return n;
  }

  FakeFabricTransport wire_;
  std::filesystem::path stateDir_;
  StateStore store_;
  std::shared_ptr<spdlog::logger> logger_ = std::make_shared<spdlog::logger>(
      "trap-test", std::make_shared<spdlog::sinks::null_sink_st>());
  loop::EventLoop loop_{wire_.clock()};
  std::optional<MadEngine> engine_;
  DaemonSettings settings_;
  control::DaemonStatus status_;
  control::DaemonStatus running_;
  health::HealthView health_;
};

class SmDaemonTrapTest : public ::testing::Test, public TrapBench {};

TEST_F(SmDaemonTrapTest, TrapsArrivingTogetherAreAnsweredByOneSweep) {
  settings_.sweepInterval = 1000s;  // no timed sweep
  // Five switches' traps within 2 ms.
  for (std::uint16_t k = 0; k < 5; ++k)
    traps(128, Lid{static_cast<std::uint16_t>(k + 1)}, Lid{static_cast<std::uint16_t>(k + 1)},
          20s + k * 500us, 1);
  run(30s, 29s);
  EXPECT_EQ(status_.traps.received, 5U);
  EXPECT_EQ(status_.traps.stood, 5U);
  EXPECT_EQ(status_.traps.sweepsRequested, 1U);
  EXPECT_EQ(status_.traps.coalesced, 4U);
  EXPECT_EQ(represses(), 5U);
}

TEST_F(SmDaemonTrapTest, AStormFromOnePortCostsAtMostOneSweepAndTheHealthNamesItNoisy) {
  // Bring-up ends within 10 s; the storm from 12 s to 17 s, 10,000 traps.
  storm(Lid{9}, 12s, 5s);
  run(19s, 16s);
  EXPECT_EQ(status_.traps.received, 10000U);
  EXPECT_EQ(represses(), 10000U);  // every one repressed, noisy or not
  EXPECT_LE(status_.traps.sweepsRequested, 1U);
  EXPECT_EQ(status_.traps.noisyEpisodes, 1U);
  EXPECT_GT(status_.traps.noisyIgnored, 9900U);
  EXPECT_GT(status_.traps.logSuppressed, 9900U);
  EXPECT_EQ(running_.traps.noisyPorts, 1U);
  ASSERT_EQ(health_.trapPorts.size(), 1U);
  EXPECT_EQ(health_.trapPorts[0].lid, Lid{9});
  EXPECT_TRUE(health_.trapPorts[0].noisy);
  EXPECT_GT(health_.trapPorts[0].rate, 1000.0);
}

TEST_F(SmDaemonTrapTest, AStormRunsNoMoreSweepsThanAQuietFabricPlusOne) {
  settings_.sweepInterval = 3s;
  storm(Lid{9}, 11s, 6s);
  run(19s, 18s);
  const std::uint64_t stormy = status_.sweeps.total;

  TrapBench quiet;  // the same fabric and settings, no storm
  quiet.settings_.sweepInterval = 3s;
  quiet.run(19s, 18s);
  EXPECT_LE(stormy, quiet.status_.sweeps.total + 1);
  EXPECT_GT(quiet.status_.sweeps.total, 3U);  // the timed sweeps ran in both
}

TEST_F(SmDaemonTrapTest, ANoisyPortThatCalmsDownAsksForSweepsAgain) {
  settings_.sweepInterval = 1000s;
  storm(Lid{9}, 12s, 1s);
  traps(128, Lid{9}, Lid{9}, 20s, 1);  // one trap, 7 s after the storm
  run(25s, 19s);
  EXPECT_EQ(running_.traps.noisyPorts, 0U);
  EXPECT_EQ(status_.traps.noisyEpisodes, 1U);
  EXPECT_EQ(status_.traps.sweepsRequested, 1U);  // the lone trap's
}

TEST_F(SmDaemonTrapTest, ATrapNamingAnotherPortThanItsSenderIsDroppedAndCounted) {
  settings_.sweepInterval = 1000s;
  traps(128, Lid{9}, Lid{4}, 12s, 3);  // issuer LID 4, sent from LID 9
  traps(144, Lid{9}, Lid{9}, 14s, 1);  // a matching one stands
  run(20s, 19s);
  EXPECT_EQ(status_.traps.mismatched, 3U);
  EXPECT_EQ(status_.traps.sweepsRequested, 1U);
  EXPECT_EQ(represses(), 4U);
  ASSERT_EQ(health_.trapPorts.size(), 1U);
  EXPECT_EQ(health_.trapPorts[0].mismatched, 3U);
}

TEST_F(SmDaemonTrapTest, BadKeyTrapsAreCountedPerPortInHealth) {
  traps(257, Lid{5}, Lid{5}, 12s, 2, 1s);
  traps(258, Lid{6}, Lid{6}, 12s, 1);
  traps(256, Lid{6}, Lid{6}, 13s, 1);
  run(20s, 19s);
  ASSERT_EQ(health_.trapPorts.size(), 2U);
  EXPECT_EQ(health_.trapPorts[0].lid, Lid{5});
  EXPECT_EQ(health_.trapPorts[0].badPKey, 2U);
  EXPECT_EQ(health_.trapPorts[1].badQKey, 1U);
  EXPECT_EQ(health_.trapPorts[1].badMKey, 1U);
  EXPECT_EQ(status_.traps.byNumber.at("257"), 2U);
}

}  // namespace
}  // namespace ibsm::sm::manager
