#include "sm/config/FileModes.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace ibsm::sm::config {

Result<void> checkTrustedFile(const std::filesystem::path& path, std::string_view what,
                              uid_t daemonUid) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    return fail(
        fmt::format("{}: cannot check the {}: {}", path.string(), what, std::strerror(errno)));
  }
  const mode_t mode = st.st_mode & 07777;
  if (st.st_uid != 0 && st.st_uid != daemonUid)
    return fail(
        fmt::format("{}: the {} is owned by uid {}, not by root or the daemon's user "
                    "(uid {}); refused, as another user could change it (StrictModes)",
                    path.string(), what, st.st_uid, daemonUid));
  if ((mode & (S_IWGRP | S_IWOTH)) != 0)
    return fail(fmt::format(
        "{}: the {} has mode {:04o}, writable by {}; refused, as another user "
        "could change it (StrictModes): chmod go-w {}",
        path.string(), what, mode, (mode & S_IWOTH) != 0 ? "others" : "its group", path.string()));
  return {};
}

Result<void> checkDaemonFiles(const ConfigInUse& in, const Config& config,
                              const std::optional<std::filesystem::path>& partitionsFlag) {
  std::vector<std::pair<std::filesystem::path, std::string_view>> files;
  if (in.file) files.emplace_back(*in.file, "config file");
  if (partitionsFlag)
    files.emplace_back(*partitionsFlag, "partitions file (--partitions)");
  else if (!config.sm.partitionsFile.empty())
    files.emplace_back(config.sm.partitionsFile, "partitions file (sm.partitions_file)");
  if (config.routing.rootGuidFile)
    files.emplace_back(*config.routing.rootGuidFile, "root GUID file (routing.root_guid_file)");
  if (!config.health.thresholdFile.empty())
    files.emplace_back(config.health.thresholdFile, "threshold file (health.threshold_file)");
  if (!config.health.rateThresholdFile.empty())
    files.emplace_back(config.health.rateThresholdFile,
                       "rate threshold file (health.rate_threshold_file)");
  for (const auto& [path, what] : files)
    if (auto ok = checkTrustedFile(path, what, ::geteuid()); !ok) return ok;
  return {};
}

}  // namespace ibsm::sm::config
