// The daemon's plan runs off its loop (MasterSweep.h, "Threads"): while a
// plan is computed -- made to take a second of real time by the test-only
// SweepSettings::testOnPlanThread -- `ibsm status` over the real control
// socket is answered within 100 ms, again and again, and a "signal" (a pipe
// the loop watches, as it watches the signalfd) stops the daemon within
// 100 ms, the plan abandoned. Times are the wall clock's around each
// request and the hook's own marks of the plan's start and end; the daemon
// itself runs on the fake fabric's clock.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <mutex>
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

// What the hook on the planning thread saw. Shared: an abandoned plan's
// thread outlives the daemon and may outlive the test's frame.
struct PlanMarks {
  std::mutex mutex;
  std::condition_variable cv;
  bool released{false};  // the hook may return
  std::atomic<int> started{0};
  std::atomic<bool> ended{false};
  WallClock::time_point startedAt{};
  WallClock::time_point endedAt{};
  std::thread::id thread{};

  // Holds the plan until released or `most` has passed.
  void hold(std::chrono::milliseconds most) {
    std::unique_lock lock(mutex);
    thread = std::this_thread::get_id();
    startedAt = WallClock::now();
    ++started;
    cv.wait_for(lock, most, [this] { return released; });
    endedAt = WallClock::now();
    ended = true;
  }
  void release() {
    const std::scoped_lock lock(mutex);
    released = true;
    cv.notify_all();
  }
};

struct Answer {
  WallClock::time_point asked;
  WallClock::time_point answered;
};

PortRef firstEndPort(const Fabric& fabric) {
  for (NodeId n : fabric.endNodes()) return PortRef{n, 1};
  return PortRef{};
}

class PlanOffLoop : public ::testing::Test {
 protected:
  PlanOffLoop()
      : fabric_(ibsm::testing::unprogrammed(
            ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}))),
        smPort_(firstEndPort(fabric_)),
        wire_(fabric_, smPort_),
        loop_(wire_.clock()),
        dir_(std::filesystem::temp_directory_path() /
             ("ibsm-plan-off-loop-" + std::to_string(::getpid()))) {
    wire_.fabric().port(smPort_).capabilityMask |= capability::kIsSm;
    MadEngineOptions o;
    o.clock = loop_.clock();
    o.waiter = &loop_;
    o.logger = quiet_;
    engine_.emplace(wire_, o);
    settings_.sweep.plan.engines = {"ftree"};
    settings_.controlSocket = dir_ / "control.sock";
    EXPECT_EQ(::pipe(sig_.data()), 0);
  }
  ~PlanOffLoop() override {
    ::close(sig_[0]);
    ::close(sig_[1]);
    std::filesystem::remove_all(dir_);
  }

  // The daemon, with every plan held by `marks` up to `most`, run until
  // the operator (on its own thread) sends the signal; returns its exit.
  int runDaemon(const std::shared_ptr<PlanMarks>& marks, std::chrono::milliseconds most,
                const std::function<void()>& operatorWork) {
    settings_.sweep.testOnPlanThread = [marks, most] { marks->hold(most); };
    daemon_.emplace(*engine_, loop_, store_, wire_.fabric().port(smPort_).guid, settings_,
                    ReloadSettings{}, quiet_);
    loop_.watch(sig_[0], [this] {
      char c;
      (void)!::read(sig_[0], &c, 1);
      daemon_->signal(SIGTERM);
    });
    std::jthread operatorThread([&] {
      operatorWork();
      killed_ = WallClock::now();
      (void)!::write(sig_[1], "x", 1);
    });
    const int code = daemon_->run();
    stopped_ = WallClock::now();
    operatorThread.join();
    loop_.unwatch(sig_[0]);
    return code;
  }

  std::optional<std::string> status() {
    auto answer = control::request(settings_.controlSocket, "status", 2s);
    return answer ? std::optional(*answer) : std::nullopt;
  }

  std::shared_ptr<spdlog::logger> quiet_ =
      std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_mt>());
  Fabric fabric_;
  PortRef smPort_;
  FakeFabricTransport wire_;
  loop::EventLoop loop_;
  std::filesystem::path dir_;
  std::optional<MadEngine> engine_;
  StateStore store_{dir_ / "state"};
  DaemonSettings settings_;
  std::optional<SmDaemon> daemon_;
  std::array<int, 2> sig_{};
  WallClock::time_point killed_{};
  WallClock::time_point stopped_{};
};

TEST_F(PlanOffLoop, StatusIsAnsweredWithin100msWhileThePlanRuns) {
  auto marks = std::make_shared<PlanMarks>();
  std::vector<Answer> answers;
  const int code = runDaemon(marks, 1000ms, [&] {
    const auto giveUp = WallClock::now() + 20s;
    while (WallClock::now() < giveUp && !marks->ended) {
      const auto asked = WallClock::now();
      if (status()) answers.push_back({asked, WallClock::now()});
      std::this_thread::sleep_for(5ms);
    }
  });
  EXPECT_EQ(code, 0);
  ASSERT_GE(marks->started.load(), 1) << "no plan ran";
  EXPECT_NE(marks->thread, std::this_thread::get_id()) << "the plan ran on the loop's thread";
  std::size_t during = 0;
  WallClock::duration slowest{};
  for (const auto& a : answers) {
    slowest = std::max(slowest, a.answered - a.asked);
    during += a.asked >= marks->startedAt && a.answered <= marks->endedAt;
  }
  // A second of plan, a request every ~5 ms: far more than 20 fit in it.
  EXPECT_GE(during, 20U) << answers.size() << " answers in all";
  EXPECT_LT(slowest, 100ms);
  std::printf("%zu status answers during the plan, the slowest in %.1f ms\n", during,
              std::chrono::duration<double, std::milli>(slowest).count());
}

TEST_F(PlanOffLoop, SigtermDuringThePlanStopsTheDaemonAtOnceAndAbandonsThePlan) {
  auto marks = std::make_shared<PlanMarks>();
  const int code = runDaemon(marks, 10000ms, [&] {
    const auto giveUp = WallClock::now() + 20s;
    while (WallClock::now() < giveUp && marks->started == 0) std::this_thread::sleep_for(2ms);
  });
  const bool endedBeforeExit = marks->ended;
  marks->release();  // the abandoned plan's thread ends on its own
  EXPECT_EQ(code, 0);
  ASSERT_EQ(marks->started.load(), 1);
  EXPECT_FALSE(endedBeforeExit) << "the daemon waited for the plan";
  EXPECT_LT(stopped_ - killed_, 100ms);
  const auto st = daemon_->status();
  ASSERT_TRUE(st.exit);
  EXPECT_EQ(st.exit->reason, "stopped");
  EXPECT_EQ(st.exit->signal, SIGTERM);
  EXPECT_EQ(st.exit->stoppedDuring, "MASTER (take over)");
}

}  // namespace
}  // namespace ibsm::sm::manager
