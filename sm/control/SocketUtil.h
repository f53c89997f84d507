// Private to sm/control: the unix-socket plumbing both halves share.
#pragma once

#include <fmt/format.h>
#include <ibsm/Error.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <utility>

namespace ibsm::sm::control {

// Closes the descriptor it owns, so early returns cannot leak it.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// sun_path holds 107 bytes and a NUL; a longer path would be cut silently.
inline Result<sockaddr_un> unixAddress(const std::filesystem::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string& s = path.native();
  if (s.empty() || s.size() >= sizeof(addr.sun_path))
    return fail(fmt::format("{}: a control socket path must be 1 to {} bytes long", s,
                            sizeof(addr.sun_path) - 1));
  std::memcpy(addr.sun_path, s.data(), s.size());
  return addr;
}

}  // namespace ibsm::sm::control
