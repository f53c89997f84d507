// Fabric health as a service of the daemon: the health book and the
// detectors' memory. It feeds the detectors what each sweep that read the
// fabric found (cables lost, downgraded links, switches that lost their
// tables: onSweep) and what each counter pass read (errors,
// LinkDownedCounter, counters reset: countersRead), hands their findings
// to the book, logs the book's changes (one line per change, never one
// per sweep), and asks the core for a replan when the isolation the book
// wants changed (wantReplan; the core runs replanForIsolation()). It
// serves `ibsm health` (view) and `ibsm sweep --readmit` (readmit).
// Log ids SM-1601 .. SM-1607, see LOG MESSAGES in ibsm(8). Private to
// sm/manager.
#pragma once

#include <spdlog/logger.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sm/health/CounterSweep.h"
#include "sm/health/ErrorWatch.h"
#include "sm/health/FlapTracker.h"
#include "sm/health/HealthBook.h"
#include "sm/health/HealthView.h"
#include "sm/manager/CounterService.h"
#include "sm/manager/MasterSweep.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"

namespace ibsm::sm::manager {

// What the health book asks of the daemon's core.
struct HealthHooks {
  std::function<MadClock::time_point()> now;                    // the engine's clock
  std::function<std::chrono::system_clock::time_point()> wall;  // Impl::wall()
  std::function<bool()> master;                                 // this SM shows MASTER
  std::function<bool()> stopping;                               // SIGTERM/SIGINT seen
  // A heavy sweep, planned with the isolation as it now stands.
  std::function<void()> sweepHeavy;
  // The isolation changed after a sweep: replanForIsolation() is wanted,
  // after the sweep that found it (never inside it).
  std::function<void()> wantReplan;
  // A replan for isolation programmed: counted and shown as the sweep kind
  // "replan" (up or not; a heavy sweep follows when not up).
  std::function<void(const SweepResult&, std::vector<std::string> changes,
                     MadClock::time_point began)>
      recordReplan;
};

class HealthService final : public Service {
 public:
  HealthService(MasterSweep& sweep, const CounterService& counters, const DaemonSettings& settings,
                std::shared_ptr<spdlog::logger> log, HealthHooks hooks);

  std::string_view name() const override { return "health"; }
  // After a sweep that read the fabric (heavy, take-over, light, reroute):
  // cables lost (flaps), downgraded links, switches that lost their
  // tables; then the isolation the policy wants, a replan asked when it
  // changed.
  void onSweep(const SweepOutcome& outcome) override;
  // status.health (counts, the counter sweep's figures) and status.unhealthy.
  void describe(control::DaemonStatus& s) const override;

  // After a counter pass as master: errors, LinkDownedCounter, counters reset.
  void countersRead(const health::CounterSweep& counters);
  // `ibsm sweep --readmit LINK`: the answer line for the operator.
  std::string readmit(std::string_view link);
  // Plans the last sweep's fabric again with the links the book isolates
  // (the core runs it when asked through wantReplan).
  void replanForIsolation();
  // The fabric's health as of now: what `ibsm health` and the metrics show.
  health::HealthView view() const;
  // The book's entries as last published (`ibsm draw` marks them).
  const health::HealthView& published() const { return published_; }

 private:
  void afterSweep(std::span<const Guid> lostTables);
  // The book's changes, one log line each (SM-1601..SM-1605).
  void logHealth(const std::vector<health::HealthChange>& changes);
  // Flapping and rebooted findings as they stand, into the book.
  void observeFlapsAndReboots();
  // The isolation the book wants against what the last plan did; true
  // when a new plan is needed.
  bool isolationChanged();
  void publish();
  // The fabric the last sweep observed; null before the first.
  const Fabric* observed() const;

  MasterSweep& sweep_;
  const CounterService& counters_;
  const DaemonSettings& settings_;  // the core's, as reloads leave them
  std::shared_ptr<spdlog::logger> log_;
  HealthHooks hooks_;
  // The book's entries (`unhealthy`) as last published; the ports stay in
  // the counter sweep (one copy of ~1 KB a port, not two) and view()
  // copies them in.
  health::HealthView published_;
  health::HealthBook book_{health::HealthPolicy{}};
  health::FlapTracker flaps_;
  health::ErrorWatch errorWatch_;
  std::vector<health::LinkKey> links_;  // cables at the last look
  struct PortReadSeen {
    std::uint64_t reads{0};   // PortCounterView::reads at the last look
    std::uint64_t resets{0};  // PortCounterView::portResets then
  };
  std::map<PortKey, PortReadSeen> portReadsSeen_;
  struct Reboot {
    MadClock::time_point at;
    std::string why;
  };
  std::map<Guid, Reboot> rebootedAt_;  // switches found rebooted, kept a clean period
};

}  // namespace ibsm::sm::manager
