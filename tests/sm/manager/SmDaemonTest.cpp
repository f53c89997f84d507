// The daemon loop end to end against the in-memory fake fabric, on the
// fake's clock (a minute of daemon life costs milliseconds): a lone SM
// becomes master and brings the subnet up; a quiet subnet then costs one
// SwitchInfo Get per switch per sweep interval and nothing else; a trap
// starts a light sweep at once; SIGHUP re-reads the config, keeping the
// running one when the new one is bad; SIGTERM ends the loop with 0, also
// in the middle of a sweep, whose MADs it cancels. --once is the same loop
// with an end: 0 when up (one walk of the fabric), 1 after its sweeps or
// beside another master, whose subnet it leaves alone. The tests read the
// daemon's status (what `ibsm status` and --stats show), not its log.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <sstream>

#include "sm/loop/EventLoop.h"
#include "sm/manager/SmDaemon.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using control::SweepCount;

using namespace std::chrono_literals;
using ibsm::testing::FakeFabricTransport;

bool isGet(const Smp& smp, AttributeId id) {
  return smp.header.method == Method::Get && smp.header.attributeId == id;
}

// A signal script: at fake time `at` (since the start), deliver `signal`.
struct Cue {
  std::chrono::milliseconds at;
  int signal;
};

class SmDaemonTest : public ::testing::Test {
 protected:
  SmDaemonTest()
      : wire_(ibsm::testing::unprogrammed(
                  ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8})),
              smPort()),
        stateDir_(std::filesystem::temp_directory_path() /
                  ("ibsm-daemon-test-" + std::to_string(::getpid()))),
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
  ~SmDaemonTest() override { std::filesystem::remove_all(stateDir_); }

  // The first CA port of the fabric: where the SM runs.
  PortRef smPort() const {
    static const PortRef p = [] {
      const Fabric f = ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
      for (NodeId n : f.endNodes()) return PortRef{n, 1};
      return PortRef{};
    }();
    return p;
  }

  // The signals arrive as the signal fd's would: from the loop, at their
  // time on the engine's (fake) clock.
  // `look`: when to take status_ of the running daemon (`ibsm status`);
  // without it, status_ is the one after run() (--stats).
  int run(std::vector<Cue> cues, ReloadSettings reload = {},
          std::optional<std::chrono::milliseconds> look = std::nullopt) {
    const auto start = wire_.now();
    SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(smPort()).guid, settings_,
                    std::move(reload), logger_);
    daemon.onLifecycle([this](SmDaemon::Lifecycle what, std::string_view line) {
      told_.emplace_back(what, std::string(line));
    });
    std::vector<loop::EventLoop::TimerId> timers;
    for (const Cue& c : cues)
      timers.push_back(loop_.at(start + c.at, [&daemon, c] { daemon.signal(c.signal); }));
    if (look) timers.push_back(loop_.at(start + *look, [&] { running_ = daemon.status(); }));
    const int status = daemon.run();
    for (auto t : timers) loop_.cancel(t);  // none may outlive `daemon`
    if (const SweepResult* r = daemon.lastResult()) lastUp_ = r->up;
    status_ = daemon.status();
    return status;
  }

  std::size_t switches() const { return wire_.fabric().switches().size(); }
  std::string log() const { return logText_.str(); }

  // Index of the first request sent after the subnet came up: the last Set.
  std::size_t afterBringUp() const {
    const auto& sent = wire_.sent();
    std::size_t last = 0;
    for (std::size_t i = 0; i < sent.size(); ++i)
      if (sent[i].smp.header.method == Method::Set) last = i + 1;
    return last;
  }

  FakeFabricTransport wire_;
  std::filesystem::path stateDir_;
  StateStore store_;
  std::ostringstream logText_;
  std::shared_ptr<spdlog::logger> logger_ = std::make_shared<spdlog::logger>(
      "daemon-test", std::make_shared<spdlog::sinks::ostream_sink_st>(logText_));
  loop::EventLoop loop_{wire_.clock()};
  std::optional<bool> lastUp_;     // the last sweep result's verdict, after run()
  control::DaemonStatus status_;   // what --stats would write, after run()
  control::DaemonStatus running_;  // what `ibsm status` said at run()'s `look`
  // What the service manager was told (SmDaemon::onLifecycle), in order.
  std::vector<std::pair<SmDaemon::Lifecycle, std::string>> told_;
  std::optional<MadEngine> engine_;
  DaemonSettings settings_;
};

TEST_F(SmDaemonTest, ALoneSmBecomesMasterAndBringsTheSubnetUp) {
  EXPECT_EQ(run({{15s, SIGTERM}}, {}, 14s), 0);
  EXPECT_EQ(running_.state, "MASTER") << log();
  EXPECT_GE(running_.states.changes, 1U);
  EXPECT_TRUE(running_.up) << log();
  EXPECT_TRUE(running_.times.firstUp);
  ASSERT_TRUE(status_.exit);
  EXPECT_EQ(status_.exit->reason, "stopped");
  EXPECT_EQ(status_.exit->signal, SIGTERM);
  for (const auto& node : wire_.fabric().nodes())
    for (const auto& port : node.ports) {
      if (port.number != 0 && port.connected()) {
        EXPECT_EQ(port.state, PortState::Active);
      }
    }
}

