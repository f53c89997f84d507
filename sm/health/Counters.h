// The port counters the health sweep follows, by name, as one array per
// port, so that deltas, totals, rates and thresholds are computed the same
// way for every counter instead of field by field.
//
//   PortReading r = readingOf(decodePortCounters(reply));
//   std::uint64_t symbols = r.values[index(Counter::SymbolErrorCounter)];
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "sm/mad/PerfCounters.h"

namespace ibsm::sm::health {

// The error counters first, in ibqueryerrors' order (its threshold file
// names them so), then the data and packet counters.
enum class Counter : std::uint8_t {
  SymbolErrorCounter,
  LinkErrorRecoveryCounter,
  LinkDownedCounter,
  PortRcvErrors,
  PortRcvRemotePhysicalErrors,
  PortRcvSwitchRelayErrors,
  PortXmitDiscards,
  PortXmitConstraintErrors,
  PortRcvConstraintErrors,
  LocalLinkIntegrityErrors,
  ExcessiveBufferOverrunErrors,
  VL15Dropped,
  PortXmitWait,
  PortXmitData,
  PortRcvData,
  PortXmitPkts,
  PortRcvPkts,
};
inline constexpr std::size_t kCounterCount = 17;
// The ones a threshold file can name: everything up to PortXmitWait.
inline constexpr std::size_t kThresholdCounterCount = 13;

constexpr std::size_t index(Counter c) {
  return static_cast<std::size_t>(c);
}
constexpr Counter counterAt(std::size_t i) {
  return static_cast<Counter>(i);
}

// The IBA's (and libibmad's) name: "SymbolErrorCounter", "VL15Dropped"...
std::string_view counterName(Counter c);
std::optional<Counter> counterNamed(std::string_view name);

template <typename T>
using PerCounter = std::array<T, kCounterCount>;
using CounterValues = PerCounter<std::uint64_t>;
using CounterSet = std::bitset<kCounterCount>;

// One read of a port's counters. The data and packet counters are 32 bits
// from PortCounters, 64 from PortCountersExtended where the port has it.
struct PortReading {
  CounterValues values{};
  bool extendedData{false};
  auto operator<=>(const PortReading&) const = default;
};

PortReading readingOf(const PortCounters& pc);
// PortCounters for the error counters, PortCountersExtended for the data.
PortReading readingOf(const PortCounters& pc, const PortCountersExtended& ext);

// The width a counter has on the wire in this reading: where it saturates.
unsigned counterBits(Counter c, bool extendedData);

}  // namespace ibsm::sm::health
