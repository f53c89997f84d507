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
  auto secret = loadSecret(secretPath(settings, stateDir), !settings.secretFile.has_value());
  if (!secret) return std::unexpected(secret.error());
  return KeyScheme::derived(std::move(*secret));
}

}  // namespace ibsm::security
