// State the SM keeps across restarts, in its state directory: today the
// guid2lid map (OpenSM's format), so a restarted SM, or one taking over,
// hands every port the LID it had. Written atomically.
#pragma once

#include <ibsm/Lids.h>

#include <filesystem>

namespace ibsm::sm::manager {

class StateStore {
 public:
  explicit StateStore(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // A missing file is an empty map; a corrupt one is an error naming its line.
  [[nodiscard]] Result<Guid2Lid> loadGuid2Lid() const;
  // Entries of ports absent now are kept: a host that comes back gets its LID.
  [[nodiscard]] Result<void> saveGuid2Lid(const Guid2Lid& saved, const LidPlan& current) const;

  std::filesystem::path guid2lidPath() const { return dir_ / "guid2lid"; }

 private:
  std::filesystem::path dir_;
};

}  // namespace ibsm::sm::manager
