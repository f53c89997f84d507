// The few file operations the commands need, with errors that name the file.
#pragma once

#include <ibsm/Error.h>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace ibsm::sm::files {

[[nodiscard]] Result<std::string> readFile(const std::filesystem::path& path);
// Writes to a temporary beside the target and renames it, so a reader (or a
// crash) never sees half a file.
[[nodiscard]] Result<void> writeFileAtomically(const std::filesystem::path& path,
                                               std::string_view content);
// The same for content too large to hold: `produce` hands it over in chunks.
using ChunkWriter = std::function<void(std::string_view chunk)>;
[[nodiscard]] Result<void> writeFileAtomically(
    const std::filesystem::path& path, const std::function<void(const ChunkWriter&)>& produce);

// The same for a file only its owner may read (the SM's state: guid2lid,
// secrets): the temporary is created 0600, so no moment shows the content to
// anyone else, whatever the umask; an existing target's mode does not carry
// over. A symlink in the temporary's place is refused.
[[nodiscard]] Result<void> writePrivateFileAtomically(const std::filesystem::path& path,
                                                      std::string_view content);

}  // namespace ibsm::sm::files
