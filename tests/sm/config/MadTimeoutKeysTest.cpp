// The learnt timeouts' keys (issue 32): mad.timeout_min_ms and
// mad.timeout_max_ms, their defaults, and the file:line errors an
// operator sees when they are out of range or bound each other wrongly.
#include <gtest/gtest.h>

#include "sm/config/Config.h"

namespace ibsm::sm::config {
namespace {

TEST(MadTimeoutKeys, DefaultsAreAFloorOfTwoMsAndACapOfFifty) {
  const auto c = parseConfig("", "empty.toml");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->mad.timeoutMs, 200u);
  EXPECT_EQ(c->mad.timeoutMinMs, 2u);
  EXPECT_EQ(c->mad.timeoutMaxMs, 50u);
  EXPECT_LE(c->mad.timeoutMinMs, c->mad.timeoutMaxMs);
}

TEST(MadTimeoutKeys, ReadsBoth) {
  const auto c = parseConfig("[mad]\ntimeout_min_ms = 5\ntimeout_max_ms = 1000\n", "m.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->mad.timeoutMinMs, 5u);
  EXPECT_EQ(c->mad.timeoutMaxMs, 1000u);
}

TEST(MadTimeoutKeys, OutOfRangeIsRefusedWithItsRange) {
  auto c = parseConfig("[mad]\n\ntimeout_min_ms = 0\n", "m.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "m.toml:3: expected mad.timeout_min_ms to be an integer from 1 to 60000");
  c = parseConfig("[mad]\ntimeout_max_ms = 60001\n", "m.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "m.toml:2: expected mad.timeout_max_ms to be an integer from 1 to 60000");
}

TEST(MadTimeoutKeys, AFloorAboveTheCapNamesTheFloorsLine) {
  auto c = parseConfig("[mad]\ntimeout_max_ms = 50\ntimeout_min_ms = 80\n", "m.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "m.toml:3: expected mad.timeout_min_ms (80) to be at most mad.timeout_max_ms (50)");
  // The floor left at its default: the cap's line is the one to change.
  c = parseConfig("[mad]\n\ntimeout_max_ms = 1\n", "m.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "m.toml:3: expected mad.timeout_min_ms (2) to be at most mad.timeout_max_ms (1)");
}

TEST(MadTimeoutKeys, ALenientReaderKeepsBothDefaultsWhenTheyConflict) {
  const auto lenient =
      parseConfigLeniently("[mad]\ntimeout_max_ms = 50\ntimeout_min_ms = 80\n", "m.toml");
  ASSERT_TRUE(lenient);
  ASSERT_EQ(lenient->problems.size(), 1u);
  EXPECT_EQ(lenient->problems.front().key, "mad.timeout_min_ms");
  const MadConfig defaults;
  EXPECT_EQ(lenient->config.mad.timeoutMinMs, defaults.timeoutMinMs);
  EXPECT_EQ(lenient->config.mad.timeoutMaxMs, defaults.timeoutMaxMs);
}

}  // namespace
}  // namespace ibsm::sm::config
