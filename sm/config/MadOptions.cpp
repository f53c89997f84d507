#include "sm/config/MadOptions.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <array>
#include <cstdint>

namespace ibsm::sm::config {
namespace {

Result<std::uint32_t> msIn(const toml::node& v, const std::string& where, std::string_view key,
                           std::int64_t lo, std::int64_t hi) {
  auto n = v.value<std::int64_t>();
  if (!n || *n < lo || *n > hi)
    return fail(fmt::format("{}: expected {} to be an integer from {} to {}", where, key, lo, hi));
  return static_cast<std::uint32_t>(*n);
}

Result<void> applyTimeoutMin(Config& c, const toml::node& v, const std::string& where) {
  auto n = msIn(v, where, "mad.timeout_min_ms", 1, 60000);
  if (!n) return std::unexpected(n.error());
  c.mad.timeoutMinMs = *n;
  return {};
}

Result<void> applyTimeoutMax(Config& c, const toml::node& v, const std::string& where) {
  auto n = msIn(v, where, "mad.timeout_max_ms", 1, 60000);
  if (!n) return std::unexpected(n.error());
  c.mad.timeoutMaxMs = *n;
  return {};
}

const std::array<OptionSpec, 2> kMadTimeoutOptions{{
    {"mad.timeout_min_ms", "milliseconds 1-60000", "2",
     "The shortest an SMP waits for its answer. Once SMPs on paths of one length (directed "
     "route by hop count, LID-routed apart) and of one kind (Gets, Sets of a table block, other "
     "Sets) are answered, each waits their smoothed round trip "
     "plus four deviations (TCP's RTO, RFC 6298), no less than this: twice the 1 ms a port "
     "with RespTimeValue 8 may take to answer (4.096 us * 2^8), as real hardware answers in "
     "tens to hundreds of microseconds but a switch's management processor can take "
     "milliseconds under load (the learnt timeout follows it up there).",
     applyTimeoutMin},
    {"mad.timeout_max_ms", "milliseconds 1-60000", "50",
     "The longest an SMP attempt waits, each retry waiting twice the one before (exponential "
     "back-off). 50: ten times the milliseconds a loaded management processor may take, while "
     "on a path that loses most attempts (20% per switch, 5 hops) the many retries a probe "
     "needs wait 50 ms each rather than 200 (measured on the k8 tree at 20%: up in 42 s, "
     "against 112 s with 200). Not mad.timeout_ms, which every attempt waits on a path not "
     "measured yet. At least mad.timeout_min_ms.",
     applyTimeoutMax},
}};

std::uint32_t lineOf(const toml::table& root, std::string_view path) {
  const auto node = root.at_path(path);
  return node ? static_cast<std::uint32_t>(node.node()->source().begin.line) : 0;
}

}  // namespace

std::span<const OptionSpec> madTimeoutOptions() {
  return kMadTimeoutOptions;
}

std::optional<KeyProblem> checkMadTimeouts(const toml::table& root, Config& config,
                                           const std::string& file) {
  if (config.mad.timeoutMinMs <= config.mad.timeoutMaxMs) return std::nullopt;
  const bool minSet = lineOf(root, "mad.timeout_min_ms") != 0;
  const std::string key = minSet ? "mad.timeout_min_ms" : "mad.timeout_max_ms";
  const std::string message =
      fmt::format("{}:{}: expected mad.timeout_min_ms ({}) to be at most mad.timeout_max_ms ({})",
                  file, lineOf(root, key), config.mad.timeoutMinMs, config.mad.timeoutMaxMs);
  const MadConfig defaults;
  config.mad.timeoutMinMs = defaults.timeoutMinMs;
  config.mad.timeoutMaxMs = defaults.timeoutMaxMs;
  return KeyProblem{.key = key, .message = message};
}

}  // namespace ibsm::sm::config
