// From the [sm] M_Key keys to the scheme the SM runs with: where the secret
// lives, when it is made, and what turns protection off.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sm/security/MKeySettings.h"
#include "sm/security/PortKey.h"
#include "tests/sm/security/SecretDir.h"

namespace ibsm::security {
namespace {

using ::testing::StartsWith;
using MKeySettingsFiles = testing::SecretDir;

TEST(MKeySettings, DefaultsAreProtectBits1Lease60NoRotationSecretInTheStateDirectory) {
  const MKeySettings s;
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.protectBits, 1);
  EXPECT_EQ(s.leaseSeconds, 60);
  EXPECT_EQ(s.rotateInterval, std::chrono::seconds{0});
  EXPECT_EQ(secretPath(s, "/var/lib/ibsm"), "/var/lib/ibsm/mkey.secret");
  EXPECT_EQ(secretPath(MKeySettings{.secretFile = "/etc/ibsm/k"}, "/var/lib/ibsm"), "/etc/ibsm/k");
}

TEST_F(MKeySettingsFiles, TheDefaultSecretIsMadeAtFirstStartAndKeptAfter) {
  const auto first = schemeFor(MKeySettings{}, dir() / "state");
  ASSERT_TRUE(first) << first.error();
  EXPECT_TRUE(first->enabled());
  EXPECT_EQ(modeOf(dir() / "state/mkey.secret"), 0600u);
  const auto second = schemeFor(MKeySettings{}, dir() / "state");
  ASSERT_TRUE(second) << second.error();
  EXPECT_EQ(first->keyFor(0x1234), second->keyFor(0x1234));
}

TEST_F(MKeySettingsFiles, AConfiguredSecretFileMustExist) {
  const auto missing = path("shared.secret");
  const auto r = schemeFor(MKeySettings{.secretFile = missing}, dir());
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error(), StartsWith(missing.string() + ": no such file"));
  EXPECT_FALSE(std::filesystem::exists(missing));
  Secret s;
  s.bytes.fill(7);
  ASSERT_TRUE(saveSecret(missing, s));
  const auto ok = schemeFor(MKeySettings{.secretFile = missing}, dir());
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(ok->keyFor(0x1234), portMKey(s, 0x1234));
}

// A rotation cut short by a restart: the secret it replaces is still beside
// the new one, and the ports that hold its keys stay reachable.
TEST_F(MKeySettingsFiles, APreviousSecretLeftByARotationIsThePreviousScheme) {
  const auto file = dir() / "state" / "mkey.secret";
  EXPECT_EQ(previousSecretPath(file), dir() / "state" / "mkey.secret.previous");
  Secret old;
  old.bytes.fill(1);
  Secret next;
  next.bytes.fill(2);
  ASSERT_TRUE(saveSecret(previousSecretPath(file), old));
  ASSERT_TRUE(saveSecret(file, next));
  const auto s = schemeFor(MKeySettings{}, dir() / "state");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->keyFor(0x1234), portMKey(next, 0x1234));
  EXPECT_EQ(s->previousKeyFor(0x1234), portMKey(old, 0x1234));
  ::chmod(previousSecretPath(file).c_str(), 0644);  // guarded as the secret is
  const auto refused = schemeFor(MKeySettings{}, dir() / "state");
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error(), StartsWith(previousSecretPath(file).string() + ": mode 0644"));
  std::filesystem::remove(previousSecretPath(file));
  const auto done = schemeFor(MKeySettings{}, dir() / "state");
  ASSERT_TRUE(done) << done.error();
  EXPECT_FALSE(done->hasPrevious());
}

TEST_F(MKeySettingsFiles, DisabledOrMKeyZeroIsOffAndReadsNoSecret) {
  const auto off = schemeFor(MKeySettings{.enabled = false}, dir() / "state");
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->enabled());
  const auto zero = schemeFor(MKeySettings{.singleKey = 0}, dir() / "state");
  ASSERT_TRUE(zero);
  EXPECT_FALSE(zero->enabled());
  EXPECT_FALSE(std::filesystem::exists(dir() / "state"));
  const auto single = schemeFor(MKeySettings{.singleKey = 0x77}, dir() / "state");
  ASSERT_TRUE(single);
  EXPECT_EQ(single->keyFor(0x1234), 0x77u);
}

}  // namespace
}  // namespace ibsm::security
