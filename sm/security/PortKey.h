// A port's M_Key, derived from the subnet secret and the port's GUID:
// HMAC-SHA256(secret, GUID as 8 big-endian bytes), its first 8 bytes read
// big-endian. The same secret and GUID give the same key on every host, so a
// standby holding the secret takes over a protected fabric without learning
// a key from the wire; one port's key tells nothing about another's.
#pragma once

#include <array>
#include <cstdint>

#include "sm/security/Secret.h"

namespace ibsm::security {

// Never 0: 0 means "no M_Key" in the IBA (14.2.4), so a truncation that is 0
// takes the MAC's next 8 bytes (ever more unlikely: 2^-64 each).
[[nodiscard]] std::uint64_t portMKey(const Secret& secret, std::uint64_t portGuid);

// The truncation rule alone, for a MAC already computed: the first of its four
// big-endian 8-byte words that is not 0; 1 if all four are (2^-256).
[[nodiscard]] std::uint64_t keyFromMac(const std::array<std::uint8_t, 32>& mac);

}  // namespace ibsm::security
