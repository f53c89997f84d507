// The few file operations the commands need, with errors that name the file.
#pragma once

#include <ibsm/Error.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace ibsm::cli {

[[nodiscard]] Result<std::string> readFile(const std::filesystem::path& path);
// Writes to a temporary beside the target and renames it, so a reader (or a
// crash) never sees half a file.
[[nodiscard]] Result<void> writeFileAtomically(const std::filesystem::path& path,
                                               std::string_view content);

}  // namespace ibsm::cli
