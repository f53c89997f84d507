#include "sm/config/MadOptions.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <array>
#include <cstdint>

#include "sm/config/KeyReader.h"

namespace ibsm::sm::config {
namespace {

const std::array<OptionSpec, 3> kMadOptions{{
    {"mad.per_node_window", "integer 0-1024 (0: no limit)", "1",
     "SMPs outstanding to one node at most, within mad.window (a directed-route SMP's node is "
     "the one at the end of its route, a LID-routed one's the node holding its LID); the rest "
     "for that node wait in its own queue while SMPs to other nodes go out. A switch's "
     "management processor answers SMPs one at a time, so a second SMP there only waits while "
     "it could keep another switch busy. 1: whenever the fabric has more switches than "
     "mad.window, one per switch keeps the most switches at work, each idle only while its "
     "answer travels back; 2 (NVIDIA's large-fabric tuning, with a window of 256) pays where the "
     "window exceeds twice the switches. On the fake fabric's model (50 us per SMP per switch) "
     "a radix-24 tree's 47,520 LFT blocks, sent switch by switch, take 91 ms at 1 with "
     "mad.window 32 (the window's bound 74 ms), 148 ms at 2, 286 ms at 4 and 1269 ms with no "
     "limit (the window piled on one switch); with mad.window 256: 12, 20, 39 and 280 ms "
     "(bench/pacing_bench).",
     applyInt<"mad.per_node_window", &Config::mad, &MadConfig::perNodeWindow, 0, 1024>},
    {"mad.timeout_min_ms", "milliseconds 1-60000", "2",
     "The shortest an SMP waits for its answer. Once SMPs on paths of one length (directed "
     "route by hop count, LID-routed apart) and of one kind (Gets, Sets of a table block, other "
     "Sets) are answered, each waits their smoothed round trip "
     "plus four deviations (TCP's RTO, RFC 6298), no less than this: twice the 1 ms a port "
     "with RespTimeValue 8 may take to answer (4.096 us * 2^8), as real hardware answers in "
     "tens to hundreds of microseconds but a switch's management processor can take "
     "milliseconds under load (the learnt timeout follows it up there).",
     applyInt<"mad.timeout_min_ms", &Config::mad, &MadConfig::timeoutMinMs, 1, 60000>},
    {"mad.timeout_max_ms", "milliseconds 1-60000", "50",
     "The longest an SMP attempt waits, each retry waiting twice the one before (exponential "
     "back-off). 50: ten times the milliseconds a loaded management processor may take, while "
     "on a path that loses most attempts (20% per switch, 5 hops) the many retries a probe "
     "needs wait 50 ms each rather than 200 (measured on the k8 tree at 20%: up in 42 s, "
     "against 112 s with 200). Not mad.timeout_ms, which every attempt waits on a path not "
     "measured yet. At least mad.timeout_min_ms.",
     applyInt<"mad.timeout_max_ms", &Config::mad, &MadConfig::timeoutMaxMs, 1, 60000>},
}};

}  // namespace

std::span<const OptionSpec> madOptions() {
  return kMadOptions;
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
