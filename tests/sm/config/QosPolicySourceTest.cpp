// qos.policy_file and --qos-policy: the one rule by which `ibsm run` (at
// start and on SIGHUP) and `ibsm route` find the QoS policy -- the flag,
// else the key, else none -- and a bad file or value refused with its file
// and line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sm/config/QosPolicySource.h"
#include "tests/sm/config/ScratchFiles.h"

namespace ibsm::sm::config {
namespace {

using ::testing::HasSubstr;

class QosPolicySource : public testing::ScratchFiles {};

constexpr const char* kPolicy =
    "qos-levels\n  qos-level\n    name: DEFAULT\n    sl: 3\n  end-qos-level\nend-qos-levels\n";

TEST_F(QosPolicySource, TheKeyNamesThePolicyFile) {
  auto c = parseConfig("[qos]\npolicy_file = \"/etc/ibsm/qos-policy.conf\"\n", "ibsm.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->sm.qosPolicyFile, "/etc/ibsm/qos-policy.conf");
  auto bad = parseConfig("[qos]\npolicy_file = 7\n", "ibsm.toml");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("ibsm.toml:2"));
  EXPECT_THAT(bad.error().message, HasSubstr("qos.policy_file to be a path"));
}

TEST_F(QosPolicySource, NeitherFlagNorKeyMeansNoPolicy) {
  auto p = readQosPolicySource(Config{}, std::nullopt);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(*p, nullptr);
}

TEST_F(QosPolicySource, TheFlagOverridesTheKey) {
  Config c;
  c.sm.qosPolicyFile = path("missing.conf");
  auto p = readQosPolicySource(c, write("flag.conf", kPolicy));
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_NE(*p, nullptr);
  EXPECT_EQ((*p)->level("DEFAULT")->sl, 3);
}

TEST_F(QosPolicySource, AMissingOrBrokenFileIsAnErrorWithFileAndLine) {
  Config c;
  c.sm.qosPolicyFile = path("missing.conf");
  auto missing = readQosPolicySource(c, std::nullopt);
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("missing.conf"));
  const auto broken = write("broken.conf", "qos-levels\n  qos-level\n    sl: 16\n");
  auto bad = readQosPolicySource(Config{}, broken);
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr(broken.string() + ":3: sl: expected a service level"));
}

}  // namespace
}  // namespace ibsm::sm::config
