#include "sm/config/ControlSocket.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "sm/config/Config.h"
#include "sm/config/ConfigInUse.h"

namespace ibsm::sm::config {

Result<ControlSocket> controlSocketOf(const std::optional<std::filesystem::path>& explicitPath) {
  const std::filesystem::path path = explicitPath.value_or(kDefaultConfigPath);
  ControlSocket out{.path = Config{}.sm.controlSocket, .warnings = {}};
  std::ifstream in(path);
  if (!in) {
    if (!explicitPath) return out;
    return fail(fmt::format("{}: cannot read config file", path.string()));
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto lenient = parseConfigLeniently(text.str(), path.string());
  if (!lenient)
    return fail(fmt::format("{} (the control socket cannot be read from it: give --socket PATH)",
                            lenient.error().message));
  for (const auto& problem : lenient->problems) {
    if (problem.key == "sm.control_socket") return fail(problem.message);
    out.warnings.push_back(
        fmt::format("{} (ignored by this command; the daemon refuses the file)", problem.message));
  }
  out.path = lenient->config.sm.controlSocket;
  return out;
}

}  // namespace ibsm::sm::config
