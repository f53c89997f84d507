#include "sm/config/SaQueueOptions.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <array>
#include <cstdint>

#include "sm/config/KeyReader.h"

namespace ibsm::sm::config {
namespace {

const std::array<OptionSpec, 3> kSaQueueOptions{{
    {"sa.queue_per_requester", "integer 1-65536", "16",
     "SA requests one requester (a port GID, else a LID and QP) may have waiting in the fair "
     "queue; one more drops that requester's oldest, unanswered (its own timeout covers it), "
     "counted (sa_fairness dropped_requester_full). A host sending as fast as it can waits "
     "behind its own requests only.",
     applyInt<"sa.queue_per_requester", &Config::sa, &SaConfig::queuePerRequester, 1, 65536>},
    {"sa.queue_total", "integer 1-262144", "4096",
     "SA requests waiting in all, whoever sent them: the queue's memory bound (a request is a "
     "256-byte MAD and its address). Full, the longest queue's oldest is dropped, counted "
     "(sa_fairness dropped_total_full). At least sa.queue_per_requester.",
     applyInt<"sa.queue_total", &Config::sa, &SaConfig::queueTotal, 1, 262144>},
    {"sa.queue_reads_per_turn", "integer 1-1024", "8",
     "SA requests read from the port in a row after which one turn of answers (one request of "
     "every requester waiting) is served though more wait to be read, so that a flood that "
     "never lets the port run dry still lets the others be answered. Lower: a victim's answer "
     "comes sooner under a flood; higher: fewer turns of one request each.",
     applyInt<"sa.queue_reads_per_turn", &Config::sa, &SaConfig::queueReadsPerTurn, 1, 1024>},
}};

}  // namespace

std::span<const OptionSpec> saQueueOptions() {
  return kSaQueueOptions;
}

std::optional<KeyProblem> checkSaQueue(const toml::table& root, Config& config,
                                       const std::string& file) {
  if (config.sa.queueTotal >= config.sa.queuePerRequester) return std::nullopt;
  // The total's line when the file sets it, else the per-requester's (the
  // total is then its default and the per-requester key is what is wrong).
  const bool totalSet = lineOf(root, "sa.queue_total") != 0;
  const std::string key = totalSet ? "sa.queue_total" : "sa.queue_per_requester";
  const std::string message = fmt::format(
      "{}:{}: expected sa.queue_total ({}) to be at least sa.queue_per_requester ({}): "
      "the queue must hold one requester's requests",
      file, lineOf(root, key), config.sa.queueTotal, config.sa.queuePerRequester);
  const SaConfig defaults;
  config.sa.queuePerRequester = defaults.queuePerRequester;
  config.sa.queueTotal = defaults.queueTotal;
  return KeyProblem{.key = key, .message = message};
}

}  // namespace ibsm::sm::config
