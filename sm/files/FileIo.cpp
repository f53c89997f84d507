#include "sm/files/FileIo.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
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
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string tmp = (dir / fmt::format(".{}.XXXXXX", path.filename().string())).string();
  const int fd = ::mkstemp(tmp.data());  // a new file, 0600, never a symlink's target
  if (fd < 0)
    return fail(fmt::format("{}: cannot create a temporary file in {}: {}", path.string(),
                            dir.string(), std::strerror(errno)));
  bool ok = ::fchmod(fd, 0600) == 0;
  for (std::size_t done = 0; ok && done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  // On disk before it replaces the old: a crash leaves the old file or the new.
  ok = ok && ::fsync(fd) == 0;
  const int writeErrno = errno;
  if (::close(fd) != 0) ok = false;
  if (!ok) {
    ::unlink(tmp.c_str());
    return fail(fmt::format("{}: write failed: {}", tmp, std::strerror(writeErrno)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return fail(fmt::format("{}: cannot rename {} into place: {}", path.string(), tmp, why));
  }
  // The rename itself reaches the disk only when the directory is synced.
  const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool synced = dirFd >= 0 && ::fsync(dirFd) == 0;
  const std::string why = std::strerror(errno);
  if (dirFd >= 0) ::close(dirFd);
  if (!synced)
    return fail(
        fmt::format("{}: written, but its directory cannot be synced: {}", path.string(), why));
  return {};
}

}  // namespace ibsm::sm::files
