// The per-port M_Key: HMAC-SHA256(secret, GUID as 8 big-endian bytes), its
// first 8 bytes big-endian, never 0 (IBA 14.2.4: an M_Key of 0 is no key).
#include <gtest/gtest.h>

#include <set>

#include "sm/security/PortKey.h"

namespace ibsm::security {
namespace {

Secret counting() {  // 00 01 02 ... 1f
  Secret s;
  for (std::size_t i = 0; i < s.bytes.size(); ++i) s.bytes[i] = static_cast<std::uint8_t>(i);
  return s;
}

// Expected values computed apart from libsodium, with Python's hmac:
//   python3 -c 'import hmac,hashlib; print(hmac.new(bytes(range(32)),
//     (0x0002c90300a1b2c3).to_bytes(8,"big"), hashlib.sha256).hexdigest())'
//   48ac600b42b5538169f528d91381782d83aca25c88fe9e99b852a5623b0532a0
// and the same with OpenSSL's CLI:
//   echo -n 0002c90300a1b2c3 | xxd -r -p | openssl dgst -sha256 -mac HMAC
//     -macopt hexkey:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
//   SHA2-256(stdin)= 48ac600b42b5538169f528d91381782d83aca25c88fe9e99b852a5623b0532a0
TEST(PortMKey, IsTheFirstEightBytesOfTheHmacOfTheGuidBigEndian) {
  const Secret s = counting();
  EXPECT_EQ(portMKey(s, 0x0002c90300a1b2c3ULL), 0x48ac600b42b55381ULL);
  // 9f0cd9b94097fe49 29918d2b... (GUID 0)
  EXPECT_EQ(portMKey(s, 0), 0x9f0cd9b94097fe49ULL);
  // 51e1793eae66e2c3 3112f804... (GUID ffffffffffffffff)
  EXPECT_EQ(portMKey(s, 0xffffffffffffffffULL), 0x51e1793eae66e2c3ULL);
  // 0328ec771e828052 59a13557...: a leading zero byte stays (big-endian, not trimmed)
  EXPECT_EQ(portMKey(s, 0x0008f10403960558ULL), 0x0328ec771e828052ULL);
  Secret other;
  other.bytes.fill(0x42);
  // python3 ... hmac.new(bytes.fromhex("42"*32), ...)  -> 594f1da49a4d5396...
  EXPECT_EQ(portMKey(other, 0x0002c90300a1b2c3ULL), 0x594f1da49a4d5396ULL);
}

TEST(PortMKey, SameSecretAndGuidGiveTheSameKeyWhereverComputed) {
  const Secret a = counting();
  const Secret b = counting();  // a second copy, as the standby reads it from its file
  for (std::uint64_t guid = 0x0002c90300000000ULL; guid < 0x0002c90300000100ULL; ++guid)
    EXPECT_EQ(portMKey(a, guid), portMKey(b, guid));
}

TEST(PortMKey, DifferentGuidsAndDifferentSecretsGiveDifferentKeysNeverZero) {
  const Secret s = counting();
  Secret t = counting();
  t.bytes[31] ^= 1;
  std::set<std::uint64_t> keys;
  for (std::uint64_t guid = 0x0002c90300000000ULL; guid < 0x0002c90300000000ULL + 10000; ++guid) {
    const auto k = portMKey(s, guid);
    EXPECT_NE(k, 0u);
    keys.insert(k);
    EXPECT_NE(k, portMKey(t, guid));
  }
  EXPECT_EQ(keys.size(), 10000u);
}

TEST(PortMKey, AZeroTruncationTakesTheNextEightBytes) {
  std::array<std::uint8_t, 32> mac{};
  mac[15] = 0x07;  // words: 0, 7, 0, 0
  EXPECT_EQ(keyFromMac(mac), 0x7u);
  mac[15] = 0;
  mac[16] = 0x80;  // words: 0, 0, 0x8000..., 0
  EXPECT_EQ(keyFromMac(mac), 0x8000000000000000ULL);
  mac.fill(0);
  EXPECT_EQ(keyFromMac(mac), 1u);  // all 256 bits 0: still not "no key"
  mac[0] = 0xab;
  mac[7] = 0xcd;
  EXPECT_EQ(keyFromMac(mac), 0xab000000000000cdULL);
}

}  // namespace
}  // namespace ibsm::security
