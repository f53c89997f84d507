// A rotation on disk (KeyRotation.h): the running secret is kept as
// "<secret>.previous" before the new one replaces it, so a restart at any
// step reads both (schemeFor); the previous file goes once the rotation
// ends; a rotation with no secret, or one not ended, is refused and writes
// nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sm/security/KeyRotation.h"
#include "sm/security/MKeySettings.h"
#include "tests/sm/security/SecretDir.h"

namespace ibsm::security {
namespace {

using ::testing::HasSubstr;

constexpr std::uint64_t kGuid = 0x0002c90300a1b2c3ULL;

class KeyRotationTest : public testing::SecretDir {
 protected:
  std::filesystem::path secretFile() const { return path("mkey.secret"); }
  KeyScheme running() const {
    auto s = schemeFor(MKeySettings{}, dir());
    EXPECT_TRUE(s) << s.error();
    return *s;
  }
};

TEST_F(KeyRotationTest, BeginKeepsTheRunningSecretAsPreviousAndWritesANewOne) {
  const KeyScheme before = running();
  const auto next = beginRotation(before, secretFile());
  ASSERT_TRUE(next) << next.error();
  EXPECT_NE(next->keyFor(kGuid), before.keyFor(kGuid));
  EXPECT_TRUE(next->hasPrevious());
  EXPECT_EQ(next->previousKeyFor(kGuid), before.keyFor(kGuid));
  EXPECT_EQ(modeOf(secretFile()), 0600u);
  EXPECT_EQ(modeOf(previousSecretPath(secretFile())), 0600u);
  // A restart now reads what the rotation runs with: both secrets.
  const KeyScheme restarted = running();
  EXPECT_EQ(restarted.keyFor(kGuid), next->keyFor(kGuid));
  EXPECT_EQ(restarted.previousKeyFor(kGuid), before.keyFor(kGuid));
}

TEST_F(KeyRotationTest, EndRemovesThePreviousSecretAndARestartReadsTheNewOneAlone) {
  const auto next = beginRotation(running(), secretFile());
  ASSERT_TRUE(next) << next.error();
  const auto done = endRotation(*next, secretFile());
  ASSERT_TRUE(done) << done.error();
  EXPECT_FALSE(done->hasPrevious());
  EXPECT_EQ(done->keyFor(kGuid), next->keyFor(kGuid));
  EXPECT_FALSE(std::filesystem::exists(previousSecretPath(secretFile())));
  const KeyScheme restarted = running();
  EXPECT_FALSE(restarted.hasPrevious());
  EXPECT_EQ(restarted.keyFor(kGuid), next->keyFor(kGuid));
}

TEST_F(KeyRotationTest, ASecondRotationBeforeTheFirstEndedIsRefusedAndWritesNothing) {
  const auto next = beginRotation(running(), secretFile());
  ASSERT_TRUE(next) << next.error();
  const KeyScheme onDisk = running();
  const auto again = beginRotation(*next, secretFile());
  ASSERT_FALSE(again);
  EXPECT_THAT(again.error(), HasSubstr("still under way"));
  EXPECT_THAT(again.error(), HasSubstr("mkey.secret.previous"));
  const KeyScheme after = running();
  EXPECT_EQ(after.keyFor(kGuid), onDisk.keyFor(kGuid));
  EXPECT_EQ(after.previousKeyFor(kGuid), onDisk.previousKeyFor(kGuid));
}

TEST_F(KeyRotationTest, OneFixedKeyOrNoKeysCannotRotate) {
  const auto single = beginRotation(KeyScheme::single(0x77), secretFile());
  ASSERT_FALSE(single);
  EXPECT_THAT(single.error(), HasSubstr("sm.m_key"));
  const auto off = beginRotation(KeyScheme::off(), secretFile());
  ASSERT_FALSE(off);
  EXPECT_THAT(off.error(), HasSubstr("off"));
  EXPECT_FALSE(std::filesystem::exists(secretFile()));
  EXPECT_FALSE(std::filesystem::exists(previousSecretPath(secretFile())));
}

}  // namespace
}  // namespace ibsm::security
