// What the service manager is told (systemd's sd_notify, wired by `ibsm
// run` through SmDaemon::onLifecycle): Ready once the SM knows its place --
// as master after its first heavy or take-over sweep (onSweep), otherwise
// as soon as it is STANDBY or NOT-ACTIVE (onState) --, Reloading and Ready
// around a SIGHUP's reload, Stopping on SIGTERM/SIGINT. The core calls
// reloading(), reloaded() and stopping() where those happen.
#pragma once

#include <ibsm/MadAttributes.h>

#include <string_view>

#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"

namespace ibsm::sm::manager {

class LifecycleService final : public Service {
 public:
  // `self`: the SMInfo this SM shows (SmInfoAgent::self()); `up`: the
  // subnet is up (as master). Both read when something is announced.
  LifecycleService(const SmInfo& self, const bool& up) : self_(self), up_(up) {}

  std::string_view name() const override { return "lifecycle"; }
  void onSweep(const SweepOutcome& outcome) override;
  void onState(SmState from, SmState to, bool stopping) override;

  void listen(SmDaemon::LifecycleListener listener) { listener_ = std::move(listener); }
  // SIGHUP: Reloading, when Ready was said (else the first Ready is still to come).
  void reloading();
  // The reload done: Ready again, when Reloading was said.
  void reloaded();
  // SIGTERM/SIGINT.
  void stopping();

 private:
  // Tells the listener, if any; `state` is what the status line names.
  void announce(SmDaemon::Lifecycle what, SmState state);

  const SmInfo& self_;
  const bool& up_;
  SmDaemon::LifecycleListener listener_;
  bool announcedReady_{false};
  bool reloadAnnounced_{false};  // Reloading sent: Ready follows the reload
};

}  // namespace ibsm::sm::manager
