// STAND-IN (see KeyScheme.h): replaced by the keys part at merge.
#include "sm/security/KeyScheme.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace ibsm::security {
namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::expected<Secret, std::string> createSecret(const std::filesystem::path& file) {
  Secret s;
  std::ifstream random("/dev/urandom", std::ios::binary);
  if (!random.read(reinterpret_cast<char*>(s.bytes.data()), s.bytes.size()))
    return std::unexpected(std::string("cannot read /dev/urandom"));
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return std::unexpected(
        fmt::format("{}: cannot create: {}", file.string(), std::strerror(errno)));
  const bool written =
      ::write(fd, s.bytes.data(), s.bytes.size()) == static_cast<ssize_t>(s.bytes.size());
  ::close(fd);
  if (!written) return std::unexpected(fmt::format("{}: cannot write the secret", file.string()));
  return s;
}

}  // namespace

std::uint64_t portMKey(const Secret& secret, std::uint64_t portGuid) {
  std::uint64_t h = mix(portGuid);
  for (std::size_t i = 0; i < secret.bytes.size(); i += 8) {
    std::uint64_t word = 0;
    for (std::size_t j = 0; j < 8; ++j) word = (word << 8) | secret.bytes[i + j];
    h = mix(h ^ word);
  }
  return h == 0 ? 1 : h;
}

KeyScheme KeyScheme::off() {
  return KeyScheme{};
}

KeyScheme KeyScheme::derived(Secret secret) {
  KeyScheme k;
  k.kind_ = Kind::Derived;
  k.secret_ = secret;
  return k;
}

KeyScheme KeyScheme::single(std::uint64_t key) {
  KeyScheme k;
  k.kind_ = key == 0 ? Kind::Off : Kind::Single;
  k.single_ = key;
  return k;
}

std::uint64_t KeyScheme::keyFor(std::uint64_t portGuid) const {
  switch (kind_) {
    case Kind::Off:
      return 0;
    case Kind::Single:
      return single_;
    case Kind::Derived:
      return portMKey(secret_, portGuid);
  }
  return 0;
}

std::string KeyScheme::describe() const {
  switch (kind_) {
    case Kind::Off:
      return "off";
    case Kind::Single:
      return "one key for every port";
    case Kind::Derived:
      return "per-port keys derived from the secret";
  }
  return "off";
}

std::expected<Secret, std::string> loadSecret(const std::filesystem::path& file, bool create) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    if (create && !std::filesystem::exists(file)) return createSecret(file);
    return std::unexpected(fmt::format("{}: cannot read the M_Key secret", file.string()));
  }
  const std::vector<char> data{std::istreambuf_iterator<char>(in), {}};
  Secret s;
  if (data.size() != s.bytes.size())
    return std::unexpected(fmt::format("{}: expected {} bytes of secret, found {}", file.string(),
                                       s.bytes.size(), data.size()));
  std::memcpy(s.bytes.data(), data.data(), s.bytes.size());
  return s;
}

}  // namespace ibsm::security
