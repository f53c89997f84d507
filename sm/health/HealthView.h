// What the SM knows of the fabric's health at one moment, as one value:
// what `ibsm health` shows, what the metrics file holds, and what the
// status counts. Three parts fill it, each its own:
// - the counter sweep (PerfMgt on the wire): `ports` and `counterSweep`;
// - the health book (conditions over time and the policy): `unhealthy`;
// - the daemon: `at`.
// Readers (the control socket, the metrics writer) only format it.
#pragma once

#include <ibsm/Ids.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sm/health/CounterDeltas.h"
#include "sm/health/TrapWatch.h"

namespace ibsm::sm::health {

// Why a port or link is unhealthy.
enum class Condition : std::uint8_t {
  Errors,      // an error counter over its threshold (total or rate per hour)
  Downgraded,  // a link trained below the width or speed both ends support and enable
  Flapping,    // a link that went down and up too often in a window
  Rebooted,    // a switch that lost its counters and tables since the last look
};
inline constexpr std::size_t kConditionCount = 4;
// "errors", "downgraded", "flapping", "rebooted": config keys, JSON, metrics.
std::string_view conditionName(Condition c);

// What the policy does about a condition (config `health.<condition>`).
enum class Action : std::uint8_t { Report, Isolate };
std::string_view actionName(Action a);  // "report", "isolate"

// One port's counters as the last counter sweep left them.
struct PortCounterView {
  PortKey port;
  Lid lid{};
  std::string name;  // "leaf0"[3] (0x...), as Fabric::describe writes it
  PortReading last;
  CounterTotals totals{};
  std::optional<CounterRates> rates;     // none after the first read
  PerCounter<CounterDelta> lastDelta{};  // what the last read added
  std::chrono::system_clock::time_point readAt{};
  std::uint64_t reads{0};
  std::uint64_t portResets{0};  // times the port cleared its counters itself (reboot)
};

// What the counter sweep did, since the daemon started and in its last pass.
struct CounterSweepFigures {
  bool enabled{false};
  std::chrono::seconds interval{0};
  std::uint64_t passes{0};
  std::uint64_t gmpsSent{0};  // retries included
  std::uint64_t timeouts{0};  // requests that failed after all retries
  std::uint64_t errors{0};    // answers with a non-zero status
  std::uint64_t resets{0};    // CounterSelect Sets sent (saturated counters)
  // AllPortSelect: switch-wide reads, and the per-port reads they spared.
  std::uint64_t allPortReads{0};
  std::uint64_t portReads{0};
  std::uint64_t portReadsSpared{0};
  std::uint64_t lastPassGmps{0};
  std::chrono::milliseconds lastPassDuration{0};
  std::optional<std::chrono::system_clock::time_point> lastPassAt;
  // How long until the next pass is due, as of the view (0: due now or
  // running); none while no pass can start (not master, subnet not up).
  std::optional<std::chrono::seconds> nextPassIn;
};

// One condition on one port (errors) or link (the others: both ends).
struct HealthEntry {
  Condition condition{Condition::Errors};
  PortKey port;
  std::string name;  // as PortCounterView::name
  std::optional<PortKey> peer;
  std::string peerName;
  // Human words for the reason: "SymbolErrorCounter 1205 > 10",
  // "4x expected, 1x active", "7 downs in 600 s".
  std::string detail;
  std::vector<Counter> counters;  // errors: the counters over their threshold
  Action action{Action::Report};
  bool isolated{false};
  // Isolation was asked for and refused, and why ("the only way to 0x...").
  std::string notIsolatedWhy;
  std::chrono::system_clock::time_point since{};     // first seen, this episode
  std::chrono::system_clock::time_point lastSeen{};  // last seen with the condition
};

struct HealthView {
  std::chrono::system_clock::time_point at{};
  std::vector<HealthEntry> unhealthy;
  std::vector<PortCounterView> ports;
  CounterSweepFigures counterSweep;
  // Ports noisy with traps, or that sent traps 256/257/258 (the daemon's
  // trap service; none offline).
  std::vector<TrapPortView> trapPorts;
};

}  // namespace ibsm::sm::health
