// The daemon takes its orders from files: the config, the partitions file,
// the root GUID file, the health thresholds. Like sshd's StrictModes, a file
// that another user could have written is refused at start (and on SIGHUP,
// where the running configuration stays): it must be owned by root or the
// daemon's user and writable by neither group nor others. There is no key
// to turn this off; `chmod go-w FILE` is the fix the message names.
//
//   if (auto ok = config::checkDaemonFiles(in, config, partitionsFlag); !ok) refuse(ok.error());
#pragma once

#include <ibsm/Error.h>
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string_view>

#include "sm/config/ConfigInUse.h"

namespace ibsm::sm::config {

// One file: `what` says what it is to the operator ("config file",
// "sm.partitions_file"). A missing file passes (its reader reports it).
[[nodiscard]] Result<void> checkTrustedFile(const std::filesystem::path& path,
                                            std::string_view what, uid_t daemonUid);

// Every file `ibsm run` reads its orders from: the config file in use and
// the files `config` names (the partitions file as --partitions overrides it).
[[nodiscard]] Result<void> checkDaemonFiles(
    const ConfigInUse& in, const Config& config,
    const std::optional<std::filesystem::path>& partitionsFlag);

}  // namespace ibsm::sm::config
