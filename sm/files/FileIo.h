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

// The same for a file only its owner may read (the SM's state: guid2lid, the
// M_Key secret): the temporary is a new file (mkstemp) created 0600, so no
// moment shows the content to anyone else, whatever the umask, and no symlink
// can stand in its place; an existing target's mode does not carry over. The
// file and then its directory are synced, so a crash leaves the old file or
// the new, whole.
[[nodiscard]] Result<void> writePrivateFileAtomically(const std::filesystem::path& path,
                                                      std::string_view content);

}  // namespace ibsm::sm::files
