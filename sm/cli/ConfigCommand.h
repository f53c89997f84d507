// `ibsm config import` and `ibsm config check`: the way in from OpenSM (an
// opensm.conf turned into an ibsm.toml) and the check of a config before
// a SIGHUP or a start. Both exit 2 with `file:line: what was expected` on
// bad input, and import writes nothing then.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>

namespace ibsm::sm::cli {

struct ConfigArgs {
  std::filesystem::path input;                  // opensm.conf (import) or ibsm.toml (check)
  std::optional<std::filesystem::path> output;  // import -o; unset: stdout
  bool force{false};                            // import -o over an existing file
};

void addConfigCommand(CLI::App& app, ConfigArgs& importArgs, ConfigArgs& checkArgs);
// Runs whichever of `config import` / `config check` was given.
int runConfig(const CLI::App& app, const ConfigArgs& importArgs, const ConfigArgs& checkArgs);

}  // namespace ibsm::sm::cli
