// Where the control commands (status, sweep, health, metrics, draw) find
// the daemon: sm.control_socket of the config, and nothing else of it. A
// typo in another key (`priorty = 7`) makes `ibsm run` refuse the file, at
// start and on SIGHUP, which is exactly when an operator reaches for
// `ibsm status`: so here the other keys' problems are warnings, and only a
// bad sm.control_socket (or a file that is not TOML) is an error.
//
//   auto socket = config::controlSocketOf(args.config);
//   for (const auto& w : socket->warnings) fmt::print(stderr, "warning: {}\n", w);
//   control::request(socket->path, "status");
#pragma once

#include <ibsm/Error.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::sm::config {

struct ControlSocket {
  std::filesystem::path path;
  // "file:line: ..." of every other key the daemon would refuse.
  std::vector<std::string> warnings;
};

// The file chosen as loadConfigInUse() chooses it (`explicitPath` is
// --config: it must exist; the default path may be absent).
[[nodiscard]] Result<ControlSocket> controlSocketOf(
    const std::optional<std::filesystem::path>& explicitPath);

}  // namespace ibsm::sm::config
