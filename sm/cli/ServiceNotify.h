// Tells systemd (Type=notify units, dist/systemd) how the daemon is doing,
// through libsystemd's sd_notify: READY=1 after the first sweep,
// RELOADING=1 and READY=1 around a SIGHUP, STOPPING=1, each with a STATUS=
// line `systemctl status` shows. Outside systemd (no NOTIFY_SOCKET) it does
// nothing.
#pragma once

#include <string_view>

#include "sm/manager/SmDaemon.h"

namespace ibsm::sm::cli {

void tellServiceManager(manager::SmDaemon::Lifecycle what, std::string_view status);

}  // namespace ibsm::sm::cli
