// The daemon's log level, as the operator (`ibsm log-level`) and the
// configuration (start, SIGHUP) set it, and what `ibsm status` shows of the
// log: the level, who set it last, how often it changed, and the MAD
// trace's lines (sm/mad/MadTrace.h), summed over the tracers the core has.
#pragma once

#include <spdlog/logger.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "sm/mad/MadTrace.h"
#include "sm/manager/Service.h"

namespace ibsm::sm::manager {

class LogControl final : public Service {
 public:
  // `traces`: the trace counters of every MAD tracer (SMPs, SA, PerfMgt), added up.
  LogControl(std::shared_ptr<spdlog::logger> log, std::function<MadTraceCounters()> traces)
      : log_(std::move(log)), traces_(std::move(traces)) {}

  std::string_view name() const override { return "log"; }
  void describe(control::DaemonStatus& status) const override;

  // `ibsm log-level LEVEL`: the answer line for the control socket.
  std::string setLevel(std::string_view level);
  // On SIGHUP: the configuration's level (log.level; empty: none), whatever
  // the operator set.
  void applyConfig(std::string_view level);

 private:
  std::shared_ptr<spdlog::logger> log_;
  std::function<MadTraceCounters()> traces_;
  std::string setBy_{"config"};
  std::uint64_t changes_{0};
};

}  // namespace ibsm::sm::manager
