// State the SM keeps across restarts, in its state directory: today the
// guid2lid map (OpenSM's format), so a restarted SM, or one taking over,
// hands every port the LID it had. Written atomically.
//
// The directory is the daemon's alone, as ~/.ssh is its owner's under
// sshd's StrictModes: created 0700; one found with read or search bits for
// group or others is tightened to 0700 (ibsm before issue 29 made it 0755);
// one writable by group or others, or owned by another user than root or
// the daemon's, is refused, since anyone could have put files in it. Every
// file the daemon writes there is 0600.
#pragma once

#include <ibsm/Lids.h>

#include <filesystem>
#include <string>
#include <vector>

namespace ibsm::sm::manager {

class StateStore {
 public:
  explicit StateStore(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // Creates the directory when missing (0700), checks and tightens it as
  // above, and proves it writable (a file made and removed in it, as
  // saveGuid2Lid() writes one), so that a run that could not keep its LIDs
  // stops before it sends anything: a non-root user cannot create
  // /var/lib/ibsm. Returns what was tightened, one sentence each (the
  // caller logs them). Errors name the directory (or file), its mode and key.
  [[nodiscard]] Result<std::vector<std::string>> prepare() const;
  // A missing file is an empty map; a corrupt one is an error naming its line.
  [[nodiscard]] Result<Guid2Lid> loadGuid2Lid() const;
  // Entries of ports absent now are kept: a host that comes back gets its LID.
  [[nodiscard]] Result<void> saveGuid2Lid(const Guid2Lid& saved, const LidPlan& current) const;

  std::filesystem::path guid2lidPath() const { return dir_ / "guid2lid"; }

 private:
  std::filesystem::path dir_;
};

}  // namespace ibsm::sm::manager
