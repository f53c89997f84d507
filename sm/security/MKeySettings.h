// The M_Key keys of [sm] in ibsm.toml (sm/config/MKeyOptions.cpp parses them)
// and the one place they turn into a KeyScheme. Protect bits and lease are
// the PortInfo fields of IBA 14.2.4.1-2 the SM writes with each port's key.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "sm/security/KeyScheme.h"

namespace ibsm::security {

inline constexpr std::string_view kSecretFileName = "mkey.secret";  // in the state directory
inline constexpr std::uint8_t kMaxProtectBits = 3;
inline constexpr std::chrono::seconds kMinRotateInterval{600};

struct MKeySettings {  // parsed from [sm] in ibsm.toml
  bool enabled{true};  // sm.m_key_enable (the secret is made at first start)
  std::optional<std::filesystem::path>
      secretFile{};  // sm.m_key_secret_file; default <state dir>/mkey.secret
  std::optional<std::uint64_t>
      singleKey{};  // sm.m_key (OpenSM's meaning: one key for every port; 0 = off)
  // sm.m_key_protect, M_KeyProtectBits 0..3. 1: Gets without the key still
  // answer (with M_Key read as 0), so infiniband-diags keep working, while
  // every Set and TrapRepress without it fails.
  std::uint8_t protectBits{1};
  std::uint16_t leaseSeconds{60};          // sm.m_key_lease (0: never expires, as the IBA says)
  std::chrono::seconds rotateInterval{0};  // sm.m_key_rotate_interval (0: never; else >= 600 s)
};

// Where the secret is read from: the configured file, else the state directory's.
[[nodiscard]] std::filesystem::path secretPath(const MKeySettings& settings,
                                               const std::filesystem::path& stateDir);

// Where a rotation keeps the secret it replaces until every port holds a key
// of the new one ("<secret>.previous"): written (saveSecret) before the new
// secret is, removed when the rotation is done, so that a restart in the
// middle of one still reaches the ports that hold a key of the old.
[[nodiscard]] std::filesystem::path previousSecretPath(const std::filesystem::path& secret);

// The scheme the settings ask for: off when disabled or sm.m_key = 0; one key
// for sm.m_key; else keys derived from the secret, with the previous secret
// as previous when its file is there. The state directory's secret is
// created at first start; a configured sm.m_key_secret_file must exist (made
// on purpose and shared with the standby: a fresh one there would lock the
// standby out of the fabric).
[[nodiscard]] std::expected<KeyScheme, std::string> schemeFor(
    const MKeySettings& settings, const std::filesystem::path& stateDir);

}  // namespace ibsm::security
