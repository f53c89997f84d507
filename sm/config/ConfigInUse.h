// Which configuration file a command reads, decided in one place for every
// command (route, run, partitions, status, sweep): the file named by
// --config, which must exist, else the default path when it exists, else the
// built-in defaults. Commands that read more than the options (the daemon's
// [[partition]] tables) also need to know which file that was.
//
//   auto in = config::loadConfigInUse(args.config);
//   if (in->file) readTomlPartitions(*in->file);
#pragma once

#include <ibsm/Error.h>

#include <filesystem>
#include <optional>

#include "sm/config/Config.h"

namespace ibsm::sm::config {

inline constexpr const char* kDefaultConfigPath = "/etc/ibsm/ibsm.toml";

struct ConfigInUse {
  Config config;
  // The file the options came from; nullopt: none (no --config and nothing at
  // the default path), the built-in defaults are in use.
  std::optional<std::filesystem::path> file;
};

// `explicitPath` is --config; a missing explicit file is an error, a
// missing default one is not.
[[nodiscard]] Result<ConfigInUse> loadConfigInUse(
    const std::optional<std::filesystem::path>& explicitPath);

}  // namespace ibsm::sm::config
