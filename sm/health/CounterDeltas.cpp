#include "sm/health/CounterDeltas.h"

#include <limits>

namespace ibsm::sm::health {
namespace {

// 64-bit counters wrap rather than saturate: all ones is just a value.
bool isSaturated(Counter c, bool extendedData, std::uint64_t value) {
  const unsigned bits = counterBits(c, extendedData);
  return bits < kExtendedCounterBits && value == saturated(bits);
}

CounterDelta deltaOf(Counter c, const std::optional<PortCounterState>& before,
                     const PortReading& now) {
  const std::uint64_t value = now.values[index(c)];
  CounterDelta d{.value = value, .saturated = isSaturated(c, now.extendedData, value)};
  if (!before) return d;
  const std::uint64_t base =
      before->resetAfterLast.test(index(c)) ? 0 : before->last.values[index(c)];
  if (value < base) {
    d.portReset = true;  // value already counts from the port's reset
  } else {
    d.value = value - base;
  }
  return d;
}

std::uint64_t addClamped(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  return b > max - a ? max : a + b;
}

}  // namespace

PortUpdate advance(const std::optional<PortCounterState>& before, const PortReading& now,
                   double seconds) {
  PortUpdate u;
  const bool haveRates = before.has_value() && seconds > 0;
  if (haveRates) u.rates.emplace();
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    const CounterDelta d = deltaOf(counterAt(i), before, now);
    const Total was = before ? before->totals[i] : Total{};
    u.deltas[i] = d;
    u.totals[i] = Total{.value = addClamped(was.value, d.value),
                        .lowerBound = was.lowerBound || d.saturated || d.portReset};
    u.toReset.set(i, d.saturated);
    if (haveRates) {
      u.rates->perSecond[i] = static_cast<double>(d.value) / seconds;
      u.rates->perHour[i] = u.rates->perSecond[i] * 3600.0;
    }
  }
  return u;
}

}  // namespace ibsm::sm::health
