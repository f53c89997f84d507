// The daemon's one event loop in real time: a sweep on the fake fabric is
// slowed to about a second of wall-clock time (every receive also sleeps),
// and in the middle of it `ibsm status` over the real control socket is
// answered within 100 ms with the sweeping phase, and a "signal" -- a
// pipe the loop watches, as it watches the signalfd -- stops the daemon
// within 100 ms with exit 0. The daemon itself still runs on the fake clock.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <unistd.h>

#include <array>
#include <atomic>
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

// The fake fabric, but every receive also takes `delay` of real time.
class SlowWire final : public MadTransport {
 public:
  SlowWire(FakeFabricTransport& inner, std::chrono::microseconds delay)
      : inner_(inner), delay_(delay) {}
  Result<void> send(const MadBuffer& mad, MadAddress to) override { return inner_.send(mad, to); }
  Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override {
    std::this_thread::sleep_for(delay_);
    return inner_.receive(deadline);
  }
  int pollFd() const override { return -1; }

 private:
  FakeFabricTransport& inner_;
  std::chrono::microseconds delay_;
};

TEST(SmDaemonLoop, StatusAndSigtermAreServedInTheMiddleOfASweep) {
  const Fabric fabric = ibsm::testing::unprogrammed(
      ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}));
  PortRef smPort{};
  for (NodeId n : fabric.endNodes()) {
    smPort = PortRef{n, 1};
    break;
  }
  FakeFabricTransport wire(fabric, smPort);
  wire.fabric().port(smPort).capabilityMask |= capability::kIsSm;
  SlowWire slow(wire, 1ms);
  loop::EventLoop loop(wire.clock());
  MadEngineOptions o;
  o.clock = loop.clock();
  o.waiter = &loop;
  auto quiet =
      std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_st>());
  o.logger = quiet;
  MadEngine engine(slow, o);

  const auto dir =
      std::filesystem::temp_directory_path() / ("ibsm-daemon-loop-" + std::to_string(::getpid()));
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

  std::atomic<bool> sweeping{false};
  WallClock::duration slowest{};
  WallClock::time_point killed{};
  std::string lastAnswer;
  std::jthread operatorThread([&] {
    const auto giveUp = WallClock::now() + 20s;
    while (WallClock::now() < giveUp) {
      const auto asked = WallClock::now();
      auto answer = control::request(settings.controlSocket, "status", 2s);
      if (answer) {
        slowest = std::max(slowest, WallClock::now() - asked);
        lastAnswer = *answer;
        if (answer->find("phase: MASTER (take over)") != std::string::npos) {
          sweeping = true;
          break;
        }
      }
      std::this_thread::sleep_for(5ms);
    }
    killed = WallClock::now();
    (void)!::write(sig[1], "x", 1);
  });
  const int status = daemon.run();
  const auto stopped = WallClock::now();
  operatorThread.join();
  loop.unwatch(sig[0]);
  ::close(sig[0]);
  ::close(sig[1]);
  std::filesystem::remove_all(dir);

  EXPECT_EQ(status, 0);
  EXPECT_TRUE(sweeping) << "no status showed the take-over sweep; last:\n" << lastAnswer;
  EXPECT_LT(slowest, 100ms);
  EXPECT_LT(stopped - killed, 100ms);
  std::printf("status answered within %.1f ms at worst; stopped %.1f ms after the signal\n",
              std::chrono::duration<double, std::milli>(slowest).count(),
              std::chrono::duration<double, std::milli>(stopped - killed).count());
  // The sweep was cut short: the fabric is not all Active. (The signal may
  // land while the plan runs on its own thread with no MAD in flight, so the
  // engine's cancelled count is no witness; the ports' states are.)
  std::size_t linked = 0;
  std::size_t active = 0;
  for (const auto& node : wire.fabric().nodes())
    for (const auto& port : node.ports)
      if (port.number != 0 && port.connected()) {
        ++linked;
        active += port.state == PortState::Active ? 1 : 0;
      }
  EXPECT_GT(linked, 0U);
  EXPECT_LT(active, linked);
}

}  // namespace
}  // namespace ibsm::sm::manager
