// The daemon's log level and what status shows of the log (LogControl.h).
#include "sm/manager/LogControl.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <optional>

#include "sm/control/StatusFormat.h"

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

std::string LogControl::setLevel(std::string_view name) {
  const auto level = levelNamed(name);
  if (!level)
    return fmt::format(
        "error: log level '{}': expected trace, debug, info, warn, error, critical or off\n",
        name.substr(0, 32));
  const auto before = log_->level();
  log_->set_level(*level);
  setBy_ = "operator";
  if (*level != before) ++changes_;
  // Said at warn so that it reaches the log at any level but error and above.
  log_->warn("SM-0135 log level {} (was {}), set by the operator; a SIGHUP re-applies log.level",
             nameOf(*level), nameOf(before));
  return fmt::format("ok: log level {} (was {}); a SIGHUP re-applies the configuration's\n",
                     nameOf(*level), nameOf(before));
}

void LogControl::applyConfig(std::string_view name) {
  if (name.empty()) return;
  const auto level = levelNamed(name);
  if (!level) return;  // refused when the configuration was read (RunCommand)
  const auto before = log_->level();
  setBy_ = "config";
  if (*level == before) return;
  log_->set_level(*level);
  ++changes_;
  log_->warn("SM-0136 log level {} (was {}), from the configuration", nameOf(*level),
             nameOf(before));
}

void LogControl::describe(control::DaemonStatus& s) const {
  s.log.level = std::string(nameOf(log_->level()));
  s.log.setBy = setBy_;
  s.log.levelChanges = changes_;
  const MadTraceCounters t = traces_ ? traces_() : MadTraceCounters{};
  s.log.traceLines = t.lines;
  s.log.traceSuppressed = t.suppressed;
}

}  // namespace ibsm::sm::manager
