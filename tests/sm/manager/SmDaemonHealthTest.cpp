// The daemon's health side end to end on the in-memory fake fabric (its
// clock: seconds of daemon life cost milliseconds): a cable whose two ends
// enable 4x but train at 1x is listed downgraded after the first sweep, once;
// with downgraded = "isolate" the plan routes around it (no LFT entry of
// either switch uses it) and the entry says so; a host cable in the same
// state stays, with why; a switch whose LFT is lost under the SM is reported
// rebooted. Read from the status (`ibsm status`), not the log.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <functional>

#include "sm/loop/EventLoop.h"
#include "sm/manager/SmDaemon.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;

Fabric fatTree() {
  return ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
}

PortRef smPort() {
  const Fabric f = fatTree();
  return {f.endNodes().front(), 1};
}

// A switch port cabled to a switch, and one cabled to a CA.
PortRef firstPortTo(const Fabric& f, bool toSwitch) {
  for (NodeId n : f.switches())
    for (std::uint8_t p = 1; p < f.node(n).ports.size(); ++p)
      if (const auto& r = f.node(n).ports[p].remote; r && f.node(r->node).isSwitch() == toSwitch)
        return {n, p};
  return {};
}

class SmDaemonHealthTest : public ::testing::Test {
 protected:
  SmDaemonHealthTest()
      : wire_(ibsm::testing::unprogrammed(fatTree()), smPort()),
        stateDir_(std::filesystem::temp_directory_path() /
                  ("ibsm-daemon-health-test-" + std::to_string(::getpid()))),
        store_(stateDir_) {
    wire_.fabric().port(smPort()).capabilityMask |= capability::kIsSm;
    engine_.emplace(wire_,
                    MadEngineOptions{.clock = loop_.clock(), .waiter = &loop_, .logger = logger_});
    settings_.sweep.plan.engines = {"ftree"};
    settings_.sweepInterval = 10s;
  }
  ~SmDaemonHealthTest() override { std::filesystem::remove_all(stateDir_); }

  // Both ends enable 1x|4x, the link trained at 1x.
  void narrow(PortRef end) {
    for (PortRef p : {end, *wire_.fabric().port(end).remote}) {
      LinkAttrs& l = wire_.fabric().port(p).link;
      l.widthSupported = l.widthEnabled = 3;
      l.widthActive = 1;
    }
  }

  // Runs the daemon for 25 s of fake time; the status at 24 s. `meanwhile`
  // happens to the fabric at 12 s, after the first sweeps.
  void run(const std::function<void()>& meanwhile = {}) {
    const auto start = wire_.now();
    SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(smPort()).guid, settings_, {},
                    logger_);
    auto look = loop_.at(start + 24s, [&] { status_ = daemon.status(); });
    auto stop = loop_.at(start + 25s, [&] { daemon.signal(SIGTERM); });
    auto change = loop_.at(start + 12s, [&] {
      if (meanwhile) meanwhile();
    });
    EXPECT_EQ(daemon.run(), 0);
    loop_.cancel(look);
    loop_.cancel(stop);
    loop_.cancel(change);
    if (const SweepResult* r = daemon.lastResult()) plan_ = r->plan;
  }

  // Does any planned LFT entry of the switch with this GUID leave by `port`?
  bool routesThrough(Guid sw, std::uint8_t port) const {
    const auto id = plan_->fabric.findNode(sw);
    const auto& lft = plan_->routing.lfts.at(*id).port;
    return std::ranges::find(lft, port) != lft.end();
  }

  ibsm::testing::FakeFabricTransport wire_;
  std::filesystem::path stateDir_;
  StateStore store_;
  std::shared_ptr<spdlog::logger> logger_ = std::make_shared<spdlog::logger>(
      "health-test", std::make_shared<spdlog::sinks::null_sink_st>());
  loop::EventLoop loop_{wire_.clock()};
  std::optional<MadEngine> engine_;
  DaemonSettings settings_;
  control::DaemonStatus status_;
  std::shared_ptr<const SubnetPlan> plan_;
};

TEST_F(SmDaemonHealthTest, ADowngradedCableIsListedOnceWithBothEnds) {
  const PortRef trunk = firstPortTo(wire_.fabric(), true);
  narrow(trunk);
  run();
  ASSERT_EQ(status_.unhealthy.size(), 1U);
  const auto& e = status_.unhealthy[0];
  EXPECT_EQ(e.condition, health::Condition::Downgraded);
  ASSERT_TRUE(e.peer);
  EXPECT_NE(e.detail.find("4x SDR expected, 1x SDR active; "), std::string::npos) << e.detail;
  EXPECT_EQ(e.action, health::Action::Report);
  EXPECT_FALSE(e.isolated);
  ASSERT_TRUE(plan_);
  EXPECT_TRUE(routesThrough(wire_.fabric().node(trunk.node).guid, trunk.port));
}

TEST_F(SmDaemonHealthTest, IsolateRoutesAroundTheCableAndKeepsAHostsOnlyCable) {
  settings_.health.policy.action[static_cast<std::size_t>(health::Condition::Downgraded)] =
      health::Action::Isolate;
  const PortRef trunk = firstPortTo(wire_.fabric(), true);
  const PortRef host = firstPortTo(wire_.fabric(), false);
  narrow(trunk);
  narrow(host);
  run();
  ASSERT_EQ(status_.unhealthy.size(), 2U);
  const Guid trunkSw = wire_.fabric().node(trunk.node).guid;
  for (const auto& e : status_.unhealthy) {
    const bool isTrunk = (e.port == PortKey{trunkSw, trunk.port}) ||
                         (e.peer && *e.peer == PortKey{trunkSw, trunk.port});
    EXPECT_EQ(e.isolated, isTrunk) << e.name;
    if (!isTrunk) {
      EXPECT_NE(e.notIsolatedWhy.find("the only way to reach"), std::string::npos);
    }
  }
  ASSERT_TRUE(plan_);
  EXPECT_FALSE(routesThrough(trunkSw, trunk.port));
  const PortRef far = *wire_.fabric().port(trunk).remote;
  EXPECT_FALSE(routesThrough(wire_.fabric().node(far.node).guid, far.port));
  EXPECT_TRUE(status_.up);
}

TEST_F(SmDaemonHealthTest, ASwitchThatLostItsTablesIsReportedRebooted) {
  const NodeId sw = wire_.fabric().switches().front();
  run([&] { wire_.fabric().node(sw).switchData->linearFdbTop = 0; });
  ASSERT_EQ(status_.unhealthy.size(), 1U);
  const auto& e = status_.unhealthy[0];
  EXPECT_EQ(e.condition, health::Condition::Rebooted);
  EXPECT_EQ(e.port, (PortKey{wire_.fabric().node(sw).guid, 0}));
  EXPECT_NE(e.detail.find("LFT was lost"), std::string::npos) << e.detail;
  EXPECT_TRUE(status_.up) << "the heavy sweep that follows programs it again";
}

}  // namespace
}  // namespace ibsm::sm::manager
