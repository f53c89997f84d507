// The Prometheus metrics file (health.metrics_file) as a service of the
// daemon: what it shows of the SM and the fabric's health outside the
// control socket, for node_exporter's textfile collector. A file rather
// than an HTTP endpoint: the SM has one thread and one event loop, and an
// HTTP server (cpp-httplib) blocks and runs threads of its own;
// node_exporter already runs on the hosts and serves, authenticates and
// encrypts for us (README, "Dependencies").
//
// Written after every sweep (onSweep: registered last, so the file shows
// what every other service made of the sweep), every counter pass and
// state change (write(), from the core: the file must show the state as
// set, which onState precedes). Private to sm/manager.
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sm/control/StatusFormat.h"
#include "sm/health/HealthView.h"
#include "sm/manager/Service.h"
#include "sm/manager/SmDaemon.h"

namespace ibsm::sm::manager {

// What the metrics file is made of, asked of the daemon when it is written.
struct MetricsHooks {
  std::function<MadClock::time_point()> now;      // the engine's clock
  std::function<control::DaemonStatus()> status;  // `ibsm status` as of now
  std::function<health::HealthView()> health;     // `ibsm health` as of now
};

class MetricsService final : public Service {
 public:
  MetricsService(const DaemonSettings& settings, std::shared_ptr<spdlog::logger> log,
                 MetricsHooks hooks);

  std::string_view name() const override { return "metrics"; }
  // After the sweep is counted, so the file shows it (a quiet one, within
  // kQuietPeriod).
  void onSweep(const SweepOutcome& outcome) override;
  // status.resources.metricsWrites.
  void describe(control::DaemonStatus& s) const override;

  // Writes settings.metricsFile, when set: temp file and rename, so a
  // scrape never reads half of it. A quiet light sweep (`quiet`) changes
  // only the sweep counters, so it writes at most every kQuietPeriod (the
  // file is tens of megabytes on a big fabric). A failure is logged once
  // (SM-0805) and the SM goes on.
  void write(bool quiet = false);
  static constexpr std::chrono::seconds kQuietPeriod{60};

 private:
  const DaemonSettings& settings_;  // the core's, as reloads leave them
  std::shared_ptr<spdlog::logger> log_;
  MetricsHooks hooks_;
  bool failing_{false};  // SM-0805 logged, no write has succeeded since
  std::optional<MadClock::time_point> writtenAt_;
  std::uint64_t writes_{0};
  // The per-port samples, formatted after the counter pass numbered `pass`.
  struct Ports {
    std::uint64_t pass{0};
    std::string text;
  };
  std::optional<Ports> ports_;
};

}  // namespace ibsm::sm::manager
