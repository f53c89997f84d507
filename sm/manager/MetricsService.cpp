// The metrics file's writer (MetricsService.h). Log ids SM-0805, SM-0806.
#include "sm/manager/MetricsService.h"

#include <spdlog/spdlog.h>

#include "sm/control/Metrics.h"
#include "sm/files/FileIo.h"

namespace ibsm::sm::manager {

MetricsService::MetricsService(const DaemonSettings& settings, std::shared_ptr<spdlog::logger> log,
                               MetricsHooks hooks)
    : settings_(settings), log_(std::move(log)), hooks_(std::move(hooks)) {}

void MetricsService::onSweep(const SweepOutcome& outcome) {
  write(outcome.result == nullptr && outcome.info.changes.empty());
}

void MetricsService::describe(control::DaemonStatus& s) const {
  s.resources.metricsWrites = writes_;
}

void MetricsService::write(bool quiet) {
  if (settings_.metricsFile.empty()) return;
  const auto now = hooks_.now();
  if (quiet && writtenAt_ && now - *writtenAt_ < kQuietPeriod) return;
  writtenAt_ = now;
  const health::HealthView view = hooks_.health();
  // The per-port samples are ~140 bytes each, 35 a port: 25 MB and 200 ms
  // of formatting for 5000 ports, which a light sweep every 10 s would pay
  // for nothing -- they change only with a counter pass.
  if (!ports_ || ports_->pass != view.counterSweep.passes)
    ports_ = Ports{.pass = view.counterSweep.passes, .text = control::formatPortMetrics(view)};
  const std::string head = control::formatSmMetrics(hooks_.status(), view);
  const auto produce = [&](const files::ChunkWriter& chunk) {
    chunk(head);
    chunk(ports_->text);
  };
  if (auto ok = files::writeFileAtomically(settings_.metricsFile, produce); !ok) {
    // Every sweep would log it again: once, until it works again.
    if (!failing_)
      log_->warn("SM-0805 metrics file {}: {}", settings_.metricsFile.string(), ok.error().message);
    failing_ = true;
    return;
  }
  ++writes_;
  if (failing_) log_->info("SM-0806 metrics file {} written again", settings_.metricsFile.string());
  failing_ = false;
}

}  // namespace ibsm::sm::manager
