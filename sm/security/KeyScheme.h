// STAND-IN for the keys part of issue 29 (sm/security/, written in parallel):
// exactly the API agreed on, so the engine, bring-up and the daemon can be
// written against it. The lead replaces this folder with the keys part's at
// merge; nothing here is meant to last (the derivation below is not HMAC).
//
//   auto secret = security::loadSecret(stateDir / "mkey.secret", /*create=*/true);
//   auto keys = security::KeyScheme::derived(*secret);
//   std::uint64_t k = keys.keyFor(portGuid);   // 0 when keys are off
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>

namespace ibsm::security {

struct Secret {
  std::array<std::uint8_t, 32> bytes{};
};

// The M_Key of one port under `secret`; never 0 (0 means "no key" to a port).
std::uint64_t portMKey(const Secret& secret, std::uint64_t portGuid);

class KeyScheme {
 public:
  static KeyScheme off();
  static KeyScheme derived(Secret secret);
  static KeyScheme single(std::uint64_t key);

  bool enabled() const { return kind_ != Kind::Off; }
  std::uint64_t keyFor(std::uint64_t portGuid) const;
  std::string describe() const;

 private:
  enum class Kind { Off, Derived, Single };
  Kind kind_{Kind::Off};
  Secret secret_{};
  std::uint64_t single_{0};
};

struct MKeySettings {
  bool enabled{true};
  std::optional<std::filesystem::path> secretFile;
  std::optional<std::uint64_t> singleKey;
  std::uint8_t protectBits{1};
  std::uint16_t leaseSeconds{60};
  std::chrono::seconds rotateInterval{0};
};

// Reads the 32-byte secret from `file`; with `create`, a missing file is
// made (mode 0600) from the system's random source.
std::expected<Secret, std::string> loadSecret(const std::filesystem::path& file, bool create);

}  // namespace ibsm::security
