// `ibsm path` against a running daemon: on the fake fabric, once the subnet
// is up, the control request walks a pair through the tables the daemon
// holds, and its answer is the walk of the tables the switches really hold
// (the fake fabric's), hop for hop. Before any sweep, and for a name the
// fabric lacks, it answers an error.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <filesystem>
#include <thread>

#include "routing/analysis/PathFormat.h"
#include "routing/analysis/PathWalk.h"
#include "sm/control/ControlClient.h"
#include "sm/control/PathRequest.h"
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

TEST(SmDaemonPath, PathAnswersTheWalkOfTheTablesTheSwitchesHold) {
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

  const auto dir =
      std::filesystem::temp_directory_path() / ("ibsm-daemon-path-" + std::to_string(::getpid()));
  StateStore store(dir / "state");
  DaemonSettings settings;
  settings.sweep.plan.engines = {"ftree"};
  settings.controlSocket = dir / "control.sock";
  SmDaemon daemon(engine, loop, store, wire.fabric().port(smPort).guid, settings, {}, quiet);

  const std::string from = fabric.node(fabric.endNodes().front()).description;
  const std::string to = fabric.node(fabric.endNodes().back()).description;
  const std::string request = control::encodePathRequest({.from = from, .to = to});
  const std::string unknown = control::encodePathRequest({.from = from, .to = "no-such-host"});
  std::array<int, 2> sig{};
  ASSERT_EQ(::pipe(sig.data()), 0);
  loop.watch(sig[0], [&] {
    char c;
    (void)!::read(sig[0], &c, 1);
    daemon.signal(SIGTERM);
  });
  std::string before, answer, refused;
  std::jthread operatorThread([&] {
    const auto giveUp = WallClock::now() + 20s;
    while (WallClock::now() < giveUp) {
      if (before.empty())
        if (auto early = control::request(settings.controlSocket, request, 2s)) before = *early;
      auto status = control::request(settings.controlSocket, "status", 2s);
      if (status && status->find("\nup: yes\n") != std::string::npos) {
        if (auto a = control::request(settings.controlSocket, request, 5s)) answer = *a;
        if (auto a = control::request(settings.controlSocket, unknown, 5s)) refused = *a;
        break;
      }
      std::this_thread::sleep_for(5ms);
    }
    (void)!::write(sig[1], "x", 1);
  });
  EXPECT_EQ(daemon.run(), 0);
  operatorThread.join();
  loop.unwatch(sig[0]);
  ::close(sig[0]);
  ::close(sig[1]);
  std::filesystem::remove_all(dir);

  ASSERT_FALSE(answer.empty()) << "the subnet never came up, or path was not answered";
  // The judge: the fake switches' own tables, walked on the fake fabric.
  const Fabric& held = wire.fabric();
  std::vector<Lft> lfts(held.size());
  for (NodeId s : held.switches()) lfts[s].port = wire.lft(s);
  const auto src = analysis::findEndPort(held, from);
  const auto dst = analysis::findDestinationLid(held, to);
  ASSERT_TRUE(src && dst);
  const auto walk = analysis::walkUnicast(held, {lfts, {}}, *src, *dst, 0);
  ASSERT_EQ(walk.end, analysis::PathEnd::Delivered);
  EXPECT_EQ(answer, analysis::formatUnicastPath(held, walk));
  EXPECT_NE(answer.find(": delivered, 3 switch hops"), std::string::npos) << answer;
  EXPECT_EQ(refused.rfind("error: 'no-such-host': no node has this name", 0), 0u) << refused;
  if (!before.empty() && before.find("delivered") == std::string::npos) {
    EXPECT_EQ(before.rfind("error: no sweep", 0), 0u) << before;
  }
}

}  // namespace
}  // namespace ibsm::sm::manager
