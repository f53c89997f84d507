// Error thresholds in infiniband-diags' format, so an operator's
// `ibqueryerrors --threshold-file` file works unchanged here and both tools
// report the same ports:
//
//   # lines are CounterName=value
//   SymbolErrorCounter=10
//   LinkDownedCounter=0x10
//
// A counter is over its threshold when its value is greater (not equal).
// A counter the file does not name keeps threshold 0, ibqueryerrors'
// default, so any count at all is reported.
//
// Stricter than ibqueryerrors, which skips what it cannot read: an unknown
// name, a name with spaces around it, a value that is not a number or a
// counter named twice is an error naming the file and line, because a line
// skipped silently is a threshold the operator thinks is in force.
#pragma once

#include <ibsm/Error.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "sm/health/CounterDeltas.h"

namespace ibsm::sm::health {

struct Thresholds {
  // Indexed by Counter, SymbolErrorCounter .. PortXmitWait.
  std::array<std::uint64_t, kThresholdCounterCount> limit{};
  auto operator<=>(const Thresholds&) const = default;

  [[nodiscard]] std::uint64_t of(Counter c) const { return limit[index(c)]; }
};

// `fileName` is only for the errors.
[[nodiscard]] Result<Thresholds> parseThresholds(std::string_view text, std::string_view fileName);
[[nodiscard]] Result<Thresholds> loadThresholds(const std::filesystem::path& path);

// The counters over their threshold, in Counter order: totals against a
// file of totals, rates per hour against a file of rates per hour.
[[nodiscard]] std::vector<Counter> exceeds(const Thresholds& thresholds,
                                           const CounterTotals& totals);
[[nodiscard]] std::vector<Counter> exceeds(const Thresholds& thresholds,
                                           const PerCounter<double>& perHour);

}  // namespace ibsm::sm::health
