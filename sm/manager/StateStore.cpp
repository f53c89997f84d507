#include "sm/manager/StateStore.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sm/files/FileIo.h"

namespace ibsm::sm::manager {
namespace {

constexpr std::string_view kKey = "sm.state_dir, --state-dir";

// Creates the directory's parents as the umask makes them, and the
// directory itself 0700, so its content is never open to others.
Result<void> createPrivately(const std::filesystem::path& dir) {
  std::error_code ec;
  if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
  if (!ec && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    ec = std::error_code(errno, std::generic_category());
  if (ec)
    return fail(fmt::format("{}: cannot create the state directory ({}): {}", dir.string(), kKey,
                            ec.message()));
  return {};
}

// Refuses what others could have written; tightens what others could read.
Result<std::vector<std::string>> checkPrivate(const std::filesystem::path& path,
                                              std::string_view what, mode_t keep) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::vector<std::string>{};
    return fail(
        fmt::format("{}: cannot stat the {}: {}", path.string(), what, std::strerror(errno)));
  }
  const mode_t mode = st.st_mode & 07777;
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return fail(
        fmt::format("{}: the {} is owned by uid {}; expected root or the daemon's user "
                    "(uid {}) ({})",
                    path.string(), what, st.st_uid, ::geteuid(), kKey));
  if ((mode & (S_IWGRP | S_IWOTH)) != 0)
    return fail(
        fmt::format("{}: the {} has mode {:04o}, writable by group or others, who could "
                    "have changed what it holds; expected {:04o} ({})",
                    path.string(), what, mode, keep, kKey));
  if ((mode & 077) == 0) return std::vector<std::string>{};
  if (::chmod(path.c_str(), keep) != 0)
    return fail(fmt::format("{}: cannot tighten the {} from {:04o} to {:04o}: {}", path.string(),
                            what, mode, keep, std::strerror(errno)));
  return std::vector<std::string>{
      fmt::format("{}: {} tightened from {:04o} to {:04o}", path.string(), what, mode, keep)};
}

}  // namespace

Result<std::vector<std::string>> StateStore::prepare() const {
  if (auto made = createPrivately(dir_); !made) return std::unexpected(made.error());
  auto notes = checkPrivate(dir_, "state directory", 0700);
  if (!notes) return notes;
  auto file = checkPrivate(guid2lidPath(), "guid2lid file", 0600);
  if (!file) return file;
  notes->insert(notes->end(), file->begin(), file->end());
  const auto probe = dir_ / ".ibsm-write-probe";
  if (auto written = files::writePrivateFileAtomically(probe, ""); !written)
    return fail(fmt::format("{}: the state directory ({}) is not writable: {}", dir_.string(), kKey,
                            written.error().message));
  std::error_code ec;
  std::filesystem::remove(probe, ec);
  return notes;
}

Result<Guid2Lid> StateStore::loadGuid2Lid() const {
  std::error_code ec;
  if (!std::filesystem::exists(guid2lidPath(), ec)) return Guid2Lid{};
  auto text = files::readFile(guid2lidPath());
  if (!text) return std::unexpected(text.error());
  return parseGuid2Lid(*text, guid2lidPath().string());
}

Result<void> StateStore::saveGuid2Lid(const Guid2Lid& saved, const LidPlan& current) const {
  Guid2Lid merged = saved;
  const Guid2Lid now = toGuid2Lid(current);
  // A LID handed to a present port is no longer another (absent) port's.
  std::erase_if(merged, [&](const auto& entry) {
    const auto& [guid, range] = entry;
    if (now.contains(guid)) return true;
    for (const auto& [g, r] : now)
      if (range.first <= r.last && r.first <= range.last) return true;
    return false;
  });
  merged.insert(now.begin(), now.end());
  if (auto made = createPrivately(dir_); !made) return made;
  return files::writePrivateFileAtomically(guid2lidPath(), formatGuid2Lid(merged));
}

}  // namespace ibsm::sm::manager
