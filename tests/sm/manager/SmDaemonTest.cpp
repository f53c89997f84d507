// The daemon loop end to end against the in-memory fake fabric, on the
// fake's clock (a minute of daemon life costs milliseconds): a lone SM
// becomes master and brings the subnet up; a quiet subnet then costs one
// SwitchInfo Get per switch per sweep interval and nothing else; a trap
// starts a light sweep at once; SIGHUP re-reads the config, keeping the
// running one when the new one is bad; SIGTERM ends the loop with 0.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <csignal>
#include <filesystem>
#include <sstream>

#include "FabricFixtures.h"
#include "FakeFabricTransport.h"
#include "SmDaemon.h"
#include "SubnetSnapshot.h"

namespace ibsm::sm {
namespace {

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
    o.clock = wire_.clock();
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

  int run(std::vector<Cue> cues, ReloadSettings reload = {}) {
    const auto start = wire_.now();
    SmDaemon daemon(*engine_, store_, wire_.fabric().port(smPort()).guid, settings_,
                    std::move(reload), logger_);
    return daemon.run([&]() -> std::optional<int> {
      if (cues.empty() || wire_.now() - start < cues.front().at) return std::nullopt;
      const int sig = cues.front().signal;
      cues.erase(cues.begin());
      return sig;
    });
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
  std::optional<MadEngine> engine_;
  DaemonSettings settings_;
};

TEST_F(SmDaemonTest, ALoneSmBecomesMasterAndBringsTheSubnetUp) {
  EXPECT_EQ(run({{15s, SIGTERM}}), 0);
  EXPECT_NE(log().find("SM-0101 state MASTER"), std::string::npos) << log();
  EXPECT_NE(log().find("SM-0001 subnet up"), std::string::npos) << log();
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
  EXPECT_EQ(run({{12s, SIGHUP}, {25s, SIGTERM}}, bad), 0);
  EXPECT_EQ(reloads, 1);
  EXPECT_NE(log().find("SM-0108"), std::string::npos) << log();
  EXPECT_NE(log().find("ibsm.toml:3"), std::string::npos);
  // Still master and still sweeping after the failed reload.
  EXPECT_NE(log().find("SM-0101 state MASTER"), std::string::npos);
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
  EXPECT_NE(log().find("SM-0107 configuration reloaded: priority 7"), std::string::npos) << log();
  EXPECT_NE(log().find("SM-0114 re-planned with the new configuration: 0 MADs"), std::string::npos)
      << log();
  // Bring-up reads NodeInfo; after the reload nothing does.
  const auto& sent = wire_.sent();
  std::size_t nodeInfoAfter = 0;
  for (std::size_t i = afterBringUp(); i < sent.size(); ++i)
    if (isGet(sent[i].smp, AttributeId::NodeInfo)) ++nodeInfoAfter;
  EXPECT_EQ(nodeInfoAfter, 0U);
}

}  // namespace
}  // namespace ibsm::sm
