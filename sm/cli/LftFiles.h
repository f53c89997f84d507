// The dry run's LFT dump in either form, `--dump-format opensm` (the text
// OpenSM reads and writes, opensm-lfts.dump) or `compact` (lfts.ibsm,
// Dumps.h), and the readers that take either: a file is told by its first
// bytes, not its name, so `--previous` and `ibsm path` read both.
//
//   auto held = readLftFile("before/lfts.ibsm", LftRead::Held);
#pragma once

#include <ibsm/Dumps.h>

#include <filesystem>
#include <string_view>

namespace ibsm::sm::cli {

inline constexpr const char* kOpenSmLftFile = "opensm-lfts.dump";
inline constexpr const char* kCompactLftFile = "lfts.ibsm";
// zstd's level for the compact form: 1 (its fastest) already takes the
// tables of a fat tree to a few percent, and higher levels cost more time
// than the disk they save.
inline constexpr int kCompactZstdLevel = 1;

enum class LftDumpForm { OpenSm, Compact };
[[nodiscard]] Result<LftDumpForm> parseDumpForm(std::string_view name);
const char* lftFileName(LftDumpForm form);

// How a text file is read: as OpenSM or ibsm wrote it (Whole), or as an
// operator captured what switches hold, which may stop at an iberror (Held,
// parseHeldLftDump()). A compact file is whole or refused.
enum class LftRead { Whole, Held };
[[nodiscard]] Result<HeldLftDump> readLftFile(const std::filesystem::path& path, LftRead how);

// The LFT dump in a dry run's directory: opensm-lfts.dump, else lfts.ibsm.
std::filesystem::path lftFileIn(const std::filesystem::path& dir);

}  // namespace ibsm::sm::cli
