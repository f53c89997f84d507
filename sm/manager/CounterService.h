// The counter sweep (health.counter_interval) as a service of the daemon:
// PerfMgt reads of every linked port, between sweeps, as master. A pass
// starts at the loop's top -- as MASTER, with the subnet up, the machine
// idle -- never inside a sweep; its GMPs are sent and answered from inside
// the engine's waits (answers arrive in the transport's receive(), timers
// fire in the loop), and while an action of the machine runs nothing new
// is sent (pause). When its last GMP completed, the pass is handed on at
// the loop's top, once: to the health book (as master) and to the metrics
// file. Leaving MASTER cancels a pass in flight.
//
// Apart from the health book (HealthService) because the two change for
// different reasons: this is scheduling and the wire, the book is
// judgement over time; the book reads a pass, never the requester.
// Private to sm/manager.
#pragma once

#include <spdlog/logger.h>

#include <functional>
#include <memory>
#include <optional>

#include "sm/health/CounterSweep.h"
#include "sm/health/PerfRequester.h"
#include "sm/loop/EventLoop.h"
#include "sm/mad/Gmp.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"

namespace ibsm::sm::manager {

// The requester and the sweep it drives, with the loop timer the requester
// asks for; made at the first pass.
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
  bool passEnded{false};  // set inside a wait; handed on at the loop's top
  std::uint64_t timeoutsLogged{0};
  std::uint64_t resetsLogged{0};
  // Sweeps that started while a pass was in flight (it paused for them).
  std::uint64_t sweepsDuringPass{0};
};

// What the counter sweep asks of the daemon's core.
struct CounterHooks {
  std::function<MadClock::time_point()> now;                    // the engine's clock
  std::function<std::chrono::system_clock::time_point()> wall;  // Impl::wall()
  // The fabric a pass may read now (master, subnet up, machine idle, a GMP
  // port, a sweep that planned: its plan's fabric); null when none may start.
  std::function<const Fabric*()> countable;
  std::function<bool()> master;  // this SM shows MASTER
  // Sends a PerfMgt GMP through the port the SA serves.
  std::function<Result<void>(std::span<const std::uint8_t>, const GmpAddress&)> send;
  // A pass ended as master: what it read, for the health book.
  std::function<void(const health::CounterSweep&)> read;
  // A pass ended, whatever the state: the metrics file, the free memory.
  std::function<void()> passEnded;
};

class CounterService final : public Service {
 public:
  CounterService(loop::EventLoop& loop, const DaemonSettings& settings,
                 std::shared_ptr<spdlog::logger> log, CounterHooks hooks);

  std::string_view name() const override { return "counters"; }
  // Leaving MASTER: a pass in flight is cancelled (its answers are not ours
  // to act on).
  void onState(SmState from, SmState to, bool stopping) override;
  bool ready() const override;
  std::optional<MadClock::time_point> deadline() const override;
  // Ends a pass, cancels one when no longer master, or starts one when due.
  bool takeTurn() override;
  // status.healthCounters, the GMP queues of status.resources, and the
  // requester's trace lines in status.log (after the core's).
  void describe(control::DaemonStatus& s) const override;

  // An action of the machine runs: no new PerfMgt GMPs until it ends.
  void pause(bool paused);
  // A PerfMgt GMP from the port: an answer to the requester.
  void deliver(std::span<const std::uint8_t> mad);
  // The sweep's figures as of now, with the settings (enabled, interval)
  // and when the next pass is due: what status and health show, also
  // before the first pass.
  health::CounterSweepFigures figures() const;
  // The last pass's ports (`ibsm health`, the metrics file); none before it.
  std::vector<health::PortCounterView> lastPassPorts() const;

 private:
  // A pass may start, whatever the time: master, up, idle, none running.
  bool mayCount() const;
  std::optional<MadClock::time_point> nextPass() const;
  void setUp();
  void endPass();

  loop::EventLoop& loop_;
  const DaemonSettings& settings_;  // the core's, as reloads leave them
  std::shared_ptr<spdlog::logger> log_;
  CounterHooks hooks_;
  std::unique_ptr<CounterRun> run_;  // made at the first pass
};

}  // namespace ibsm::sm::manager
