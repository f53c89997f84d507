// The M_Key keys of [sm] (issue 29): defaults, every key read, and the
// file:line errors an operator sees for a value out of range or two keys
// that contradict each other.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sm/config/Config.h"

namespace ibsm::sm::config {
namespace {

using ::testing::HasSubstr;

TEST(MKeyConfig, DefaultsProtectWithADerivedKeyProtectBits1AndALeaseOf60Seconds) {
  const auto c = parseConfig("", "empty.toml");
  ASSERT_TRUE(c);
  const auto& m = c->sm.mKey;
  EXPECT_TRUE(m.enabled);
  EXPECT_FALSE(m.secretFile);
  EXPECT_FALSE(m.singleKey);
  EXPECT_EQ(m.protectBits, 1);
  EXPECT_EQ(m.leaseSeconds, 60);
  EXPECT_EQ(m.rotateInterval, std::chrono::seconds{0});
}

TEST(MKeyConfig, ReadsEveryKey) {
  const auto c = parseConfig(
      "[sm]\nm_key_enable = false\nm_key_secret_file = \"/etc/ibsm/mkey.secret\"\n"
      "m_key_protect = 3\nm_key_lease = 0\nm_key_rotate_interval = 86400\n",
      "a.toml");
  ASSERT_TRUE(c) << c.error().message;
  const auto& m = c->sm.mKey;
  EXPECT_FALSE(m.enabled);
  EXPECT_EQ(m.secretFile, "/etc/ibsm/mkey.secret");
  EXPECT_EQ(m.protectBits, 3);
  EXPECT_EQ(m.leaseSeconds, 0);
  EXPECT_EQ(m.rotateInterval, std::chrono::seconds{86400});
  const auto single =
      parseConfig("[sm]\nm_key = \"0xFF00000000000001\"\nm_key_lease = 65535\n", "b.toml");
  ASSERT_TRUE(single) << single.error().message;
  EXPECT_EQ(single->sm.mKey.singleKey, 0xFF00000000000001ULL);
  EXPECT_EQ(single->sm.mKey.leaseSeconds, 65535);
  const auto integer = parseConfig("[sm]\nm_key = 0\nm_key_secret_file = \"\"\n", "c.toml");
  ASSERT_TRUE(integer) << integer.error().message;
  EXPECT_EQ(integer->sm.mKey.singleKey, 0u);  // OpenSM's "no M_Key"
  const auto empty = parseConfig("[sm]\nm_key = \"\"\n", "d.toml");
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_FALSE(empty->sm.mKey.singleKey);
}

TEST(MKeyConfig, OutOfRangeValuesNameFileLineAndTheRange) {
  const std::pair<const char*, const char*> cases[] = {
      {"m_key_protect = 4",
       "p.toml:3: expected sm.m_key_protect to be an integer from 0 to 3 (M_KeyProtectBits)"},
      {"m_key_protect = -1",
       "p.toml:3: expected sm.m_key_protect to be an integer from 0 to 3 (M_KeyProtectBits)"},
      {"m_key_lease = 70000",
       "p.toml:3: expected sm.m_key_lease to be seconds from 0 to 65535 (0: never expires)"},
      {"m_key_lease = \"60\"",
       "p.toml:3: expected sm.m_key_lease to be seconds from 0 to 65535 (0: never expires)"},
      {"m_key_rotate_interval = 599",
       "p.toml:3: expected sm.m_key_rotate_interval to be 0 (never) or seconds from 600 to "
       "31536000"},
      {"m_key_enable = 1", "p.toml:3: expected sm.m_key_enable to be true or false"},
      {"m_key_secret_file = 7",
       "p.toml:3: expected sm.m_key_secret_file to be a path (string; \"\" for the default)"},
      {"m_key = \"0xZZ\"",
       "p.toml:3: expected sm.m_key to be a 64-bit hex string such as \"0x00000000000000ff\", "
       "an integer >= 0, or \"\" (keys derived per port)"},
      {"m_key = -5",
       "p.toml:3: expected sm.m_key to be a 64-bit hex string such as \"0x00000000000000ff\", "
       "an integer >= 0, or \"\" (keys derived per port)"},
  };
  for (const auto& [line, message] : cases) {
    const auto c = parseConfig(std::string("[sm]\n\n") + line + "\n", "p.toml");
    ASSERT_FALSE(c) << line;
    EXPECT_EQ(c.error().message, message);
  }
}

TEST(MKeyConfig, MKeyAndSecretFileTogetherAskTheOperatorToChooseOne) {
  for (const char* text : {"[sm]\nm_key = \"0x1\"\nm_key_secret_file = \"/k\"\n",
                           "[sm]\nm_key_secret_file = \"/k\"\nm_key = \"0x1\"\n"}) {
    const auto c = parseConfig(text, "both.toml");
    ASSERT_FALSE(c) << text;
    EXPECT_THAT(c.error().message, HasSubstr("both.toml:"));
    EXPECT_THAT(c.error().message,
                HasSubstr("either sm.m_key (OpenSM's one key for every port) or "
                          "sm.m_key_secret_file (a key per port derived from the secret), not "
                          "both: choose one"));
  }
}

TEST(MKeyConfig, OneFixedKeyIsNotRotated) {
  const auto c = parseConfig("[sm]\nm_key = \"0x5\"\nm_key_rotate_interval = 3600\n", "r.toml");
  ASSERT_FALSE(c);
  EXPECT_THAT(c.error().message, HasSubstr("one fixed key is not rotated"));
  EXPECT_TRUE(parseConfig("[sm]\nm_key = 0\nm_key_rotate_interval = 3600\n", "r.toml"));
}

}  // namespace
}  // namespace ibsm::sm::config
