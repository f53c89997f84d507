#include "sm/cli/LftFiles.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "sm/files/FileIo.h"

namespace ibsm::sm::cli {
namespace {

// Text read a line at a time as it is parsed: a radix-36 tree's dump is
// 1.4 GB, far more than its tables.
Result<HeldLftDump> readText(std::ifstream& in, const std::filesystem::path& path, LftRead how) {
  std::string buffer;
  const NextLine next = [&](std::string_view& line) {
    if (!std::getline(in, buffer)) return false;
    if (buffer.ends_with('\r')) buffer.pop_back();
    line = buffer;
    return true;
  };
  Result<HeldLftDump> out;
  if (how == LftRead::Held) {
    out = parseHeldLftDump(next, path.string());
  } else if (auto tables = parseLftDump(next, path.string()); tables) {
    out = HeldLftDump{.tables = std::move(*tables), .cuts = {}};
  } else {
    out = std::unexpected(tables.error());
  }
  if (out && in.bad())
    return fail(fmt::format("{}: read failed: {}", path.string(), std::strerror(errno)));
  return out;
}

}  // namespace

Result<LftDumpForm> parseDumpForm(std::string_view name) {
  if (name == "opensm") return LftDumpForm::OpenSm;
  if (name == "compact") return LftDumpForm::Compact;
  return fail(fmt::format("--dump-format: expected opensm or compact, not '{}'", name));
}

const char* lftFileName(LftDumpForm form) {
  return form == LftDumpForm::Compact ? kCompactLftFile : kOpenSmLftFile;
}

Result<HeldLftDump> readLftFile(const std::filesystem::path& path, LftRead how) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
  char head[kCompactLftMagic.size()] = {};
  in.read(head, sizeof head);
  if (!isCompactLftDump(std::string_view(head, static_cast<std::size_t>(in.gcount())))) {
    in.clear();
    in.seekg(0);
    return readText(in, path, how);
  }
  in.close();
  auto bytes = files::readFile(path);
  if (!bytes) return std::unexpected(bytes.error());
  auto tables = parseCompactLftDump(*bytes, path.string());
  if (!tables) return std::unexpected(tables.error());
  return HeldLftDump{.tables = std::move(*tables), .cuts = {}};
}

std::filesystem::path lftFileIn(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir / kOpenSmLftFile, ec) &&
      std::filesystem::exists(dir / kCompactLftFile, ec))
    return dir / kCompactLftFile;
  return dir / kOpenSmLftFile;
}

}  // namespace ibsm::sm::cli