TEST_F(SmDaemonTest, AQuietSubnetCostsOneSwitchInfoGetPerSwitchPerInterval) {
  EXPECT_EQ(run({{45s, SIGTERM}}), 0);
  const auto& sent = wire_.sent();
  std::size_t switchInfoGets = 0;
  for (std::size_t i = afterBringUp(); i < sent.size(); ++i) {
    const auto& smp = sent[i].smp;
    if (isGet(smp, AttributeId::SwitchInfo))
      ++switchInfoGets;
    else
      ADD_FAILURE() << "unexpected SMP after bring-up: attribute "
                    << static_cast<int>(smp.header.attributeId);
  }
  // Light sweeps at 10, 20, 30 and 40 s.
  EXPECT_EQ(switchInfoGets, 4 * switches());
}

TEST_F(SmDaemonTest, ATrapStartsALightSweepAtOnce) {
  settings_.sweepInterval = 1000s;  // no timer-driven sweep in this test
  Smp trap = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
  Notice notice;
  notice.trapNumber = 128;
  notice.dataDetails = encodeDetails(Trap128Details{Lid{1}});
  trap.data = encode(notice);
  wire_.inject(trap, MadAddress::toLid(Lid{1}), 20s);
  EXPECT_EQ(run({{30s, SIGTERM}}), 0);
  std::size_t switchInfoGets = 0;
  for (std::size_t i = afterBringUp(); i < wire_.sent().size(); ++i)
    if (isGet(wire_.sent()[i].smp, AttributeId::SwitchInfo)) ++switchInfoGets;
  EXPECT_EQ(switchInfoGets, switches());
}

TEST_F(SmDaemonTest, SighupWithABadConfigKeepsTheRunningOne) {
  int reloads = 0;
  const auto bad = [&]() -> Result<DaemonSettings> {
    ++reloads;
    return fail("ibsm.toml:3: expected an integer for sm.priority");
  };
  EXPECT_EQ(run({{12s, SIGHUP}, {25s, SIGTERM}}, bad, 24s), 0);
  EXPECT_EQ(reloads, 1);
  EXPECT_EQ(status_.reloads.refused, 1U) << log();
  EXPECT_EQ(status_.reloads.taken, 0U);
  EXPECT_NE(status_.reloads.error.find("ibsm.toml:3"), std::string::npos) << status_.reloads.error;
  // Still master and still sweeping after the failed reload (at 20 s).
  EXPECT_EQ(running_.state, "MASTER");
  EXPECT_GE(running_.sweeps.byKind[SweepCount::LightQuiet], 2U);  // at 10 s, and 20 s
}

// New settings change the plan, not the fabric: the daemon re-plans on the
// last discovery and programs the difference, without rediscovering.
TEST_F(SmDaemonTest, SighupWithAGoodConfigReplansWithoutRediscovery) {
  const auto good = [&]() -> Result<DaemonSettings> {
    DaemonSettings s = settings_;
    s.priority = 7;
    return s;
  };
  EXPECT_EQ(run({{12s, SIGHUP}, {15s, SIGTERM}}, good), 0);
  EXPECT_EQ(status_.reloads.taken, 1U) << log();
  EXPECT_EQ(status_.priority, 7);
  EXPECT_EQ(status_.sweeps.byKind[SweepCount::Replan], 1U);
  ASSERT_TRUE(status_.sweeps.lastReplan) << log();
  EXPECT_EQ(status_.sweeps.lastReplan->mads, 0U);
  // Bring-up reads NodeInfo; after the reload nothing does.
  const auto& sent = wire_.sent();
  std::size_t nodeInfoAfter = 0;
  for (std::size_t i = afterBringUp(); i < sent.size(); ++i)
    if (isGet(sent[i].smp, AttributeId::NodeInfo)) ++nodeInfoAfter;
  EXPECT_EQ(nodeInfoAfter, 0U);
}

TEST_F(SmDaemonTest, TheServiceManagerHearsReadyAfterTheFirstSweepAndAroundAReload) {
  const auto same = [&]() -> Result<DaemonSettings> { return settings_; };
  EXPECT_EQ(run({{12s, SIGHUP}, {15s, SIGTERM}}, same), 0);
  using L = SmDaemon::Lifecycle;
  const std::vector<std::pair<L, std::string>> expected{{L::Ready, "MASTER, subnet up"},
                                                        {L::Reloading, "MASTER, subnet up"},
                                                        {L::Ready, "MASTER, subnet up"},
                                                        {L::Stopping, "MASTER, subnet up"}};
  EXPECT_EQ(told_, expected) << log();
}

