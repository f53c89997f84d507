// The daemon's keys (issue 4): failover polling, SM_Key and the control
// socket, their defaults and the file:line errors an operator sees.
#include <gtest/gtest.h>

#include "sm/config/Config.h"

namespace ibsm::sm::config {
namespace {

// Issue 32: a standby finds a dead master within 5 s at the defaults. The
// worst case: the master dies just after answering a poll, then
// `polling_retries` polls go out `polling_timeout_ms` apart and the last
// one waits out the engine's tries (mad.retries + 1 timeouts) before it
// counts as missed.
TEST(DaemonKeys, DefaultPollingFindsADeadMasterWithinFiveSeconds) {
  const auto c = parseConfig("", "empty.toml");
  ASSERT_TRUE(c);
  const std::uint64_t lastPollWaits = std::uint64_t{c->mad.retries + 1} * c->mad.timeoutMs;
  EXPECT_LE(std::uint64_t{c->sm.pollingTimeoutMs} * c->sm.pollingRetries + lastPollWaits, 5000u);
}

// ...and never on one lost SMP, nor on one poll lost whole (all its tries):
// a lossy link must not hand the subnet over needlessly.
TEST(DaemonKeys, DefaultPollingNeedsMoreThanOneMissedPollToTakeOver) {
  const auto c = parseConfig("", "empty.toml");
  ASSERT_TRUE(c);
  EXPECT_GE(c->mad.retries, 1u);  // one lost SMP is retried within the poll
  EXPECT_GE(c->sm.pollingRetries, 2u);
}

TEST(DaemonKeys, DefaultsMatchOpenSmsSmKeyAndTheRunDirectory) {
  const auto c = parseConfig("", "empty.toml");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->sm.smKey, 0x0000000000000001u);  // OpenSM's OSM_DEFAULT_SM_KEY
  EXPECT_EQ(c->sm.controlSocket, "/run/ibsm/ibsm.sock");
}

TEST(DaemonKeys, ReadsEveryKey) {
  const auto c = parseConfig(
      "[sm]\npolling_timeout_ms = 500\npolling_retries = 2\nsm_key = \"0xFFEE000000000001\"\n"
      "control_socket = \"/tmp/x/ibsm.sock\"\n",
      "a.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->sm.pollingTimeoutMs, 500u);
  EXPECT_EQ(c->sm.pollingRetries, 2u);
  EXPECT_EQ(c->sm.smKey, 0xFFEE000000000001ULL);
  EXPECT_EQ(c->sm.controlSocket, "/tmp/x/ibsm.sock");
}

TEST(DaemonKeys, SmKeyMayBeAPlainInteger) {
  const auto c = parseConfig("[sm]\nsm_key = 4660\n", "a.toml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->sm.smKey, 4660u);
}

TEST(DaemonKeys, BadSmKeyNamesFileLineAndTheExpectedForm) {
  for (const char* bad : {"\"0xZZ\"", "-1", "true", "\"0x1ffffffffffffffff\""}) {
    const auto c = parseConfig(std::string("[sm]\n\nsm_key = ") + bad + "\n", "k.toml");
    ASSERT_FALSE(c) << bad;
    EXPECT_EQ(c.error().message.rfind("k.toml:3: expected sm.sm_key to be a 64-bit hex string", 0),
              0u)
        << c.error().message;
  }
}

TEST(DaemonKeys, OutOfRangePollingIsRefusedWithItsRange) {
  auto c = parseConfig("[sm]\npolling_timeout_ms = 0\n", "p.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "p.toml:2: expected sm.polling_timeout_ms to be an integer from 100 to 3600000");
  c = parseConfig("[sm]\npolling_retries = 0\n", "p.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "p.toml:2: expected sm.polling_retries to be an integer from 1 to 100");
}

TEST(DaemonKeys, ControlSocketMustBeANonEmptyPathThatFitsSockaddrUn) {
  auto c = parseConfig("[sm]\ncontrol_socket = \"\"\n", "s.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "s.toml:2: expected sm.control_socket to be a socket path (string)");
  c = parseConfig("[sm]\ncontrol_socket = 3\n", "s.toml");
  ASSERT_FALSE(c);
  c = parseConfig("[sm]\ncontrol_socket = \"/" + std::string(120, 'x') + "\"\n", "s.toml");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "s.toml:2: expected sm.control_socket to be at most 107 bytes long");
}

}  // namespace
}  // namespace ibsm::sm::config
