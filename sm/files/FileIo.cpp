#include "sm/files/FileIo.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
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

Result<void> writePrivateFileAtomically(const std::filesystem::path& path,
                                        std::string_view content) {
  const auto tmp = path.string() + fmt::format(".tmp{}", ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fail(fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
  // A temporary left by a crash keeps its mode through O_CREAT: set it.
  bool ok = ::fchmod(fd, 0600) == 0;
  for (std::size_t done = 0; ok && done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  const int writeErrno = errno;
  if (::close(fd) != 0) ok = false;
  if (!ok) {
    ::unlink(tmp.c_str());
    return fail(fmt::format("{}: write failed: {}", tmp, std::strerror(writeErrno)));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return fail(fmt::format("{}: cannot rename into place: {}", path.string(), ec.message()));
  return {};
}

}  // namespace ibsm::sm::files