TEST_F(SmDaemonTest, AStandbyTellsTheServiceManagerReadyAsSoonAsItIsOne) {
  PortRef other{};
  for (NodeId n : wire_.fabric().endNodes()) other = PortRef{n, 1};
  wire_.fabric().port(other).capabilityMask |= capability::kIsSm;
  wire_.runSm(other, SmInfo{.guid = wire_.fabric().port(other).guid,
                            .smKey = kDefaultSmKey,
                            .priority = 0,
                            .smState = SmState::Master});
  EXPECT_EQ(run({{5s, SIGTERM}}, {}, 4s), 0);
  EXPECT_EQ(running_.state, "STANDBY") << log();
  using L = SmDaemon::Lifecycle;
  const std::vector<std::pair<L, std::string>> expected{{L::Ready, "STANDBY"},
                                                        {L::Stopping, "STANDBY"}};
  EXPECT_EQ(told_, expected) << log();
}

std::size_t sentAfter(const FakeFabricTransport& wire, MadClock::time_point t) {
  return static_cast<std::size_t>(
      std::ranges::count_if(wire.sent(), [t](const auto& s) { return s.at > t; }));
}

TEST_F(SmDaemonTest, SigtermInTheMiddleOfASweepCancelsItAndExitsZero) {
  // Every LFT Set is lost: the take-over sweep waits out retries (800 ms).
  wire_.setFaults([](const Smp& smp, std::size_t) {
    return FakeFabricTransport::Fate::dropped(smp.header.method == Method::Set &&
                                              smp.header.attributeId ==
                                                  AttributeId::LinearForwardingTable);
  });
  const auto start = wire_.now();
  EXPECT_EQ(run({{300ms, SIGTERM}}), 0);
  ASSERT_TRUE(status_.exit) << log();
  EXPECT_EQ(status_.exit->reason, "stopped");
  EXPECT_EQ(status_.exit->stoppedDuring, "MASTER (take over)") << log();
  EXPECT_GT(engine_->counters().cancelled, 0U) << log();
  // Stopped at the signal: not a MAD more, no retry waited out.
  EXPECT_EQ(wire_.now() - start, 300ms);
  EXPECT_EQ(sentAfter(wire_, start + 300ms), 0U);
  EXPECT_EQ(status_.sweeps.failed, 0U) << "a cancelled sweep is no failure";
}

TEST_F(SmDaemonTest, OnceStopsWithZeroWhenUpAfterOneWalkOfTheFabric) {
  settings_.onceMaxSweeps = 3;
  EXPECT_EQ(run({}), 0);
  EXPECT_EQ(lastUp_, true);
  // The discovery of DISCOVERING is the take-over's: one walk.
  EXPECT_EQ(status_.sweeps.fabricWalks, 1U) << log();
  // Up is how it ended, as scripts read it (--stats), timed from the start.
  ASSERT_TRUE(status_.exit);
  EXPECT_EQ(status_.exit->code, 0);
  EXPECT_EQ(status_.exit->reason, "up");
  EXPECT_TRUE(status_.up);
  EXPECT_TRUE(status_.times.firstUp);
}

TEST_F(SmDaemonTest, OnceGivesUpAfterItsSweepsWithTheReasons) {
  settings_.onceMaxSweeps = 2;
  wire_.setFaults([](const Smp& smp, std::size_t) {
    const bool lft = smp.header.method == Method::Set &&
                     smp.header.attributeId == AttributeId::LinearForwardingTable;
    return lft ? FakeFabricTransport::Fate::answeredWith(madstatus::kInvalidField)
               : FakeFabricTransport::Fate{};
  });
  EXPECT_EQ(run({}), 1);
  ASSERT_TRUE(status_.exit) << log();
  EXPECT_EQ(status_.exit->reason, "not up after 2 sweeps");
  ASSERT_FALSE(status_.exit->details.empty());
  EXPECT_TRUE(status_.exit->details.front().starts_with("programming:"))
      << status_.exit->details.front();
  EXPECT_FALSE(status_.up);
  EXPECT_FALSE(status_.times.firstUp) << "never up";
  EXPECT_EQ(status_.sweeps.byKind[SweepCount::Takeover] + status_.sweeps.byKind[SweepCount::Heavy],
            2U);
}

TEST_F(SmDaemonTest, OnceLeavesTheSubnetToAnExistingMaster) {
  settings_.onceMaxSweeps = 3;
  // Another SM, master already, on the last CA port of the fabric.
  PortRef other{};
  for (NodeId n : wire_.fabric().endNodes()) other = PortRef{n, 1};
  wire_.fabric().port(other).capabilityMask |= capability::kIsSm;
  const SmInfo master{.guid = wire_.fabric().port(other).guid,
                      .smKey = kDefaultSmKey,
                      .priority = 0,
                      .smState = SmState::Master};
  wire_.runSm(other, master);
  EXPECT_EQ(run({}), 1);
  ASSERT_TRUE(status_.exit) << log();
  EXPECT_EQ(status_.exit->reason, "another SM has the subnet");
  ASSERT_EQ(status_.exit->details.size(), 1U);
  EXPECT_TRUE(status_.exit->details.front().starts_with(
      fmt::format("SM {} (priority 0, MASTER)", master.guid)))
      << status_.exit->details.front();
  // It read the fabric and the SMs, and wrote nothing.
  EXPECT_TRUE(std::ranges::none_of(
      wire_.sent(), [](const auto& s) { return s.smp.header.method == Method::Set; }));
}

}  // namespace
}  // namespace ibsm::sm::manager
