// The metrics file's writer as a service on its own (MetricsService.h):
// it writes after every sweep that changed something, a quiet sweep at
// most once a quiet period, counts its writes in the status, and a file
// that cannot be written is counted once it can.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>

#include "sm/manager/MetricsService.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;

class MetricsServiceTest : public ::testing::Test {
 protected:
  MetricsServiceTest()
      : dir_(std::filesystem::temp_directory_path() /
             ("ibsm-metrics-service-test-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    settings_.metricsFile = dir_ / "ibsm.prom";
  }
  ~MetricsServiceTest() override { std::filesystem::remove_all(dir_); }

  MetricsService make() {
    return MetricsService(settings_, std::make_shared<spdlog::logger>("test", null_),
                          MetricsHooks{.now = [this] { return now_; },
                                       .status = [] { return control::DaemonStatus{}; },
                                       .health = [] { return health::HealthView{}; }});
  }
  // A light sweep: quiet, or with one change.
  static void sweep(MetricsService& m, bool quiet) {
    control::SweepInfo info;
    info.kind = control::SweepKind::Light;
    if (!quiet) info.changes.push_back("cable lost");
    m.onSweep({.info = info, .result = nullptr});
  }
  static std::uint64_t writes(const MetricsService& m) {
    control::DaemonStatus s;
    m.describe(s);
    return s.resources.metricsWrites;
  }

  std::filesystem::path dir_;
  DaemonSettings settings_;
  MadClock::time_point now_{};
  std::shared_ptr<spdlog::sinks::null_sink_mt> null_ =
      std::make_shared<spdlog::sinks::null_sink_mt>();
};

TEST_F(MetricsServiceTest, AQuietSweepRewritesTheFileAtMostOnceAQuietPeriod) {
  auto m = make();
  sweep(m, true);
  EXPECT_EQ(writes(m), 1U);
  EXPECT_TRUE(std::filesystem::exists(settings_.metricsFile));
  now_ += MetricsService::kQuietPeriod - 1s;
  sweep(m, true);
  EXPECT_EQ(writes(m), 1U) << "within the quiet period";
  sweep(m, false);
  EXPECT_EQ(writes(m), 2U) << "a sweep that changed something writes at once";
  now_ += MetricsService::kQuietPeriod;
  sweep(m, true);
  EXPECT_EQ(writes(m), 3U) << "a quiet period after the last write";
}

TEST_F(MetricsServiceTest, AFileThatCannotBeWrittenIsNotCountedUntilItCanBe) {
  settings_.metricsFile = dir_ / "not-yet" / "ibsm.prom";
  auto m = make();
  m.write();
  EXPECT_EQ(writes(m), 0U);
  std::filesystem::create_directories(dir_ / "not-yet");
  m.write();
  EXPECT_EQ(writes(m), 1U);
  EXPECT_TRUE(std::filesystem::exists(settings_.metricsFile));
}

TEST_F(MetricsServiceTest, NoFileConfiguredNothingWritten) {
  settings_.metricsFile.clear();
  auto m = make();
  sweep(m, false);
  EXPECT_EQ(writes(m), 0U);
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

}  // namespace
}  // namespace ibsm::sm::manager
