// The daemon's performance manager: the PerfMgt requester and the counter
// sweep it drives, with the loop timer the requester asks for. Private to
// sm/manager; the daemon's side of it is DaemonCounters.cpp.
#pragma once

#include <ibsm/Gmp.h>

#include <optional>

#include "sm/health/CounterSweep.h"
#include "sm/health/PerfRequester.h"
#include "sm/loop/EventLoop.h"

namespace ibsm::sm::manager {

struct CounterRun {
  CounterRun(loop::EventLoop& l, health::PerfRequesterIo io, health::PerfRequesterOptions options,
             health::CounterSweepClocks clocks);
  // Whatever is outstanding completes (Cancelled) while the sweep is alive.
  ~CounterRun();
  CounterRun(const CounterRun&) = delete;
  CounterRun& operator=(const CounterRun&) = delete;

  // The requester's deadline, as one timer of the loop.
  void wakeAt(std::optional<MadClock::time_point> when);

  loop::EventLoop& loop;
  std::optional<loop::EventLoop::TimerId> wakeTimer;
  health::PerfRequester perf;
  health::CounterSweep sweep;
  MadClock::time_point nextPass;
  bool passEnded{false};  // set inside a wait; countersRead() runs at the loop's top
  std::uint64_t timeoutsLogged{0};
  std::uint64_t resetsLogged{0};
  // Sweeps that started while a pass was in flight (it paused for them).
  std::uint64_t sweepsDuringPass{0};
};

}  // namespace ibsm::sm::manager
