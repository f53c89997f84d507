// Ports whose error counters are over their thresholds, with a rule for
// when they are clean again. Fed the counter sweep's view after each pass.
//
// The rule:
// - A port becomes unhealthy when a counter's total since the port was
//   last clean (since the SM started, at first) is over its threshold in
//   the totals file, or its rate per hour over its threshold in the rates
//   file (when one is given).
// - It stays unhealthy while any counter that went over during the episode
//   keeps increasing, and is clean again once none of them has increased
//   for the clean period: totals never go down, so "under the threshold"
//   would never come; errors that stopped are what an operator fixed.
// - Being clean again starts the totals afresh (the baseline), so a port
//   comes back only for new errors over the threshold.
//
//   ErrorWatch w;
//   for (const PortErrors& e : w.update(view.ports, now, rule)) ...
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sm/health/FlapTracker.h"
#include "sm/health/HealthView.h"
#include "sm/health/Thresholds.h"

namespace ibsm::sm::health {

struct ErrorRule {
  Thresholds totals{};
  std::optional<Thresholds> perHour{};  // none: rates are not judged
  std::chrono::seconds cleanPeriod{600};
};

struct PortErrors {
  PortKey port{};
  std::string name{};
  std::vector<Counter> counters{};  // over their threshold in this episode
  std::string detail{};             // "SymbolErrorCounter 1205 > 10; ..."
};

class ErrorWatch {
 public:
  // The ports unhealthy after this pass, sorted by port. A port whose
  // reading did not change since the last update is judged on what it
  // had (no new read: nothing increased).
  std::vector<PortErrors> update(const std::vector<PortCounterView>& ports, Clock::time_point now,
                                 const ErrorRule& rule);

 private:
  struct PortState {
    CounterValues baseline{};  // totals when the port was last clean
    std::uint64_t reads{0};    // the read last looked at
    CounterSet episode{};      // counters over during the unhealthy episode
    Clock::time_point lastIncrease{};
    Clock::time_point seen{};  // the last update that listed the port
    std::string detail;
  };
  std::map<PortKey, PortState> ports_;
};

}  // namespace ibsm::sm::health
