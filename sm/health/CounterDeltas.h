// What one port counted between two reads of its counters, and its running
// totals, from the two readings alone: a pure function the counter sweep
// calls once per port per interval, tested without a wire.
//
//   PortUpdate u = advance(state, readingOf(pc), 60.0);
//   // send a Set with CounterSelect for u.toReset, then keep:
//   state = PortCounterState{.last = now, .totals = u.totals, .resetAfterLast = sent};
//
// Three things make a plain subtraction wrong, and each is flagged rather
// than hidden:
// - Saturation: PortCounters' counters stop at all ones instead of
//   wrapping. A saturated counter is counted up to its ceiling, marked for
//   reset (CounterSelect) after this read, and its total becomes a lower
//   bound from then on: what it missed is unknown, but never negative.
// - Our reset: a counter cleared after the previous read counts from zero.
// - The port's own reset (a reboot, or another tool clearing it; a 64-bit
//   counter wrapping looks the same): the value went down without us. The
//   delta is the value now, flagged portReset, and the total a lower bound
//   (what was counted between our read and the reset is lost).
#pragma once

#include <optional>

#include "sm/health/Counters.h"

namespace ibsm::sm::health {

struct Total {
  std::uint64_t value{0};
  bool lowerBound{false};  // some counts were lost: at least this many
  auto operator<=>(const Total&) const = default;
};
using CounterTotals = PerCounter<Total>;

// What is kept of a port between two reads.
struct PortCounterState {
  PortReading last;
  CounterTotals totals{};
  CounterSet resetAfterLast{};  // cleared by our Set after `last` was read
};

struct CounterDelta {
  std::uint64_t value{0};
  bool saturated{false};  // at its ceiling now: reset it after this read
  bool portReset{false};  // went down without a reset of ours
  auto operator<=>(const CounterDelta&) const = default;
};

struct CounterRates {
  PerCounter<double> perSecond{};
  PerCounter<double> perHour{};
};

struct PortUpdate {
  PerCounter<CounterDelta> deltas{};
  CounterTotals totals{};
  std::optional<CounterRates> rates;  // none for a first reading
  CounterSet toReset{};               // the saturated counters
};

// `before` is nullopt for a port's first reading: the delta is then what
// the port counted since it last cleared, and there is no rate.
// `seconds` is the time since `before.last` was read.
[[nodiscard]] PortUpdate advance(const std::optional<PortCounterState>& before,
                                 const PortReading& now, double seconds);

}  // namespace ibsm::sm::health
