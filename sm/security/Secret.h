// The subnet secret that every port's M_Key is derived from (PortKey.h).
// Two SMs that hold the same secret know every key without one crossing the
// wire, so the file is guarded as sshd guards a host key: a regular file
// owned by the daemon's user, no permission bits for group or others,
// written atomically.
//
//   auto secret = loadSecret(stateDir / "mkey.secret", /*create=*/true);
//   if (!secret) return fail(secret.error());  // names the file and what was wrong
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>

namespace ibsm::security {

// 32 bytes, zeroed when destroyed. Deliberately given no formatter and no
// operator<<: nothing can print it by accident (SecretTest checks).
struct Secret {
  std::array<std::uint8_t, 32> bytes{};
  ~Secret();
};

// Constant-time comparison: a secret is never compared byte by byte early-out.
[[nodiscard]] bool sameSecret(const Secret& a, const Secret& b);

// 32 bytes from the kernel's random source (libsodium's randombytes_buf).
[[nodiscard]] Secret newSecret();

// Reads `file`: exactly 32 bytes, or 64 hex digits and an optional newline.
// Refused unless a regular file owned by this process's effective uid with no
// group or other permission bits, in a directory others cannot write into
// (unless sticky, as /tmp). When absent and `create`, a new secret is written
// there (0600, temp file + fsync + rename; a missing directory is made 0700).
[[nodiscard]] std::expected<Secret, std::string> loadSecret(const std::filesystem::path& file,
                                                            bool create);

// Writes `secret` to `file` as 32 raw bytes, mode 0600, atomically: a reader
// (or a crash) sees the old file or the new one, never half of one.
[[nodiscard]] std::expected<void, std::string> saveSecret(const std::filesystem::path& file,
                                                          const Secret& secret);

// 8 hex digits that name a secret without revealing it (HMAC-SHA256 of a
// fixed label under the secret): two SMs can show they share one.
[[nodiscard]] std::string fingerprint(const Secret& secret);

}  // namespace ibsm::security
