// `ibsm sweep --rebalance` over the real control socket, on the fake fabric:
// the heavy sweep it asks for routes afresh and status counts it under
// sweeps_rebalance, as ibsm(8) says, not under sweeps_heavy. Two asks, two
// rebalances; the heavy count stays what bring-up left, and last_heavy (the
// last sweep that walked the fabric) is the second rebalance.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <thread>

#include "sm/control/ControlClient.h"
#include "sm/loop/EventLoop.h"
#include "sm/manager/SmDaemon.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::FakeFabricTransport;
using WallClock = std::chrono::steady_clock;

// The value of `key: N` in `ibsm status` text.
std::optional<std::uint64_t> count(const std::string& status, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(status, m, std::regex("\n" + key + ": ([0-9]+)\n"))) return std::nullopt;
  return std::stoull(m[1].str());
}

struct Counts {
  std::uint64_t heavy{0};
  std::uint64_t rebalance{0};
};

std::optional<Counts> sweepCounts(const std::filesystem::path& socket) {
  auto status = control::request(socket, "status", 2s);
  if (!status) return std::nullopt;
  auto heavy = count(*status, "sweeps_heavy");
  auto rebalance = count(*status, "sweeps_rebalance");
  if (!heavy || !rebalance) return std::nullopt;
  return Counts{*heavy, *rebalance};
}

TEST(SmDaemonRebalance, SweepRebalanceCountsAsARebalanceNotAsAHeavySweep) {
  const Fabric fabric = ibsm::testing::unprogrammed(
      ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}));
  const PortRef smPort{fabric.endNodes().front(), 1};
  FakeFabricTransport wire(fabric, smPort);
  wire.fabric().port(smPort).capabilityMask |= capability::kIsSm;
  loop::EventLoop loop(wire.clock());
  MadEngineOptions o;
  o.clock = loop.clock();
  o.waiter = &loop;
  auto quiet =
      std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_st>());
  o.logger = quiet;
  MadEngine engine(wire, o);

  const auto dir = std::filesystem::temp_directory_path() /
                   ("ibsm-daemon-rebalance-" + std::to_string(::getpid()));
  StateStore store(dir / "state");
  DaemonSettings settings;
  settings.sweep.plan.engines = {"ftree"};
  settings.controlSocket = dir / "control.sock";
  SmDaemon daemon(engine, loop, store, wire.fabric().port(smPort).guid, settings, {}, quiet);

  std::array<int, 2> sig{};
  ASSERT_EQ(::pipe(sig.data()), 0);
  loop.watch(sig[0], [&] {
    char c;
    (void)!::read(sig[0], &c, 1);
    daemon.signal(SIGTERM);
  });
  std::optional<Counts> atUp, after;
  std::vector<std::string> answers;
  std::string lastStatus;
  int upAsks = 0;  // for the failure message: what the wait for "up" saw
  std::string lastUpAnswer;
  std::jthread operatorThread([&] {
    const auto giveUp = WallClock::now() + 20s;
    const auto isUp = [&] {
      auto s = control::request(settings.controlSocket, "status", 2s);
      ++upAsks;
      lastUpAnswer = s ? s->substr(0, 300) : "error: " + s.error().message;
      return s && s->find("\nup: yes\n") != std::string::npos;
    };
    while (WallClock::now() < giveUp && !isUp()) std::this_thread::sleep_for(5ms);
    atUp = sweepCounts(settings.controlSocket);
    // Each ask waits for its sweep: one more heavy or rebalance than before.
    for (int ask = 0; ask < 2 && atUp; ++ask) {
      const auto before = sweepCounts(settings.controlSocket);
      if (!before) break;
      if (auto a = control::request(settings.controlSocket, "sweep rebalance", 2s))
        answers.push_back(*a);
      while (WallClock::now() < giveUp) {
        after = sweepCounts(settings.controlSocket);
        if (after && after->heavy + after->rebalance > before->heavy + before->rebalance) break;
        std::this_thread::sleep_for(5ms);
      }
    }
    if (auto s = control::request(settings.controlSocket, "status", 2s)) lastStatus = *s;
    (void)!::write(sig[1], "x", 1);
  });
  EXPECT_EQ(daemon.run(), 0);
  operatorThread.join();
  loop.unwatch(sig[0]);
  ::close(sig[0]);
  ::close(sig[1]);
  std::filesystem::remove_all(dir);

  ASSERT_TRUE(atUp) << "the subnet never came up";
  ASSERT_TRUE(after) << "no status after the asks";
  EXPECT_EQ(answers.size(), 2U) << upAsks << " status asks before up; the last:\n" << lastUpAnswer;
  EXPECT_EQ(after->rebalance, atUp->rebalance + 2);
  EXPECT_EQ(after->heavy, atUp->heavy);
  EXPECT_NE(lastStatus.find("\nlast_heavy: rebalance "), std::string::npos) << lastStatus;
}

}  // namespace
}  // namespace ibsm::sm::manager
