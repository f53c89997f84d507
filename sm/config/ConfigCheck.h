// `ibsm config check FILE`: an ibsm.toml read as `ibsm run --config FILE`
// would read it, and the files it names read too (the partitions file and
// the [[partition]] tables, the root GUID list, the health threshold files,
// the M_Key secret file),
// so a config that passes starts. Sends and writes nothing.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Partitions.h>

#include <cstddef>
#include <filesystem>
#include <vector>

namespace ibsm::sm::config {

struct ConfigCheckSummary {
  std::size_t keys{0};        // keys set in the file
  std::size_t partitions{0};  // partitions the SM would manage
  std::size_t rootGuids{0};   // GUIDs in routing.root_guid_file
  std::size_t filesRead{0};   // files named by the config and read
  // partitions.strict = false: items of the partitions file read past.
  std::vector<partition::IgnoredItem> partitionsIgnored;
};

// The first error found, as `file:line: what was expected` when there is a
// line to name.
[[nodiscard]] Result<ConfigCheckSummary> checkConfigFile(const std::filesystem::path& path);

}  // namespace ibsm::sm::config
