// Where the daemon's multicast groups come from: the SA's (sm/sa keeps
// them; `ibsm run` binds its SaResponder through multicastGroupsOf(),
// sm/manager/SaFeed.h), or a test's fake. One typed interface in place of
// a bundle of callbacks, so a source says in one class what it answers.
//
// Read on the daemon's one thread: by every plan (routes() and
// generation(), MasterSweep) and by the MulticastService (the rest).
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Multicast.h>

#include <cstdint>
#include <vector>

#include "sm/sa/McGroups.h"

namespace ibsm::sm::manager {

class GroupSource {
 public:
  virtual ~GroupSource() = default;

  // Every group to route, with its members.
  virtual std::vector<McGroupRoute> routes() const = 0;
  // Changes whenever routes() would: a pass is due when it differs from
  // the generation the last plan routed.
  virtual std::uint64_t generation() const = 0;

  // The configuration's groups (DaemonSettings::multicastGroups), at start
  // and on every reload.
  virtual void precreate(const std::vector<McGroupSpec>& /*specs*/) {}
  // After a sweep: the members whose port the fabric no longer has leave;
  // returns how many left.
  virtual std::size_t keepPortsOf(const Fabric& /*fabric*/) { return 0; }
  // Groups created and deleted since the last call: traps 66/67.
  virtual std::vector<sa::McGroupEvent> takeEvents() { return {}; }
  // This SM left MASTER: every member, and every group not pre-created,
  // is forgotten (sa::McGroups::forgetJoins); returns the members dropped.
  // A group kept would be stale the day this SM is master again: the hosts
  // re-register with whichever SM took over, and re-join there.
  virtual std::size_t forget() { return 0; }
};

}  // namespace ibsm::sm::manager
