// The client half of the control socket, used by `ibsm status` and
// `ibsm sweep`: one request line out, the whole answer back.
//
//   auto text = ibsm::control::request("/run/ibsm/ibsm.sock", "status");
//   if (!text) fmt::print(stderr, "{}\n", text.error().message);
#pragma once

#include <ibsm/Error.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>

namespace ibsm::sm::control {

// A missing socket or a refused connection reads "no ibsm daemon listening
// on PATH: connection refused"; a daemon that does not answer within
// `timeout` is an error too. The answer of a daemon that refused the
// request starts with "error: ".
[[nodiscard]] Result<std::string> request(
    const std::filesystem::path& socket, std::string_view line,
    std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace ibsm::sm::control
