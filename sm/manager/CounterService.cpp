// The counter sweep's scheduling (CounterService.h): when a pass starts,
// how it ends, what status shows of it. Log ids SM-0470 .. SM-0472.
#include "sm/manager/CounterService.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "sm/control/StatusFormat.h"

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

CounterService::CounterService(loop::EventLoop& loop, const DaemonSettings& settings,
                               std::shared_ptr<spdlog::logger> log, CounterHooks hooks)
    : loop_(loop), settings_(settings), log_(std::move(log)), hooks_(std::move(hooks)) {}

bool CounterService::mayCount() const {
  return settings_.counterInterval.count() > 0 && hooks_.countable() != nullptr &&
         !(run_ && run_->sweep.running());
}

std::optional<MadClock::time_point> CounterService::nextPass() const {
  if (!mayCount()) return std::nullopt;
  // Not set up yet: at once (takeTurn() sets up, the first pass is due an
  // interval later, so a restarted SM sweeps before it counts).
  if (!run_) return hooks_.now();
  return run_->nextPass;
}

std::optional<MadClock::time_point> CounterService::deadline() const {
  return nextPass();
}

bool CounterService::ready() const {
  if (run_ && run_->passEnded) return true;
  if (run_ && run_->sweep.running() && !hooks_.master()) return true;
  const auto next = nextPass();
  return next && hooks_.now() >= *next;
}

void CounterService::onState(SmState from, SmState /*to*/, bool stopping) {
  // Its answers are not ours to act on; a pass that ends so is shown, not
  // read. Stopping: the pass ends with the process, not counted as ended.
  if (from == SmState::Master && !stopping && run_ && run_->sweep.running()) run_->perf.cancelAll();
}

bool CounterService::takeTurn() {
  if (!ready()) return false;
  if (!run_) {
    setUp();
  } else if (run_->passEnded) {
    endPass();
  } else if (run_->sweep.running()) {
    run_->perf.cancelAll();  // no longer master: its answers are not ours to act on
  } else {
    run_->nextPass = hooks_.now() + settings_.counterInterval;
    // run_ is null while it is being destroyed (its passes cancelled).
    run_->sweep.start(*hooks_.countable(), [this] {
      if (run_) run_->passEnded = true;
    });
  }
  return true;
}

void CounterService::setUp() {
  health::PerfRequesterIo io{.send = hooks_.send, .clock = hooks_.now, .wakeAt = {}};
  run_ = std::make_unique<CounterRun>(
      loop_, std::move(io), health::PerfRequesterOptions{.window = settings_.counterWindow},
      health::CounterSweepClocks{.steady = hooks_.now,
                                 .wall = hooks_.wall,
                                 .forgetAfter = settings_.health.policy.cleanPeriod});
  run_->perf.traceTo(log_);
  run_->nextPass = hooks_.now() + settings_.counterInterval;
  log_->info("SM-0470 counter sweep every {} s, {} PerfMgt GMPs outstanding at most",
             settings_.counterInterval.count(), settings_.counterWindow);
}

void CounterService::endPass() {
  CounterRun& run = *run_;
  run.passEnded = false;
  const health::CounterSweepFigures& f = run.sweep.figures();
  log_->info("SM-0471 counter pass {}: {} ports, {} GMPs in {} ms, {} saturated counters cleared",
             f.passes, run.sweep.portsRead(), f.lastPassGmps, f.lastPassDuration.count(),
             f.resets - run.resetsLogged);
  run.resetsLogged = f.resets;
  if (f.timeouts > run.timeoutsLogged) {
    log_->warn(
        "SM-0472 counter pass {}: {} PerfMgt GMPs unanswered after retries (PMAs "
        "silent or unreachable); those ports keep their last reading",
        f.passes, f.timeouts - run.timeoutsLogged);
    run.timeoutsLogged = f.timeouts;
  }
  // A pass cut short by leaving MASTER is shown, but not acted upon.
  if (hooks_.master()) hooks_.read(run.sweep);
  // The metrics file carries the new counters (and what the book made of them).
  hooks_.passEnded();
}

void CounterService::pause(bool paused) {
  if (!run_) return;
  if (paused && run_->sweep.running()) ++run_->sweepsDuringPass;
  run_->perf.pause(paused);
}

void CounterService::deliver(std::span<const std::uint8_t> mad) {
  if (run_) run_->perf.deliver(mad);
}

health::CounterSweepFigures CounterService::figures() const {
  health::CounterSweepFigures f;
  if (run_) f = run_->sweep.figures();
  f.enabled = settings_.counterInterval.count() > 0;
  f.interval = settings_.counterInterval;
  const auto now = hooks_.now();
  if (run_ && run_->sweep.running()) {
    f.nextPassIn = std::chrono::seconds{0};
  } else if (const auto next = nextPass()) {
    // Not set up yet: set up at once, the first pass an interval later.
    const auto due = run_ ? *next : now + settings_.counterInterval;
    f.nextPassIn =
        std::max(std::chrono::seconds{0}, std::chrono::ceil<std::chrono::seconds>(due - now));
  }
  return f;
}

std::vector<health::PortCounterView> CounterService::lastPassPorts() const {
  if (!run_) return {};
  return run_->sweep.lastPassPorts();
}

void CounterService::describe(control::DaemonStatus& s) const {
  control::HealthCounters& h = s.healthCounters;
  h.figures = figures();
  if (!run_) return;
  s.resources.gmpOutstanding = run_->perf.outstanding();
  s.resources.gmpQueued = run_->perf.queued();
  s.resources.counterPorts = run_->sweep.remembered();
  s.log.traceLines += run_->perf.traceCounters().lines;
  s.log.traceSuppressed += run_->perf.traceCounters().suppressed;
  h.ports = run_->sweep.portsRead();
  h.sweepsDuringPass = run_->sweepsDuringPass;
  run_->sweep.forEachPort([&](const health::PortCounterView& v) {
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
