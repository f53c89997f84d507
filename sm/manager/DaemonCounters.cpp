// The daemon's side of the counter sweep (health.counter_interval): a pass
// starts at the loop's top -- as MASTER, with the subnet up, the machine
// idle -- never inside a sweep; its GMPs are sent and answered from inside
// the engine's waits (answers arrive in the transport's receive(), timers
// fire in the loop), and while a sweep runs nothing new is sent. When its
// last GMP completed the pass is handed to countersRead() at the loop's
// top, once, with health.counterSweep filled (the ports stay the sweep's).
#include <spdlog/spdlog.h>

#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {

CounterRun::CounterRun(loop::EventLoop& l, health::PerfRequesterIo io,
                       health::PerfRequesterOptions options, health::CounterSweepClocks clocks)
    : loop(l),
      perf(
          [this, io]() mutable {
            io.wakeAt = [this](std::optional<MadClock::time_point> t) { wakeAt(t); };
            return io;
          }(),
          options),
      sweep(perf, std::move(clocks)) {}

CounterRun::~CounterRun() {
  perf.cancelAll();
  if (wakeTimer) loop.cancel(*wakeTimer);
}

void CounterRun::wakeAt(std::optional<MadClock::time_point> when) {
  if (wakeTimer) loop.cancel(*wakeTimer);
  wakeTimer.reset();
  if (!when) return;
  wakeTimer = loop.at(*when, [this] {
    wakeTimer.reset();
    perf.expire();
  });
}

bool SmDaemon::Impl::mayCount() const {
  return settings.counterInterval.count() > 0 && sa.port() != nullptr && up &&
         agent.self().smState == SmState::Master && machine.idle() && lastResult &&
         lastResult->plan != nullptr && !(counterRun && counterRun->sweep.running());
}

std::optional<MadClock::time_point> SmDaemon::Impl::nextCounterPass() const {
  if (!mayCount()) return std::nullopt;
  // Not set up yet: at once (countersTurn() sets up, the first pass is due
  // an interval later, so a restarted SM sweeps before it counts).
  if (!counterRun) return now();
  return counterRun->nextPass;
}

bool SmDaemon::Impl::countersReady() const {
  if (counterRun && counterRun->passEnded) return true;
  if (counterRun && counterRun->sweep.running() && agent.self().smState != SmState::Master)
    return true;
  const auto next = nextCounterPass();
  return next && now() >= *next;
}

bool SmDaemon::Impl::countersTurn() {
  if (!countersReady()) return false;
  if (!counterRun) {
    setUpCounters();
  } else if (counterRun->passEnded) {
    endCounterPass();
  } else if (counterRun->sweep.running()) {
    counterRun->perf.cancelAll();  // no longer master: its answers are not ours to act on
  } else {
    counterRun->nextPass = now() + settings.counterInterval;
    // counterRun is null while it is being destroyed (its passes cancelled).
    counterRun->sweep.start(lastResult->plan->fabric, [this] {
      if (counterRun) counterRun->passEnded = true;
    });
  }
  return true;
}

void SmDaemon::Impl::setUpCounters() {
  health::PerfRequesterIo io{
      .send = [this](std::span<const std::uint8_t> mad, const GmpAddress& to) -> Result<void> {
        if (sa.port() == nullptr) return fail("no GMP port");
        return sa.port()->sendGmp(mad, to);
      },
      .clock = [this] { return now(); },
      .wakeAt = {}};
  counterRun = std::make_unique<CounterRun>(
      loop, std::move(io), health::PerfRequesterOptions{.window = settings.counterWindow},
      health::CounterSweepClocks{.steady = [this] { return now(); },
                                 .wall = [this] { return wall(); },
                                 .forgetAfter = settings.health.policy.cleanPeriod});
  counterRun->perf.traceTo(log);
  counterRun->nextPass = now() + settings.counterInterval;
  log->info("SM-0470 counter sweep every {} s, {} PerfMgt GMPs outstanding at most",
            settings.counterInterval.count(), settings.counterWindow);
}

void SmDaemon::Impl::endCounterPass() {
  CounterRun& run = *counterRun;
  run.passEnded = false;
  // The ports stay the sweep's: the view gets a copy when asked (healthView).
  run.sweep.fillFigures(health);
  health.at = wall();
  health.counterSweep.enabled = settings.counterInterval.count() > 0;
  health.counterSweep.interval = settings.counterInterval;
  const health::CounterSweepFigures& f = run.sweep.figures();
  log->info("SM-0471 counter pass {}: {} ports, {} GMPs in {} ms, {} saturated counters cleared",
            f.passes, run.sweep.portsRead(), f.lastPassGmps, f.lastPassDuration.count(),
            f.resets - run.resetsLogged);
  run.resetsLogged = f.resets;
  if (f.timeouts > run.timeoutsLogged) {
    log->warn(
        "SM-0472 counter pass {}: {} PerfMgt GMPs unanswered after retries (PMAs "
        "silent or unreachable); those ports keep their last reading",
        f.passes, f.timeouts - run.timeoutsLogged);
    run.timeoutsLogged = f.timeouts;
  }
  // A pass cut short by leaving MASTER is shown, but not acted upon.
  if (agent.self().smState == SmState::Master) countersRead();
  // The metrics file carries the new counters (and what the book made of them).
  writeMetrics();
  releaseMemory();
}

void SmDaemon::Impl::pauseCounters(bool paused) {
  if (!counterRun) return;
  if (paused && counterRun->sweep.running()) ++counterRun->sweepsDuringPass;
  counterRun->perf.pause(paused);
}

void SmDaemon::Impl::onPerfGmp(const ReceivedGmp& in) {
  if (counterRun) counterRun->perf.deliver(in.mad);
}

health::CounterSweepFigures SmDaemon::Impl::counterFigures() const {
  health::CounterSweepFigures f;
  if (counterRun) f = counterRun->sweep.figures();
  f.enabled = settings.counterInterval.count() > 0;
  f.interval = settings.counterInterval;
  if (counterRun && counterRun->sweep.running()) {
    f.nextPassIn = std::chrono::seconds{0};
  } else if (const auto next = nextCounterPass()) {
    // Not set up yet: set up at once, the first pass an interval later.
    const auto due = counterRun ? *next : now() + settings.counterInterval;
    f.nextPassIn =
        std::max(std::chrono::seconds{0}, std::chrono::ceil<std::chrono::seconds>(due - now()));
  }
  return f;
}

void SmDaemon::Impl::describeCounters(control::DaemonStatus& s) const {
  control::HealthCounters& h = s.healthCounters;
  h.figures = counterFigures();
  if (!counterRun) return;
  h.ports = counterRun->sweep.portsRead();
  h.sweepsDuringPass = counterRun->sweepsDuringPass;
  counterRun->sweep.forEachPort([&](const health::PortCounterView& v) {
    for (std::size_t i = 0; i < health::kThresholdCounterCount; ++i) {
      if (v.totals[i].value == 0) continue;
      h.overZero.push_back({.name = v.name,
                            .node = v.port.node,
                            .port = v.port.port,
                            .lid = v.lid,
                            .counter = std::string(health::counterName(health::counterAt(i))),
                            .total = v.totals[i].value,
                            .lowerBound = v.totals[i].lowerBound,
                            .last = v.last.values[i]});
    }
  });
}

}  // namespace ibsm::sm::manager
