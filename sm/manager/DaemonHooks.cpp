// The services' hooks into the core, made at construction: what the
// multicast pass, the counter sweep, the health book and the metrics file
// (MulticastService, CounterService, HealthService, MetricsService) may ask
// of it or tell it, and the replan for isolation counted as a sweep. Apart
// from SmDaemon.cpp so the loop's file stays the loop.
#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {

using fsm::Event;

MulticastService::Hooks SmDaemon::Impl::multicastHooks() {
  return {
      .master = [this] { return agent.self().smState == SmState::Master; },
      // Only from MasterIdle: a pass asked elsewhere would wait in the
      // machine while the loop, seeing it still due, never slept.
      .idle = [this] { return machine.idle() && machine.state().phase == fsm::Phase::MasterIdle; },
      .stopping = [this] { return running.stopping; },
      .requestPass = [this] { requestReplan(fsm::ReplanReason::Multicast); },
      .programmed =
          [this](const SweepResult& r) {
            agent.countActivity(static_cast<std::uint32_t>(r.mads));
            addTables(r);
          },
      // Traps 66/67 while master, through the notifier.
      .groupsChanged =
          [this](std::vector<sa::McGroupEvent> events) {
            notices.groupsChanged(events, peerService.ownLid());
          },
  };
}

MKeyHooks SmDaemon::Impl::mKeyHooks() {
  return {.setKeys =
              [this](security::KeyScheme keys) {
                settings.sweep.program.mKeys = keys;
                sweep.setMKeys(std::move(keys));
              },
          .sweep = [this] { machine.feed(fsm::Event::operatorSweep(true)); },
          .now = [this] { return now(); },
          .wall = [this] { return wall(); }};
}

CounterHooks SmDaemon::Impl::counterHooks() {
  return {
      .now = [this] { return now(); },
      .wall = [this] { return wall(); },
      .countable = [this]() -> const Fabric* {
        const bool may = sa.port() != nullptr && uptime.up &&
                         agent.self().smState == SmState::Master && machine.idle() &&
                         record.lastResult && record.lastResult->plan != nullptr;
        return may ? &record.lastResult->plan->fabric : nullptr;
      },
      .master = [this] { return agent.self().smState == SmState::Master; },
      .send = [this](std::span<const std::uint8_t> mad, const GmpAddress& to) -> Result<void> {
        if (sa.port() == nullptr) return fail("no GMP port");
        return sa.port()->sendGmp(mad, to);
      },
      .read = [this](const health::CounterSweep& pass) { health.countersRead(pass); },
      .passEnded =
          [this] {
            metrics.write();
            releaseMemory();
          },
  };
}

HealthHooks SmDaemon::Impl::healthHooks() {
  return {
      .now = [this] { return now(); },
      .wall = [this] { return wall(); },
      .master = [this] { return agent.self().smState == SmState::Master; },
      .stopping = [this] { return running.stopping; },
      .sweepHeavy = [this] { machine.feed(Event::operatorSweep(true)); },
      // Today the core runs it once the sweep that found it is counted
      // (recordSweep); a pass of the machine (Replan, isolation) tomorrow.
      .wantReplan = [this] { requestReplan(fsm::ReplanReason::Isolation); },
      .recordReplan =
          [this](const SweepResult& r, std::vector<std::string> changes,
                 MadClock::time_point began) { recordReplan(r, std::move(changes), began); },
  };
}

MetricsHooks SmDaemon::Impl::metricsHooks() {
  return {
      .now = [this] { return now(); },
      .status = [this] { return status(); },
      .health = [this] { return health.view(); },
  };
}

void SmDaemon::Impl::recordReplan(const SweepResult& result, std::vector<std::string> changes,
                                  MadClock::time_point began) {
  setUp(result.up);
  recordSweep(sweepInfo(control::SweepKind::Replan, since(began), result.mads, std::move(changes),
                        uptime.up, &result),
              &result);
  if (!uptime.up) machine.feed(Event::operatorSweep(true));
}

}  // namespace ibsm::sm::manager
