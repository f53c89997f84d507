#include "sm/manager/StateStore.h"

#include <fmt/format.h>

#include "sm/files/FileIo.h"

namespace ibsm::sm::manager {

Result<void> StateStore::prepare() const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec)
    return fail(fmt::format("{}: cannot create the state directory (sm.state_dir, --state-dir): {}",
                            dir_.string(), ec.message()));
  const auto probe = dir_ / ".ibsm-write-probe";
  if (auto written = files::writeFileAtomically(probe, ""); !written)
    return fail(
        fmt::format("{}: the state directory (sm.state_dir, --state-dir) is not writable: {}",
                    dir_.string(), written.error().message));
  std::filesystem::remove(probe, ec);
  return {};
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
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec)
    return fail(fmt::format("{}: cannot create state directory: {}", dir_.string(), ec.message()));
  return files::writeFileAtomically(guid2lidPath(), formatGuid2Lid(merged));
}

}  // namespace ibsm::sm::manager
