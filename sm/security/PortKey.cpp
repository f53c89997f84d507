#include "sm/security/PortKey.h"

#include <sodium.h>

namespace ibsm::security {

static_assert(crypto_auth_hmacsha256_KEYBYTES == sizeof(Secret::bytes));
static_assert(crypto_auth_hmacsha256_BYTES == 32);

std::uint64_t keyFromMac(const std::array<std::uint8_t, 32>& mac) {
  for (std::size_t word = 0; word < 4; ++word) {
    std::uint64_t key = 0;
    for (std::size_t i = 0; i < 8; ++i) key = (key << 8) | mac[word * 8 + i];
    if (key != 0) return key;
  }
  return 1;
}

std::uint64_t portMKey(const Secret& secret, std::uint64_t portGuid) {
  std::array<std::uint8_t, 8> message{};
  for (std::size_t i = 0; i < 8; ++i)
    message[i] = static_cast<std::uint8_t>(portGuid >> (56 - 8 * i));
  std::array<std::uint8_t, 32> mac{};
  // sodium_init() is not needed for HMAC (no random source involved); every
  // path that makes or loads a Secret has run it anyway.
  crypto_auth_hmacsha256(mac.data(), message.data(), message.size(), secret.bytes.data());
  const std::uint64_t key = keyFromMac(mac);
  sodium_memzero(mac.data(), mac.size());
  return key;
}

}  // namespace ibsm::security
