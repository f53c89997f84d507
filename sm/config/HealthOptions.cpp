#include "sm/config/HealthOptions.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <array>

namespace ibsm::sm::config {
namespace {

Result<void> expected(const std::string& where, std::string_view what) {
  return fail(fmt::format("{}: expected {}", where, what));
}

Result<void> path(const toml::node& v, const std::string& where, std::string_view key,
                  std::filesystem::path& into) {
  auto s = v.value<std::string>();
  if (!s) return expected(where, fmt::format("{} to be a path (string)", key));
  into = *s;
  return {};
}

Result<void> action(const toml::node& v, const std::string& where, std::string_view key,
                    bool& isolate) {
  auto s = v.value<std::string>();
  if (!s || (*s != "report" && *s != "isolate"))
    return expected(where, fmt::format("{} to be \"report\" or \"isolate\"", key));
  isolate = *s == "isolate";
  return {};
}

template <std::int64_t Lo, std::int64_t Hi, typename T>
Result<void> integer(const toml::node& v, const std::string& where, std::string_view key, T& into) {
  auto n = v.value<std::int64_t>();
  if (!n || *n < Lo || *n > Hi)
    return expected(where, fmt::format("{} to be an integer from {} to {}", key, Lo, Hi));
  into = T(*n);
  return {};
}

const std::array kHealth{
    OptionSpec{"health.threshold_file", "path", R"("")",
               "Error thresholds on counter totals, in ibqueryerrors' --threshold-file format "
               "(CounterName=value). Empty: any error counted is over (ibqueryerrors' default 0).",
               [](Config& c, const toml::node& v, const std::string& w) {
                 return path(v, w, "health.threshold_file", c.health.thresholdFile);
               }},
    OptionSpec{"health.rate_threshold_file", "path", R"("")",
               "Error thresholds on rates per hour, same format. Empty: rates are not judged.",
               [](Config& c, const toml::node& v, const std::string& w) {
                 return path(v, w, "health.rate_threshold_file", c.health.rateThresholdFile);
               }},
    OptionSpec{"health.errors", "\"report\" or \"isolate\"", R"("report")",
               "What to do about a port whose error counters are over their thresholds.",
               [](Config& c, const toml::node& v, const std::string& w) {
                 return action(v, w, "health.errors", c.health.isolateErrors);
               }},
    OptionSpec{"health.downgraded", "\"report\" or \"isolate\"", R"("report")",
               "What to do about a link active below the width or speed its ends can do.",
               [](Config& c, const toml::node& v, const std::string& w) {
                 return action(v, w, "health.downgraded", c.health.isolateDowngraded);
               }},
    OptionSpec{"health.flapping", "\"report\" or \"isolate\"", R"("report")",
               "What to do about a link that went down more than flap_count times in flap_window.",
               [](Config& c, const toml::node& v, const std::string& w) {
                 return action(v, w, "health.flapping", c.health.isolateFlapping);
               }},
    OptionSpec{"health.clean_period", "seconds 1-31536000", "600",
               "A port whose errors stopped for this long is clean; an isolated link whose "
               "condition has been gone this long is re-admitted.",
               [](Config& c, const toml::node& v, const std::string& w) {
                 std::int64_t s = 0;
                 auto ok = integer<1, 31536000>(v, w, "health.clean_period", s);
                 if (ok) c.health.cleanPeriod = std::chrono::seconds{s};
                 return ok;
               }},
    OptionSpec{"health.flap_count", "integer 1-1000000", "5",
               "A link that goes down more than this many times within flap_window is flapping.",
               [](Config& c, const toml::node& v, const std::string& w) {
                 return integer<1, 1000000>(v, w, "health.flap_count", c.health.flapCount);
               }},
    OptionSpec{"health.flap_window", "seconds 1-86400", "600",
               "The window flap_count counts downs in.",
               [](Config& c, const toml::node& v, const std::string& w) {
                 std::int64_t s = 0;
                 auto ok = integer<1, 86400>(v, w, "health.flap_window", s);
                 if (ok) c.health.flapWindow = std::chrono::seconds{s};
                 return ok;
               }},
};

}  // namespace

std::span<const OptionSpec> healthOptions() {
  return kHealth;
}

Result<health::HealthSettings> healthSettings(const HealthConfig& c) {
  using health::Action;
  using health::Condition;
  health::HealthSettings s;
  s.policy.cleanPeriod = c.cleanPeriod;
  const auto set = [&](Condition cond, bool isolate) {
    s.policy.action[static_cast<std::size_t>(cond)] = isolate ? Action::Isolate : Action::Report;
  };
  set(Condition::Errors, c.isolateErrors);
  set(Condition::Downgraded, c.isolateDowngraded);
  set(Condition::Flapping, c.isolateFlapping);
  s.errors.cleanPeriod = c.cleanPeriod;
  if (!c.thresholdFile.empty()) {
    auto t = health::loadThresholds(c.thresholdFile);
    if (!t) return std::unexpected(t.error());
    s.errors.totals = *t;
  }
  if (!c.rateThresholdFile.empty()) {
    auto t = health::loadThresholds(c.rateThresholdFile);
    if (!t) return std::unexpected(t.error());
    s.errors.perHour = *t;
  }
  s.flaps = {.count = c.flapCount, .window = c.flapWindow};
  return s;
}

}  // namespace ibsm::sm::config
