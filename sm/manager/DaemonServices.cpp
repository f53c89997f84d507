// The core asks its services in one place (Service.h): what is due at the
// loop's top, until when the loop may wait, and what they tell `ibsm status`.
#include <algorithm>

#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {

bool SmDaemon::Impl::servicesTurn() {
  // One turn per round: the machine may have work again after it.
  return std::ranges::any_of(services, [](Service* s) { return s->takeTurn(); });
}

bool SmDaemon::Impl::servicesReady() const {
  return std::ranges::any_of(services, [](const Service* s) { return s->ready(); });
}

std::optional<MadClock::time_point> SmDaemon::Impl::servicesDeadline() const {
  std::optional<MadClock::time_point> first;
  for (const Service* s : services)
    if (const auto d = s->deadline(); d && (!first || *d < *first)) first = d;
  return first;
}

void SmDaemon::Impl::servicesOnSweep(const SweepOutcome& outcome) {
  for (Service* s : services) s->onSweep(outcome);
}

void SmDaemon::Impl::servicesOnState(SmState from, SmState to) {
  for (Service* s : services) s->onState(from, to, running.stopping);
}

void SmDaemon::Impl::servicesDescribe(control::DaemonStatus& st) const {
  for (const Service* s : services) s->describe(st);
}

}  // namespace ibsm::sm::manager
