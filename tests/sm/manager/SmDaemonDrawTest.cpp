// `ibsm draw` against a running daemon: on the fake fabric, once the status
// says the subnet is up, the control request "draw" answers the SVG of the
// fabric the sweep planned, every switch in it by name and every link
// coloured by the sweep's routes.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <filesystem>
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

TEST(SmDaemonDraw, DrawAnswersTheLastSweepsFabricColouredByItsRoutes) {
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
      std::filesystem::temp_directory_path() / ("ibsm-daemon-draw-" + std::to_string(::getpid()));
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
  std::string before, svg;
  std::jthread operatorThread([&] {
    const auto giveUp = WallClock::now() + 20s;
    while (WallClock::now() < giveUp) {
      if (before.empty())
        if (auto early = control::request(settings.controlSocket, "draw", 2s)) before = *early;
      auto status = control::request(settings.controlSocket, "status", 2s);
      if (status && status->find("\nup: yes\n") != std::string::npos) {
        if (auto answer = control::request(settings.controlSocket, "draw", 5s)) svg = *answer;
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

  ASSERT_FALSE(svg.empty()) << "the subnet never came up, or draw was not answered";
  std::printf("draw answered %zu bytes; before the first sweep: %.40s\n", svg.size(),
              before.c_str());
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u) << svg.substr(0, 200);
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  for (NodeId s : fabric.switches())
    EXPECT_NE(svg.find(fmt::format("data-name=\"{}\"", fabric.node(s).description)),
              std::string::npos)
        << fabric.node(s).description;
  EXPECT_EQ(svg.find("class=\"link noload"), std::string::npos);
  EXPECT_NE(svg.find("class=\"link l7"), std::string::npos);
  // Asked before the first sweep planned anything: an error, not an empty picture.
  if (!before.empty() && before.rfind("<?xml", 0) != 0) {
    EXPECT_EQ(before.rfind("error: no sweep", 0), 0u) << before;
  }
}

}  // namespace
}  // namespace ibsm::sm::manager
