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

  // Creates the directory when missing and proves it writable (a file made
  // and removed in it, as saveGuid2Lid() writes one), so that a run that
  // could not keep its LIDs stops before it sends anything: a non-root user
  // cannot create /var/lib/ibsm. Errors name the directory and its key.
  [[nodiscard]] Result<void> prepare() const;
  // A missing file is an empty map; a corrupt one is an error naming its line.
  [[nodiscard]] Result<Guid2Lid> loadGuid2Lid() const;
  // Entries of ports absent now are kept: a host that comes back gets its LID.
  [[nodiscard]] Result<void> saveGuid2Lid(const Guid2Lid& saved, const LidPlan& current) const;

  std::filesystem::path guid2lidPath() const { return dir_ / "guid2lid"; }
  // The M_Key secret (sm/security), made at first start unless configured.
  std::filesystem::path mKeySecretPath() const { return dir_ / "mkey.secret"; }

 private:
  std::filesystem::path dir_;
};

}  // namespace ibsm::sm::manager
