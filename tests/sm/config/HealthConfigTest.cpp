// The [health] keys: the policy per condition, the flap rule, the clean
// period, and the threshold files read with file:line errors.
#include <gtest/gtest.h>

#include "sm/config/Config.h"
#include "tests/sm/config/ScratchFiles.h"

namespace ibsm::sm::config {
namespace {

using health::Action;
using health::Condition;
using namespace std::chrono_literals;

Action actionOf(const health::HealthSettings& s, Condition c) {
  return s.policy.of(c);
}

TEST(HealthConfig, DefaultsReportEverythingAndJudgeAnyErrorCount) {
  const auto c = parseConfig("", "empty.toml");
  ASSERT_TRUE(c);
  const auto s = healthSettings(c->health);
  ASSERT_TRUE(s) << s.error().message;
  for (auto cond : {Condition::Errors, Condition::Downgraded, Condition::Flapping})
    EXPECT_EQ(actionOf(*s, cond), Action::Report);
  EXPECT_EQ(s->policy.cleanPeriod, 600s);
  EXPECT_EQ(s->flaps.count, 5U);
  EXPECT_EQ(s->flaps.window, 600s);
  EXPECT_EQ(s->errors.totals, health::Thresholds{});
  EXPECT_FALSE(s->errors.perHour);
}

TEST(HealthConfig, ReadsThePolicyAndTheFlapRule) {
  const auto c = parseConfig(
      "[health]\nflapping = \"isolate\"\ndowngraded = \"report\"\nerrors = \"isolate\"\n"
      "clean_period = 30\nflap_count = 2\nflap_window = 20\n",
      "h.toml");
  ASSERT_TRUE(c) << c.error().message;
  const auto s = healthSettings(c->health);
  ASSERT_TRUE(s);
  EXPECT_EQ(actionOf(*s, Condition::Flapping), Action::Isolate);
  EXPECT_EQ(actionOf(*s, Condition::Downgraded), Action::Report);
  EXPECT_EQ(actionOf(*s, Condition::Errors), Action::Isolate);
  EXPECT_EQ(s->policy.cleanPeriod, 30s);
  EXPECT_EQ(s->errors.cleanPeriod, 30s);
  EXPECT_EQ(s->flaps.count, 2U);
  EXPECT_EQ(s->flaps.window, 20s);
}

TEST(HealthConfig, AnActionOtherThanReportOrIsolateNamesTheLine) {
  const auto c = parseConfig("[health]\n\nflapping = \"drop\"\n", "h.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "h.toml:3: expected health.flapping to be \"report\" or \"isolate\"");
}

using HealthThresholdFiles = testing::ScratchFiles;

TEST_F(HealthThresholdFiles, AreReadIntoTheErrorRule) {
  HealthConfig h;
  h.thresholdFile = write("totals", "SymbolErrorCounter=10\n");
  h.rateThresholdFile = write("rates", "LinkDownedCounter=3\n");
  const auto s = healthSettings(h);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->errors.totals.of(health::Counter::SymbolErrorCounter), 10U);
  ASSERT_TRUE(s->errors.perHour);
  EXPECT_EQ(s->errors.perHour->of(health::Counter::LinkDownedCounter), 3U);
}

TEST_F(HealthThresholdFiles, ABadOneIsAnErrorWithItsFileAndLine) {
  HealthConfig h;
  h.thresholdFile = write("totals", "# ok\nSymbolErrorCount=10\n");
  const auto s = healthSettings(h);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find(h.thresholdFile.string() + ":2:"), std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace ibsm::sm::config
