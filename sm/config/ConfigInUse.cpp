#include "sm/config/ConfigInUse.h"

namespace ibsm::sm::config {

Result<ConfigInUse> loadConfigInUse(const std::optional<std::filesystem::path>& explicitPath) {
  const std::filesystem::path path = explicitPath.value_or(kDefaultConfigPath);
  auto config = loadConfig(path, explicitPath.has_value());
  if (!config) return std::unexpected(config.error());
  ConfigInUse in{.config = std::move(*config), .file = std::nullopt};
  std::error_code ec;
  if (explicitPath || std::filesystem::exists(path, ec)) in.file = path;
  return in;
}

}  // namespace ibsm::sm::config
