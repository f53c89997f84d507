#include "sm/security/KeyRotation.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sm/security/MKeySettings.h"

namespace ibsm::security {
namespace {

// A removed file stays removed after a crash only once its directory is synced.
std::expected<void, std::string> syncDirectory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return std::unexpected(fmt::format("{}: cannot open: {}", dir.string(), std::strerror(errno)));
  const bool synced = ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!synced)
    return std::unexpected(fmt::format("{}: cannot sync: {}", dir.string(), std::strerror(err)));
  return {};
}

}  // namespace

std::expected<KeyScheme, std::string> beginRotation(const KeyScheme& running,
                                                    const std::filesystem::path& secretFile) {
  const Secret* old = running.currentSecret();
  if (old == nullptr)
    return std::unexpected(
        running.enabled()
            ? std::string("M_Keys cannot rotate with sm.m_key, OpenSM's one fixed key for every "
                          "port: remove sm.m_key to have ibsm derive per-port keys from a secret")
            : std::string("M_Key protection is off (sm.m_key_enable = false): no keys to rotate"));
  if (running.hasPrevious())
    return std::unexpected(fmt::format(
        "a rotation is still under way ({} exists): some ports may hold keys of the previous "
        "secret; it ends when every port holds its new key",
        previousSecretPath(secretFile).string()));
  if (auto saved = saveSecret(previousSecretPath(secretFile), *old); !saved)
    return std::unexpected(saved.error());
  Secret next = newSecret();
  if (auto saved = saveSecret(secretFile, next); !saved) return std::unexpected(saved.error());
  return KeyScheme::derived(std::move(next)).withPrevious(*old);
}

std::expected<KeyScheme, std::string> endRotation(const KeyScheme& running,
                                                  const std::filesystem::path& secretFile) {
  const auto previous = previousSecretPath(secretFile);
  std::error_code ec;
  std::filesystem::remove(previous, ec);
  if (ec)
    return std::unexpected(fmt::format("{}: cannot remove: {}", previous.string(), ec.message()));
  const auto dir = previous.has_parent_path() ? previous.parent_path() : std::filesystem::path(".");
  if (auto synced = syncDirectory(dir); !synced) return std::unexpected(synced.error());
  return running.withoutPrevious();
}

}  // namespace ibsm::security
