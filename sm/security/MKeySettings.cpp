#include "sm/security/MKeySettings.h"

namespace ibsm::security {

std::filesystem::path secretPath(const MKeySettings& settings,
                                 const std::filesystem::path& stateDir) {
  return settings.secretFile.value_or(stateDir / kSecretFileName);
}

std::expected<KeyScheme, std::string> schemeFor(const MKeySettings& settings,
                                                const std::filesystem::path& stateDir) {
  if (!settings.enabled) return KeyScheme::off();
  if (settings.singleKey) return KeyScheme::single(*settings.singleKey);
  const auto file = secretPath(settings, stateDir);
  auto secret = loadSecret(file, !settings.secretFile.has_value());
  if (!secret) return std::unexpected(secret.error());
  auto scheme = KeyScheme::derived(std::move(*secret));
  std::error_code ec;
  if (!std::filesystem::exists(previousSecretPath(file), ec)) return scheme;
  auto previous = loadSecret(previousSecretPath(file), false);
  if (!previous) return std::unexpected(previous.error());
  return scheme.withPrevious(std::move(*previous));
}

std::filesystem::path previousSecretPath(const std::filesystem::path& secret) {
  auto p = secret;
  p += ".previous";
  return p;
}

}  // namespace ibsm::security
