// The daemon's metrics file (health.metrics_file) for node_exporter's
// textfile collector: written after the sweep that brought the subnet up,
// whole (temp file and rename: nothing else left beside it), and a file
// that cannot be written never stops the SM.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/sm/manager/DaemonOnFakeFabric.h"

namespace ibsm::sm::manager {
namespace {

using control::SweepCount;

using ::testing::HasSubstr;

class SmDaemonMetrics : public DaemonOnFakeFabric {
 protected:
  SmDaemonMetrics() : DaemonOnFakeFabric("ibsm-daemon-metrics-test") {
    settings_.onceMaxSweeps = 3;  // ends when up: the sweeps are what is tested
    std::filesystem::create_directories(stateDir_ / "textfile");
  }

  // Until up (--once), or as a daemon until `stopAt`.
  int run(std::optional<std::chrono::milliseconds> stopAt = std::nullopt) {
    SmDaemon daemon(*engine_, loop_, store_, wire_.fabric().port(firstCaPort()).guid, settings_, {},
                    quiet());
    std::optional<loop::EventLoop::TimerId> stop;
    if (stopAt) stop = loop_.at(wire_.now() + *stopAt, [&daemon] { daemon.signal(SIGTERM); });
    const int code = daemon.run();
    if (stop) loop_.cancel(*stop);
    status_ = daemon.status();
    return code;
  }

  std::string read(const std::filesystem::path& p) const {
    std::ifstream in(p);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  control::DaemonStatus status_;
};

TEST_F(SmDaemonMetrics, TheFileShowsTheSweepThatBroughtTheSubnetUp) {
  const auto file = stateDir_ / "textfile" / "ibsm.prom";
  settings_.metricsFile = file;
  ASSERT_EQ(run(), 0);
  ASSERT_TRUE(status_.up);
  const std::string text = read(file);
  EXPECT_THAT(text, HasSubstr("\nibsm_subnet_up 1\n"));
  EXPECT_THAT(text, HasSubstr("\nibsm_sm_state{state=\"MASTER\"} 1\n"));
  EXPECT_THAT(text, HasSubstr(fmt::format("\nibsm_switches {}\n", status_.routes.switches)));
  EXPECT_THAT(text, HasSubstr("\nibsm_sweeps_total{kind=\"takeover\"} 1\n"));
  // Renamed into place: no temporary file is left for the collector to read.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(stateDir_ / "textfile"))
    ++files;
  EXPECT_EQ(files, 1u);
}

// A light sweep that found nothing changes only the sweep counters: the
// file (tens of megabytes on a big fabric) is not rewritten for each.
TEST_F(SmDaemonMetrics, QuietLightSweepsRewriteTheFileAtMostOnceAMinute) {
  settings_.metricsFile = stateDir_ / "textfile" / "ibsm.prom";
  settings_.onceMaxSweeps.reset();
  settings_.sweepInterval = std::chrono::seconds{5};
  settings_.counterInterval = std::chrono::seconds{0};
  ASSERT_EQ(run(std::chrono::milliseconds{150'000}), 0);
  EXPECT_GE(status_.sweeps.byKind[SweepCount::LightQuiet], 25U);
  // The state changes and the take-over wrote at once; then one a minute.
  EXPECT_GE(status_.resources.metricsWrites, 3U);
  EXPECT_LE(status_.resources.metricsWrites, 8U);
  // The stop (a state change) wrote the last counts at once.
  EXPECT_THAT(read(settings_.metricsFile),
              HasSubstr(fmt::format("\nibsm_sweeps_total{{kind=\"light_quiet\"}} {}\n",
                                    status_.sweeps.byKind[SweepCount::LightQuiet])));
}

TEST_F(SmDaemonMetrics, AFileThatCannotBeWrittenDoesNotStopTheSm) {
  settings_.metricsFile = stateDir_ / "no-such-directory" / "ibsm.prom";
  EXPECT_EQ(run(), 0);
  EXPECT_TRUE(status_.up);
  EXPECT_FALSE(std::filesystem::exists(settings_.metricsFile));
}

TEST_F(SmDaemonMetrics, NoFileIsWrittenWhenNoneIsConfigured) {
  ASSERT_EQ(run(), 0);
  EXPECT_TRUE(std::filesystem::is_empty(stateDir_ / "textfile"));
}

}  // namespace
}  // namespace ibsm::sm::manager
