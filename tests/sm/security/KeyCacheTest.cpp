// The keys of the running scheme kept by port GUID (KeyCache.h): each
// port's HMAC worked out once per scheme; a rotation's or a reload's scheme
// served its own keys from its first ask, never the replaced scheme's; a
// takeover's clear() works every key out again; a copy of the running
// scheme (what the daemon's settings hold) keeps the table.
#include <gtest/gtest.h>

#include "sm/security/KeyCache.h"
#include "sm/security/KeyRotation.h"
#include "sm/security/MKeySettings.h"
#include "sm/security/PortKey.h"
#include "tests/sm/security/SecretDir.h"

namespace ibsm::security {
namespace {

constexpr std::uint64_t kGuid = 0x0002c90300a1b2c3ULL;
constexpr std::uint64_t kOther = 0x0002c90300a1b2c4ULL;

Secret filled(std::uint8_t b) {
  Secret s;
  s.bytes.fill(b);
  return s;
}

TEST(KeyCache, AnswersAsTheSchemeDoesAndWorksEachPortOutOnce) {
  const auto scheme = KeyScheme::derived(filled(0x42));
  KeyCache cache;
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(cache.keysFor(scheme, kGuid).current, portMKey(filled(0x42), kGuid));
    EXPECT_EQ(cache.keysFor(scheme, kOther).current, portMKey(filled(0x42), kOther));
    EXPECT_EQ(cache.keysFor(scheme, kGuid).previous, 0u);
  }
  EXPECT_EQ(cache.counts().computed, 2u);
  EXPECT_EQ(cache.counts().served, 7u);  // 3 rounds of 3 asks, 2 of them worked out
  EXPECT_EQ(cache.size(), 2u);
}

TEST(KeyCache, ACopyOfTheSchemeIsTheSameSchemeAndKeepsTheTable) {
  const auto scheme = KeyScheme::derived(filled(0x42));
  KeyCache cache;
  (void)cache.keysFor(scheme, kGuid);
  const KeyScheme copy = scheme;  // as settings are copied and assigned
  EXPECT_EQ(copy.id(), scheme.id());
  EXPECT_EQ(cache.keysFor(copy, kGuid).current, scheme.keyFor(kGuid));
  EXPECT_EQ(cache.counts().computed, 1u);
  EXPECT_EQ(cache.counts().dropped, 0u);
}

TEST(KeyCache, OneKeyOrNoKeysKeepNothing) {
  KeyCache cache;
  EXPECT_EQ(cache.keysFor(KeyScheme::single(0x77), kGuid).current, 0x77u);
  EXPECT_EQ(cache.keysFor(KeyScheme::off(), kGuid).current, 0u);
  EXPECT_EQ(cache.keysFor(KeyScheme::off().withPreviousKey(0x77), kGuid).previous, 0x77u);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.counts().computed, 0u);
}

TEST(KeyCache, ClearWorksEveryKeyOutAgain) {
  const auto scheme = KeyScheme::derived(filled(0x42));
  KeyCache cache;
  (void)cache.keysFor(scheme, kGuid);
  cache.clear();  // a takeover
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.keysFor(scheme, kGuid).current, scheme.keyFor(kGuid));
  EXPECT_EQ(cache.counts().computed, 2u);
  EXPECT_EQ(cache.counts().dropped, 1u);
}

class KeyCacheFiles : public testing::SecretDir {
 protected:
  std::filesystem::path secretFile() const { return path("mkey.secret"); }
  KeyScheme fromDisk() const {
    auto s = schemeFor(MKeySettings{}, dir());
    EXPECT_TRUE(s) << s.error();
    return s ? *s : KeyScheme::off();
  }
};

// Every step of a rotation: the keys asked right after each change are the
// new scheme's, though the table was full of the one before.
TEST_F(KeyCacheFiles, ARotationsKeysAreServedFromItsFirstStepToItsEnd) {
  const KeyScheme before = fromDisk();
  KeyCache cache;
  const std::uint64_t old = cache.keysFor(before, kGuid).current;
  ASSERT_EQ(old, before.keyFor(kGuid));

  const auto next = beginRotation(before, secretFile());
  ASSERT_TRUE(next) << next.error();
  const KeyCache::Keys during = cache.keysFor(*next, kGuid);
  EXPECT_EQ(during.current, next->keyFor(kGuid));
  EXPECT_NE(during.current, old);
  EXPECT_EQ(during.previous, old);

  const auto done = endRotation(*next, secretFile());
  ASSERT_TRUE(done) << done.error();
  const KeyCache::Keys after = cache.keysFor(*done, kGuid);
  EXPECT_EQ(after.current, during.current);  // the same secret's key...
  EXPECT_EQ(after.previous, 0u);             // ...and the previous one forgotten at once
  EXPECT_EQ(cache.counts().served, 0u);      // every ask after a change worked out anew
  EXPECT_EQ(cache.counts().dropped, 2u);
}

// A reload reads the secret file again: replaced on disk, its keys are the
// ones served from the reload on, never the table's of the old secret.
TEST_F(KeyCacheFiles, AReloadWithAReplacedSecretServesTheNewKeysAtOnce) {
  const KeyScheme running = fromDisk();
  KeyCache cache;
  const std::uint64_t old = cache.keysFor(running, kGuid).current;
  ASSERT_TRUE(saveSecret(secretFile(), filled(0x5a)));
  const KeyScheme reloaded = fromDisk();
  EXPECT_NE(reloaded.id(), running.id());
  EXPECT_EQ(cache.keysFor(reloaded, kGuid).current, portMKey(filled(0x5a), kGuid));
  EXPECT_NE(cache.keysFor(reloaded, kGuid).current, old);
  // And asked with the old scheme again (a reload refused: the running one
  // kept), the old keys, not the reloaded ones.
  EXPECT_EQ(cache.keysFor(running, kGuid).current, old);
}

}  // namespace
}  // namespace ibsm::security
