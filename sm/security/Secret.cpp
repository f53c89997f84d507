#include "sm/security/Secret.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "sm/files/FileIo.h"

namespace ibsm::security {
namespace {

// sodium_init() fails only when the process has no random source at all;
// nothing in ibsm can be protected then.
void ensureSodium() {
  static const bool ready = sodium_init() >= 0;
  if (!ready) {
    std::fputs("ibsm: libsodium cannot initialise (no random source)\n", stderr);
    std::abort();
  }
}

std::unexpected<std::string> failure(const std::filesystem::path& file, std::string_view what) {
  return std::unexpected(fmt::format("{}: {}", file.string(), what));
}

std::string errnoText() {
  return std::error_code(errno, std::generic_category()).message();
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

std::filesystem::path directoryOf(const std::filesystem::path& file) {
  return file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
}

// As sshd's StrictModes: the file is ours alone, and its directory lets no
// one else swap it (a sticky directory such as /tmp lets no one remove
// another's file).
std::expected<void, std::string> checkGuarded(const std::filesystem::path& file,
                                              const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return failure(file, "expected a regular file holding the secret");
  if (st.st_uid != ::geteuid())
    return failure(file, fmt::format("owned by uid {}, expected uid {} (the daemon's): refused, "
                                     "as anyone owning it could change the subnet's keys",
                                     st.st_uid, ::geteuid()));
  if ((st.st_mode & 077) != 0)
    return failure(file, fmt::format("mode {:04o} gives group or others access, expected 0600: "
                                     "refused (chmod 600 {})",
                                     st.st_mode & 07777, file.string()));
  const auto dir = directoryOf(file);
  struct stat ds {};
  if (::stat(dir.c_str(), &ds) != 0)
    return failure(file, fmt::format("cannot stat its directory: {}", errnoText()));
  if ((ds.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (ds.st_mode & S_ISVTX) == 0)
    return failure(file, fmt::format("its directory {} (mode {:04o}) lets group or others "
                                     "replace the secret, expected it writable by its owner only",
                                     dir.string(), ds.st_mode & 07777));
  return {};
}

int hexDigit(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::expected<Secret, std::string> parseSecret(const std::filesystem::path& file,
                                               const std::vector<std::uint8_t>& text) {
  Secret s;
  if (text.size() == s.bytes.size()) {
    std::copy(text.begin(), text.end(), s.bytes.begin());
  } else if (text.size() == 64 || (text.size() == 65 && text.back() == '\n')) {
    for (std::size_t i = 0; i < 64; ++i) {
      const int d = hexDigit(text[i]);
      if (d < 0)
        return failure(file, fmt::format("expected 64 hex digits, found a byte that is not one "
                                         "at offset {}",
                                         i));
      s.bytes[i / 2] = static_cast<std::uint8_t>((s.bytes[i / 2] << 4) | d);
    }
  } else {
    return failure(file, fmt::format("expected exactly 32 bytes, or 64 hex digits and an optional "
                                     "newline, found {} bytes",
                                     text.size()));
  }
  if (sodium_is_zero(s.bytes.data(), s.bytes.size()))
    return failure(file,
                   "is all zero bytes, expected a random secret (remove the file and ibsm "
                   "makes one at its next start)");
  return s;
}

// Reads at most `limit` bytes: a secret is tiny, a file much longer is the
// wrong file.
std::expected<std::vector<std::uint8_t>, std::string> readSmall(const std::filesystem::path& file,
                                                                int fd, std::size_t limit) {
  std::vector<std::uint8_t> out(limit + 1);
  std::size_t got = 0;
  while (got < out.size()) {
    const auto n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failure(file, fmt::format("cannot read: {}", errnoText()));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

std::expected<void, std::string> makeDirectory(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) return {};
  if (!std::filesystem::create_directories(dir, ec) && ec)
    return std::unexpected(
        fmt::format("{}: cannot create the directory: {}", dir.string(), ec.message()));
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  if (ec)
    return std::unexpected(
        fmt::format("{}: cannot make the directory 0700: {}", dir.string(), ec.message()));
  return {};
}

}  // namespace

Secret::~Secret() {
  sodium_memzero(bytes.data(), bytes.size());
}

bool sameSecret(const Secret& a, const Secret& b) {
  ensureSodium();
  return sodium_memcmp(a.bytes.data(), b.bytes.data(), a.bytes.size()) == 0;
}

Secret newSecret() {
  ensureSodium();
  Secret s;
  randombytes_buf(s.bytes.data(), s.bytes.size());
  return s;
}

std::expected<Secret, std::string> loadSecret(const std::filesystem::path& file, bool create) {
  ensureSodium();
  // O_NONBLOCK: a FIFO put in the secret's place must not hang the start.
  Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) {
    if (errno != ENOENT) return failure(file, fmt::format("cannot open: {}", errnoText()));
    if (!create)
      return failure(file,
                     "no such file: expected the subnet's M_Key secret (32 bytes or 64 hex "
                     "digits, mode 0600), the same file on every SM of the subnet");
    Secret s = newSecret();
    if (auto saved = saveSecret(file, s); !saved) return std::unexpected(saved.error());
    return s;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return failure(file, fmt::format("cannot stat: {}", errnoText()));
  if (auto guarded = checkGuarded(file, st); !guarded) return std::unexpected(guarded.error());
  auto text = readSmall(file, fd.get(), 65);
  if (!text) return std::unexpected(text.error());
  auto secret = parseSecret(file, *text);
  sodium_memzero(text->data(), text->size());
  return secret;
}

std::expected<void, std::string> saveSecret(const std::filesystem::path& file,
                                            const Secret& secret) {
  if (auto made = makeDirectory(directoryOf(file)); !made) return std::unexpected(made.error());
  const std::string_view bytes(reinterpret_cast<const char*>(secret.bytes.data()),
                               secret.bytes.size());
  if (auto saved = sm::files::writePrivateFileAtomically(file, bytes); !saved)
    return std::unexpected(saved.error().message);
  return {};
}

std::string fingerprint(const Secret& secret) {
  ensureSodium();
  // A label no port GUID (8 bytes) can equal: the fingerprint and the keys
  // are HMACs of different messages, so one tells nothing about the other.
  constexpr std::string_view kLabel = "ibsm M_Key secret fingerprint";
  std::array<std::uint8_t, crypto_auth_hmacsha256_BYTES> mac{};
  crypto_auth_hmacsha256(mac.data(), reinterpret_cast<const unsigned char*>(kLabel.data()),
                         kLabel.size(), secret.bytes.data());
  return fmt::format("{:02x}{:02x}{:02x}{:02x}", mac[0], mac[1], mac[2], mac[3]);
}

}  // namespace ibsm::security
