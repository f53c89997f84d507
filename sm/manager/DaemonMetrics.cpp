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
  if (counterRun) view.ports = counterRun->sweep.lastPassPorts();
  view.counterSweep = counterFigures();
  view.at = wall();
  return view;
}

void SmDaemon::Impl::writeMetrics(bool quiet) {
  if (settings.metricsFile.empty()) return;
  if (quiet && metricsWrittenAt && now() - *metricsWrittenAt < kQuietMetricsPeriod) return;
  metricsWrittenAt = now();
  const health::HealthView view = healthView();
  // The per-port samples are ~140 bytes each, 35 a port: 25 MB and 200 ms
  // of formatting for 5000 ports, which a light sweep every 10 s would pay
  // for nothing -- they change only with a counter pass.
  if (!metricsPorts || metricsPorts->pass != view.counterSweep.passes)
    metricsPorts =
        MetricsPorts{.pass = view.counterSweep.passes, .text = control::formatPortMetrics(view)};
  const std::string head = control::formatSmMetrics(status(), view);
  const auto produce = [&](const files::ChunkWriter& write) {
    write(head);
    write(metricsPorts->text);
  };
  if (auto ok = files::writeFileAtomically(settings.metricsFile, produce); !ok) {
    // Every sweep would log it again: once, until it works again.
    if (!metricsFailing)
      log->warn("SM-0805 metrics file {}: {}", settings.metricsFile.string(), ok.error().message);
    metricsFailing = true;
    return;
  }
  ++metricsWrites;
  if (metricsFailing)
    log->info("SM-0806 metrics file {} written again", settings.metricsFile.string());
  metricsFailing = false;
}

}  // namespace ibsm::sm::manager
