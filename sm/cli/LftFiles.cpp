#include "sm/cli/LftFiles.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "sm/files/FileIo.h"

namespace ibsm::sm::cli {
namespace {

// Lines cut from 1 MiB blocks as they are parsed: a radix-36 tree's dump is
// 1.4 GB, far more than its tables, and getline costs more than the parse.
class BlockLines {
 public:
  explicit BlockLines(std::ifstream& in) : in_(in), block_(std::size_t{1} << 20, '\0') {}
  bool next(std::string_view& line) {
    for (;;) {
      const std::string_view rest = std::string_view(block_).substr(at_, end_ - at_);
      if (const auto nl = rest.find('\n'); nl != rest.npos) {
        line = trimCr(rest.substr(0, nl));
        at_ += nl + 1;
        return true;
      }
      if (eof_) {  // the last line, without its newline
        if (rest.empty()) return false;
        line = trimCr(rest);
        at_ = end_;
        return true;
      }
      refill();
    }
  }

 private:
  static std::string_view trimCr(std::string_view s) {
    return s.ends_with('\r') ? s.substr(0, s.size() - 1) : s;
  }
  void refill() {  // keep the partial line, grow for a line longer than the block
    const std::size_t kept = end_ - at_;
    std::memmove(block_.data(), block_.data() + at_, kept);
    if (kept == block_.size()) block_.resize(block_.size() * 2);
    in_.read(block_.data() + kept, static_cast<std::streamsize>(block_.size() - kept));
    at_ = 0;
    end_ = kept + static_cast<std::size_t>(in_.gcount());
    eof_ = !in_;
  }
  std::ifstream& in_;
  std::string block_;
  std::size_t at_{0}, end_{0};
  bool eof_{false};
};

Result<HeldLftDump> readText(std::ifstream& in, const std::filesystem::path& path, LftRead how) {
  BlockLines lines(in);
  const NextLine next = [&](std::string_view& line) { return lines.next(line); };
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
