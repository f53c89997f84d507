// How keys are chosen: derived per port, one subnet-wide key, or off; the
// previous scheme kept through a rotation; describe() never shows a key.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "sm/security/KeyScheme.h"
#include "sm/security/PortKey.h"

namespace ibsm::security {
namespace {

using ::testing::HasSubstr;

constexpr std::uint64_t kGuid = 0x0002c90300a1b2c3ULL;
constexpr std::uint64_t kKey = 0x1234abcd5678ef90ULL;

Secret filled(std::uint8_t b) {
  Secret s;
  s.bytes.fill(b);
  return s;
}

std::string lower(std::string s) {
  std::ranges::transform(s, s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Every way a 64-bit key could be written into text.
void expectNoKeyIn(const std::string& text, std::uint64_t key) {
  const std::string t = lower(text);
  for (const std::string& form :
       {fmt::format("{:016x}", key), fmt::format("{:x}", key), fmt::format("{}", key)})
    EXPECT_EQ(t.find(form), std::string::npos) << text << " shows " << form;
}

TEST(KeyScheme, OffGivesNoKey) {
  const auto off = KeyScheme::off();
  EXPECT_FALSE(off.enabled());
  EXPECT_EQ(off.keyFor(kGuid), 0u);
  EXPECT_EQ(off.describe(), "M_Key off");
  EXPECT_FALSE(KeyScheme::single(0).enabled());  // OpenSM's m_key 0: no M_Key
}

TEST(KeyScheme, DerivedGivesEachPortItsOwnKey) {
  const auto s = KeyScheme::derived(filled(0x42));
  EXPECT_TRUE(s.enabled());
  EXPECT_EQ(s.keyFor(kGuid), portMKey(filled(0x42), kGuid));
  EXPECT_EQ(s.keyFor(kGuid), 0x594f1da49a4d5396ULL);  // PortKeyTest's known answer
  EXPECT_NE(s.keyFor(kGuid), s.keyFor(kGuid + 1));
}

TEST(KeyScheme, SingleGivesEveryPortTheSameKey) {
  const auto s = KeyScheme::single(kKey);
  EXPECT_TRUE(s.enabled());
  EXPECT_EQ(s.keyFor(kGuid), kKey);
  EXPECT_EQ(s.keyFor(1), kKey);
}

TEST(KeyScheme, APreviousSchemeIsKeptForARotation) {
  const auto old = KeyScheme::derived(filled(1));
  EXPECT_FALSE(old.hasPrevious());
  EXPECT_EQ(old.previousKeyFor(kGuid), 0u);
  const auto rotating = KeyScheme::derived(filled(2)).withPrevious(filled(1));
  EXPECT_TRUE(rotating.hasPrevious());
  EXPECT_EQ(rotating.keyFor(kGuid), portMKey(filled(2), kGuid));
  EXPECT_EQ(rotating.previousKeyFor(kGuid), old.keyFor(kGuid));
  const auto done = rotating.withoutPrevious();
  EXPECT_FALSE(done.hasPrevious());
  EXPECT_EQ(done.keyFor(kGuid), rotating.keyFor(kGuid));
  // From OpenSM's single key to derived keys.
  const auto fromSingle = KeyScheme::derived(filled(2)).withPreviousKey(kKey);
  EXPECT_EQ(fromSingle.previousKeyFor(kGuid), kKey);
}

TEST(KeyScheme, DescribeNamesTheKindAndFingerprintButNeverAKeyOrSecret) {
  const auto single = KeyScheme::single(kKey);
  EXPECT_EQ(single.describe(), "M_Key on: one subnet-wide key (sm.m_key)");
  expectNoKeyIn(single.describe(), kKey);
  const Secret secret = filled(0x42);
  const auto derived = KeyScheme::derived(secret).withPrevious(filled(0x43));
  const std::string d = derived.describe();
  EXPECT_THAT(d, HasSubstr("per-port keys derived from secret " + fingerprint(secret)));
  EXPECT_THAT(d, HasSubstr("previous scheme's: per-port keys derived from secret " +
                           fingerprint(filled(0x43))));
  EXPECT_EQ(lower(d).find("4242424242"), std::string::npos);
  for (std::uint64_t g : {kGuid, std::uint64_t{0}, std::uint64_t{1}}) {
    expectNoKeyIn(d, derived.keyFor(g));
    expectNoKeyIn(d, derived.previousKeyFor(g));
  }
  expectNoKeyIn(KeyScheme::single(kKey).withPreviousKey(kKey + 1).describe(), kKey + 1);
}

}  // namespace
}  // namespace ibsm::security
