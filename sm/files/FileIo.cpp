#include "sm/files/FileIo.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ibsm::sm::files {

Result<std::string> readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<void> writeFileAtomically(const std::filesystem::path& path, std::string_view content) {
  return writeFileAtomically(path, [&](const ChunkWriter& write) { write(content); });
}

Result<void> writeFileAtomically(const std::filesystem::path& path,
                                 const std::function<void(const ChunkWriter&)>& produce) {
  const auto tmp = path.string() + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail(fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
    produce([&](std::string_view chunk) {
      out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    });
    out.flush();
    if (!out) return fail(fmt::format("{}: write failed: {}", tmp, std::strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return fail(fmt::format("{}: cannot rename into place: {}", path.string(), ec.message()));
  return {};
}

}  // namespace ibsm::sm::files
