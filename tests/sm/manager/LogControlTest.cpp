// The daemon's log level: `ibsm log-level` sets it until a SIGHUP puts the
// configuration's back; status shows the level, who set it, how often it
// changed, and the MAD trace's lines of every tracer added up.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include "sm/control/StatusFormat.h"
#include "sm/manager/LogControl.h"

namespace ibsm::sm::manager {
namespace {

class LogControlTest : public ::testing::Test {
 protected:
  LogControlTest() { log->set_level(spdlog::level::info); }
  control::LogCounts described() const {
    control::DaemonStatus s;
    logControl.describe(s);
    return s.log;
  }

  std::shared_ptr<spdlog::logger> log =
      std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_mt>());
  MadTraceCounters traces{.lines = 7, .suppressed = 2};
  LogControl logControl{log, [this] { return traces; }};
};

TEST_F(LogControlTest, AtStartTheConfigurationSetTheLevel) {
  const auto s = described();
  EXPECT_EQ(s.level, "info");
  EXPECT_EQ(s.setBy, "config");
  EXPECT_EQ(s.levelChanges, 0U);
}

TEST_F(LogControlTest, TheOperatorSetsALevelAndIsAnsweredWithTheOldOne) {
  EXPECT_EQ(logControl.setLevel("debug"),
            "ok: log level debug (was info); a SIGHUP re-applies the configuration's\n");
  EXPECT_EQ(log->level(), spdlog::level::debug);
  const auto s = described();
  EXPECT_EQ(s.level, "debug");
  EXPECT_EQ(s.setBy, "operator");
  EXPECT_EQ(s.levelChanges, 1U);
}

TEST_F(LogControlTest, TheSameLevelAgainIsTheOperatorsButNoChange) {
  logControl.setLevel("info");
  EXPECT_EQ(described().setBy, "operator");
  EXPECT_EQ(described().levelChanges, 0U);
}

TEST_F(LogControlTest, AnUnknownLevelIsRefusedAndChangesNothing) {
  const auto answer = logControl.setLevel("loud");
  EXPECT_TRUE(answer.starts_with("error: log level 'loud'")) << answer;
  EXPECT_EQ(log->level(), spdlog::level::info);
  EXPECT_EQ(described().setBy, "config");
}

TEST_F(LogControlTest, OffIsALevel) {
  EXPECT_TRUE(logControl.setLevel("off").starts_with("ok:"));
  EXPECT_EQ(log->level(), spdlog::level::off);
}

TEST_F(LogControlTest, AReloadPutsTheConfigurationsLevelBack) {
  logControl.setLevel("trace");
  logControl.applyConfig("warning");  // spdlog's name for warn
  EXPECT_EQ(log->level(), spdlog::level::warn);
  const auto s = described();
  EXPECT_EQ(s.setBy, "config");
  EXPECT_EQ(s.levelChanges, 2U);
}

TEST_F(LogControlTest, AReloadWithoutALevelLeavesTheOperatorsInForce) {
  logControl.setLevel("debug");
  logControl.applyConfig("");
  EXPECT_EQ(log->level(), spdlog::level::debug);
  EXPECT_EQ(described().setBy, "operator");
}

TEST_F(LogControlTest, AReloadToTheLevelInForceIsTheConfigurationsButNoChange) {
  logControl.setLevel("debug");
  logControl.applyConfig("debug");
  EXPECT_EQ(described().setBy, "config");
  EXPECT_EQ(described().levelChanges, 1U);
}

TEST_F(LogControlTest, StatusShowsTheTracersLinesAsTheyStandNow) {
  EXPECT_EQ(described().traceLines, 7U);
  EXPECT_EQ(described().traceSuppressed, 2U);
  traces.lines = 9;
  EXPECT_EQ(described().traceLines, 9U);
}

}  // namespace
}  // namespace ibsm::sm::manager
