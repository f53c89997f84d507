#include "sm/cli/ServiceNotify.h"

#include <fmt/format.h>
#include <systemd/sd-daemon.h>

#include <string>

namespace ibsm::sm::cli {

void tellServiceManager(manager::SmDaemon::Lifecycle what, std::string_view status) {
  using Lifecycle = manager::SmDaemon::Lifecycle;
  std::string_view state = "READY=1";
  if (what == Lifecycle::Reloading) state = "RELOADING=1";
  if (what == Lifecycle::Stopping) state = "STOPPING=1";
  // A failure to tell is not the SM's failure: systemd times the start out
  // and says so itself.
  const std::string message = fmt::format("{}\nSTATUS={}", state, status);
  (void)sd_notify(0, message.c_str());
}

}  // namespace ibsm::sm::cli
