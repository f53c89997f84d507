// An M_Key rotation on disk (issue 29): what the SM writes so that every
// port can be moved to keys of a new secret and a restart at any moment
// still reaches every port. The order is the point:
//
//   1. the running secret is saved as "<secret>.previous" (0600, atomic);
//   2. a new secret replaces "<secret>" (0600, atomic);
//   ... every port is moved to its new key by the PortInfo Sets bring-up
//       sends, the engine sending each the key it holds (sm/mad/HeldKeys.h);
//   3. once every port holds its new key, "<secret>.previous" is removed.
//
// A crash after 1 restarts with the old secret as both (nothing to move); a
// crash after 2 restarts with both secrets (schemeFor reads the previous
// file), so ports on either key are reached and the rotation goes on.
//
//   auto next = beginRotation(running, secretFile);   // refused: says why
//   ...
//   auto done = endRotation(*next, secretFile);
#pragma once

#include <expected>
#include <filesystem>
#include <string>

#include "sm/security/KeyScheme.h"

namespace ibsm::security {

// Steps 1 and 2: the scheme of a new secret that remembers the running one
// as previous. Refused, with nothing written, when the running scheme has no
// secret (M_Key off, or OpenSM's one fixed sm.m_key) or a rotation has not
// ended yet (ports may still hold the previous keys: forgetting them would
// lock those ports out until their lease ends).
[[nodiscard]] std::expected<KeyScheme, std::string> beginRotation(
    const KeyScheme& running, const std::filesystem::path& secretFile);

// Step 3: the running scheme without its previous secret, whose file is
// removed (and the removal made durable). Call only once every port holds
// a key of the current secret.
[[nodiscard]] std::expected<KeyScheme, std::string> endRotation(
    const KeyScheme& running, const std::filesystem::path& secretFile);

}  // namespace ibsm::security
