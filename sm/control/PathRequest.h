// The control request behind `ibsm path` against the daemon: one line, its
// fields separated by tabs since node names may hold spaces:
//   path <TAB> json|text <TAB> SL|- <TAB> MGID|- <TAB> FROM <TAB> TO|-
//        <TAB> PKEY|- <TAB> SERVICE_ID|- <TAB> QOS_CLASS|-
// (the last three, the PathRecord query's, may be left off: none named).
// Numbers are decimal or 0x hex. The daemon answers with what `ibsm path`
// prints (PathFormat.h), or "error: ...\n".
#pragma once

#include <ibsm/Error.h>

#include <optional>
#include <string>
#include <string_view>

#include "routing/analysis/PathSl.h"

namespace ibsm::sm::control {

struct PathRequest {
  bool json{false};
  analysis::PathSlQuery query{};      // --sl, --pkey, --service-id, --qos-class
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

// A number as the operator and the line write it: decimal or 0x hex, at
// most `max`. The error says what was expected of `what`.
[[nodiscard]] Result<std::uint64_t> parsePathNumber(std::string_view text, std::uint64_t max,
                                                    std::string_view what);

}  // namespace ibsm::sm::control
