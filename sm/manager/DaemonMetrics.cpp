// What the daemon shows of the fabric's health outside the control socket:
// the Prometheus metrics file node_exporter's textfile collector serves.
// A file rather than an HTTP endpoint: the SM has one thread and one event
// loop, and an HTTP server (cpp-httplib) blocks and runs threads of its
// own; node_exporter already runs on the hosts and serves, authenticates
// and encrypts for us (README, "Dependencies").
#include <spdlog/spdlog.h>

#include "sm/control/Metrics.h"
#include "sm/files/FileIo.h"
#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {

health::HealthView SmDaemon::Impl::healthView() const {
  health::HealthView view = health;
  view.at = std::chrono::system_clock::now();
  return view;
}

void SmDaemon::Impl::writeMetrics() {
  if (settings.metricsFile.empty()) return;
  const std::string text = control::formatMetrics(status(), healthView());
  if (auto ok = files::writeFileAtomically(settings.metricsFile, text); !ok) {
    // Every sweep would log it again: once, until it works again.
    if (!metricsFailing)
      log->warn("SM-0805 metrics file {}: {}", settings.metricsFile.string(), ok.error().message);
    metricsFailing = true;
    return;
  }
  if (metricsFailing)
    log->info("SM-0806 metrics file {} written again", settings.metricsFile.string());
  metricsFailing = false;
}

}  // namespace ibsm::sm::manager
