// `ibsm dump` against a running daemon on the fake fabric: asked before the
// first sweep it answers an error; once the status says the subnet is up,
// "dump lfts" answers, framed, the LFT dump of the plan its sweep programmed
// (opensm-lfts.dump byte for byte) and "dump guid2lid" that plan's LIDs.
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>
#include <ibsm/Lids.h>
#include <spdlog/sinks/null_sink.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <filesystem>
#include <thread>

#include "sm/control/ControlClient.h"
#include "sm/control/DumpRequest.h"
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

TEST(SmDaemonDump, DumpAnswersTheTablesTheSweepProgrammedInTheDryRunsFormats) {
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
      std::filesystem::temp_directory_path() / ("ibsm-daemon-dump-" + std::to_string(::getpid()));
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
  std::string before, lfts, guid2lid;
  std::jthread operatorThread([&] {
    const auto giveUp = WallClock::now() + 20s;
    while (WallClock::now() < giveUp) {
      if (before.empty())
        if (auto early = control::request(settings.controlSocket, "dump lfts", 2s)) before = *early;
      auto status = control::request(settings.controlSocket, "status", 2s);
      if (status && status->find("\nup: yes\n") != std::string::npos) {
        if (auto answer = control::request(settings.controlSocket, "dump lfts", 5s)) lfts = *answer;
        if (auto answer = control::request(settings.controlSocket, "dump guid2lid", 5s))
          guid2lid = *answer;
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

  ASSERT_NE(daemon.lastResult(), nullptr);
  ASSERT_NE(daemon.lastResult()->plan, nullptr);
  const SubnetPlan& plan = *daemon.lastResult()->plan;
  auto text = control::unframeDump(lfts, control::DumpKind::Lfts);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, formatLftDump(plan.fabric, plan.routing));
  auto lids = control::unframeDump(guid2lid, control::DumpKind::Guid2Lid);
  ASSERT_TRUE(lids) << lids.error().message;
  EXPECT_EQ(*lids, formatGuid2Lid(toGuid2Lid(plan.lids)));
  // Asked before the first sweep programmed anything: an error, not an empty dump.
  if (!before.empty() && !before.starts_with("dump lfts ")) {
    EXPECT_TRUE(before.starts_with("error: no sweep has programmed")) << before;
  }
}

}  // namespace
}  // namespace ibsm::sm::manager
