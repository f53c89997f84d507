// The lifecycle the service manager is told (LifecycleService.h says when).
#include "sm/manager/LifecycleService.h"

#include <string>

#include "sm/control/StatusFormat.h"
#include "sm/fsm/SmMachine.h"

namespace ibsm::sm::manager {

void LifecycleService::onSweep(const SweepOutcome& outcome) {
  // A master is ready after its first sweep, up or not.
  if (outcome.info.kind == control::SweepKind::Heavy ||
      outcome.info.kind == control::SweepKind::Takeover)
    announce(SmDaemon::Lifecycle::Ready, self_.smState);
}

void LifecycleService::onState(SmState /*from*/, SmState to, bool /*stopping*/) {
  // The others as soon as they know their place. Told before the agent
  // shows `to`: the line names it.
  if (to == SmState::Standby || to == SmState::NotActive) announce(SmDaemon::Lifecycle::Ready, to);
}

void LifecycleService::reloading() {
  announce(SmDaemon::Lifecycle::Reloading, self_.smState);
}

void LifecycleService::reloaded() {
  if (reloadAnnounced_) announce(SmDaemon::Lifecycle::Ready, self_.smState);
}

void LifecycleService::stopping() {
  announce(SmDaemon::Lifecycle::Stopping, self_.smState);
}

void LifecycleService::announce(SmDaemon::Lifecycle what, SmState state) {
  if (what == SmDaemon::Lifecycle::Ready) {
    // Once at start; after that only to end a reload announced as such.
    if (announcedReady_ && !reloadAnnounced_) return;
    announcedReady_ = true;
    reloadAnnounced_ = false;
  }
  if (what == SmDaemon::Lifecycle::Reloading) {
    if (!announcedReady_) return;  // not ready yet: the first Ready is still to come
    reloadAnnounced_ = true;
  }
  if (!listener_) return;
  std::string line{fsm::name(state)};
  if (state == SmState::Master) line += up_ ? ", subnet up" : ", subnet not up";
  listener_(what, line);
}

}  // namespace ibsm::sm::manager
