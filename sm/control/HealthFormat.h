// What `ibsm health` shows: the daemon hands the control socket a
// health::HealthView (sm/health/HealthView.h) and these format it, the same
// split as `ibsm status` (StatusFormat.h). Pure functions of the value, so
// what an operator reads is tested from hand-built views, without a fabric.
//
//   ibsm health           summary line, then one block per unhealthy port or link
//   ibsm health --ports   summary line, then every port's counters
//   ibsm health --json    the whole view, for jq and monitoring scripts
//
// `ibsm status` carries only the counts (HealthCounts), one line of text.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "sm/health/HealthView.h"

namespace ibsm::sm::control {

// The figures `ibsm status` shows of the fabric's health (its `health:`
// line and the JSON's `health.counts`).
struct HealthCounts {
  std::array<std::uint64_t, health::kConditionCount> unhealthy{};  // by health::Condition
  std::uint64_t isolated{0};
  health::CounterSweepFigures counterSweep;

  std::uint64_t total() const;
};

HealthCounts healthCounts(const health::HealthView& view);

// "2 unhealthy (1 errors, 1 downgraded), 0 isolated; counters every 60 s,
// last pass 2026-12-04T12:03:04Z (3,451 GMPs, 0.8 s)"; before the first
// pass "counters every 180 s, first pass in 12 s" (or "first pass once
// master with the subnet up"); "healthy, 0 isolated; counters off". No
// newline.
std::string healthLine(const HealthCounts& counts);

// `ibsm health`: "health: <healthLine>" then the unhealthy entries, each
// with the counters involved as the last counter pass left them. Ends with
// a newline.
std::string formatHealth(const health::HealthView& view);
// `ibsm health --ports`: the summary, then one line per port read: its
// non-zero error counters (totals, ">=" when a lower bound, and rates per
// hour) and its data rates.
std::string formatHealthPorts(const health::HealthView& view);
// `ibsm health --json`: every field of the view, snake_case keys, counters
// by their IBA names, times ISO-8601 UTC. Ends with a newline.
std::string formatHealthJson(const health::HealthView& view);

}  // namespace ibsm::sm::control
