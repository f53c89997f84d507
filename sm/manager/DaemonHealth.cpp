// The daemon's side of fabric health: what it does with the counters each
// pass reads and the conditions the health book finds.
#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {

void SmDaemon::Impl::countersRead() {
  // The health book (thresholds, conditions, policy) takes the counters
  // from here; until it does, the counters are only shown.
}

}  // namespace ibsm::sm::manager
