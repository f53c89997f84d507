// The subnet secret's file: made 0600 at first start, refused as sshd's
// StrictModes refuses a key file others could read or replace, and every
// error names the file and what was expected.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ostream>

#include "sm/security/KeyScheme.h"
#include "sm/security/Secret.h"
#include "tests/sm/security/SecretDir.h"

namespace ibsm::security {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using SecretFile = testing::SecretDir;

// Nothing prints a secret or a scheme by accident: there is no formatter and no
// operator<< to find, even with fmt's ostream and ranges support included.
template <typename T>
concept Streamable = requires(std::ostream& o, const T& t) {
  o << t;
};
static_assert(!Streamable<Secret>);
static_assert(!fmt::is_formattable<Secret>::value);
static_assert(!Streamable<KeyScheme>);
static_assert(!fmt::is_formattable<KeyScheme>::value);

const std::string kHex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

Secret counting() {
  Secret s;
  for (std::size_t i = 0; i < s.bytes.size(); ++i) s.bytes[i] = static_cast<std::uint8_t>(i);
  return s;
}

std::string raw(const Secret& s) {
  return {s.bytes.begin(), s.bytes.end()};
}

TEST_F(SecretFile, AbsentAndAllowedToCreateIsMade0600With32RandomBytes) {
  const auto file = path("state/mkey.secret");  // the directory too is missing
  const auto made = loadSecret(file, true);
  ASSERT_TRUE(made) << made.error();
  EXPECT_EQ(modeOf(file), 0600u);
  EXPECT_EQ(modeOf(file.parent_path()), 0700u);
  EXPECT_EQ(slurp(file), raw(*made));
  EXPECT_FALSE(sameSecret(*made, Secret{}));
  const auto again = loadSecret(file, true);  // the next start reads the same secret
  ASSERT_TRUE(again) << again.error();
  EXPECT_TRUE(sameSecret(*made, *again));
  // Only the secret is left in the directory: the temporary was renamed.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(file.parent_path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST_F(SecretFile, AbsentAndNotToBeCreatedIsAnErrorNamingTheFile) {
  const auto file = path("shared.secret");
  const auto r = loadSecret(file, false);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error(), StartsWith(file.string() + ": no such file"));
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST_F(SecretFile, ReadsRawBytesOrHexWithOrWithoutANewline) {
  const Secret want = counting();
  for (const std::string& text : {raw(want), kHex, kHex + "\n",
                                  std::string("000102030405060708090A0B0C0D"
                                              "0E0F101112131415161718191A1B"
                                              "1C1D1E1F")}) {
    const auto r = loadSecret(write("s", text), false);
    ASSERT_TRUE(r) << r.error();
    EXPECT_TRUE(sameSecret(*r, want)) << text;
  }
}

TEST_F(SecretFile, WrongLengthOrNonHexIsRefusedNamingTheFileAndTheExpectedForm) {
  const auto shortFile = write("short", std::string(31, 'x'));
  auto r = loadSecret(shortFile, true);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), shortFile.string() +
                           ": expected exactly 32 bytes, or 64 hex digits and an optional "
                           "newline, found 31 bytes");
  r = loadSecret(write("long", kHex + "\n\n"), true);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error(), HasSubstr("found 66 bytes"));
  r = loadSecret(write("crlf", kHex + "\r\n"), true);
  ASSERT_FALSE(r);
  std::string bad = kHex;
  bad[17] = 'g';
  const auto badFile = write("bad", bad);
  r = loadSecret(badFile, true);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), badFile.string() +
                           ": expected 64 hex digits, found a byte that is not one at offset 17");
  // A refused file is left as it was, not replaced by a new secret.
  EXPECT_EQ(slurp(badFile), bad);
}

TEST_F(SecretFile, AllZeroBytesAreRefused) {
  const auto r = loadSecret(write("zero", std::string(32, '\0')), true);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error(), HasSubstr("all zero bytes"));
}

TEST_F(SecretFile, GroupOrOtherPermissionBitsAreRefusedWithTheModeAndTheFix) {
  for (const mode_t mode : {0644, 0640, 0604, 0660, 0602}) {
    const auto file = write("m", kHex, mode);
    const auto r = loadSecret(file, true);
    ASSERT_FALSE(r) << fmt::format("{:o}", mode);
    EXPECT_EQ(r.error(), fmt::format("{}: mode {:04o} gives group or others access, expected "
                                     "0600: refused (chmod 600 {})",
                                     file.string(), mode, file.string()));
    EXPECT_EQ(slurp(file), kHex);
  }
  EXPECT_TRUE(loadSecret(write("ok", kHex, 0400), true));  // read-only for its owner is fine
}

TEST_F(SecretFile, AFileOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the file to another uid (chown)";
  const auto file = write("theirs", kHex);
  ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
  const auto r = loadSecret(file, true);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error(), StartsWith(file.string() + ": owned by uid 65534, expected uid 0"));
}

TEST_F(SecretFile, ADirectoryOthersCanWriteIntoIsRefusedUnlessSticky) {
  const auto file = write("s", kHex);
  ASSERT_EQ(::chmod(dir().c_str(), 0777), 0);
  auto r = loadSecret(file, true);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error(), HasSubstr("lets group or others replace the secret"));
  ASSERT_EQ(::chmod(dir().c_str(), 01777), 0);  // as /tmp: no one removes another's file
  r = loadSecret(file, true);
  EXPECT_TRUE(r) << r.error();
}

TEST_F(SecretFile, NotARegularFileIsRefusedWithoutBlocking) {
  const auto fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = loadSecret(fifo, true);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), fifo.string() + ": expected a regular file holding the secret");
  r = loadSecret(dir(), true);
  ASSERT_FALSE(r);
}

TEST_F(SecretFile, SaveWritesTheSecret0600AndReplacesAnOldOne) {
  const auto file = write("s", kHex, 0644);
  const Secret next = newSecret();
  ASSERT_TRUE(saveSecret(file, next));
  EXPECT_EQ(modeOf(file), 0600u);
  const auto r = loadSecret(file, false);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(sameSecret(*r, next));
}

TEST_F(SecretFile, SaveIntoADirectoryThatCannotBeMadeNamesTheFile) {
  write("plain", "x");
  const auto r = saveSecret(path("plain/mkey.secret"), counting());
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error(), HasSubstr("plain"));
}

TEST(Secret, NewSecretsAreRandomAndFingerprintsNameWithoutRevealing) {
  const Secret a = newSecret();
  const Secret b = newSecret();
  EXPECT_FALSE(sameSecret(a, b));
  EXPECT_NE(fingerprint(a), fingerprint(b));
  // python3 -c 'import hmac,hashlib; print(hmac.new(bytes(range(32)),
  //   b"ibsm M_Key secret fingerprint", hashlib.sha256).hexdigest()[:8])'  -> 075eea85
  EXPECT_EQ(fingerprint(counting()), "075eea85");
  EXPECT_EQ(kHex.find(fingerprint(counting())), std::string::npos);
}

}  // namespace
}  // namespace ibsm::security
