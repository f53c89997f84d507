// The control request behind `ibsm path` against the daemon: one line, its
// fields separated by tabs since node names may hold spaces:
//   path <TAB> json|text <TAB> SL <TAB> MGID|- <TAB> FROM <TAB> TO|-
// The daemon answers with what `ibsm path` prints (PathFormat.h), or
// "error: ...\n".
#pragma once

#include <ibsm/Error.h>

#include <optional>
#include <string>
#include <string_view>

namespace ibsm::sm::control {

struct PathRequest {
  bool json{false};
  std::uint8_t sl{0};
  std::optional<std::string> mgid{};  // set: the multicast walk from `from`
  std::string from{};
  std::string to{};  // empty with mgid

  bool operator==(const PathRequest&) const = default;
};

inline constexpr std::string_view kPathRequest = "path\t";

std::string encodePathRequest(const PathRequest& request);
// The line as the server took it (trimmed of its newline). Errors say what
// the field was.
[[nodiscard]] Result<PathRequest> decodePathRequest(std::string_view line);

}  // namespace ibsm::sm::control
