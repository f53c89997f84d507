// The daemon's log level, as the operator and the configuration set it,
// and what `ibsm status` shows of the log: the level, who set it, and the
// MAD trace's lines (<ibsm/MadTrace.h>).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {
namespace {

// spdlog's from_str answers `off` for any name it does not know.
std::optional<spdlog::level::level_enum> levelNamed(std::string_view name) {
  const auto level = spdlog::level::from_str(std::string(name));
  if (level == spdlog::level::off && name != "off") return std::nullopt;
  return level;
}

std::string_view nameOf(spdlog::level::level_enum level) {
  const auto name = spdlog::level::to_string_view(level);
  return {name.data(), name.size()};
}

}  // namespace

std::string SmDaemon::Impl::setLogLevel(std::string_view name) {
  const auto level = levelNamed(name);
  if (!level)
    return fmt::format(
        "error: log level '{}': expected trace, debug, info, warn, error, critical or off\n",
        name.substr(0, 32));
  const auto before = log->level();
  log->set_level(*level);
  logLevelSetBy = "operator";
  if (*level != before) ++logLevelChanges;
  // Said at warn so that it reaches the log at any level but error and above.
  log->warn("SM-0135 log level {} (was {}), set by the operator; a SIGHUP re-applies log.level",
            nameOf(*level), nameOf(before));
  return fmt::format("ok: log level {} (was {}); a SIGHUP re-applies the configuration's\n",
                     nameOf(*level), nameOf(before));
}

void SmDaemon::Impl::applyConfigLogLevel() {
  if (settings.logLevel.empty()) return;
  const auto level = levelNamed(settings.logLevel);
  if (!level) return;  // refused when the configuration was read (RunCommand)
  const auto before = log->level();
  logLevelSetBy = "config";
  if (*level == before) return;
  log->set_level(*level);
  ++logLevelChanges;
  log->warn("SM-0136 log level {} (was {}), from the configuration", nameOf(*level),
            nameOf(before));
}

void SmDaemon::Impl::describeLogging(control::DaemonStatus& s) const {
  s.log.level = std::string(nameOf(log->level()));
  s.log.setBy = logLevelSetBy;
  s.log.levelChanges = logLevelChanges;
  s.log.traceLines = engine.traceCounters().lines;
  s.log.traceSuppressed = engine.traceCounters().suppressed;
  s.log.traceLines += saTrace.counters().lines;
  s.log.traceSuppressed += saTrace.counters().suppressed;
  // The counter sweep's requester adds its own (CounterService::describe).
}

}  // namespace ibsm::sm::manager
