// The kinds of sweep the daemon runs and counts, each named once: the
// status's `kind` of a sweep and its sweeps_by_kind keys, the text's
// sweeps_<name> lines and the metrics' ibsm_sweeps_total{kind} all print
// these names.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sm/program/PerKind.h"

namespace ibsm::sm::control {

enum class SweepKind : std::uint8_t {
  Discovery,  // DISCOVERING's look at the fabric and the SMs
  Heavy,
  Takeover,
  Light,
  Reroute,    // a light sweep that rerouted lost cables in place
  Replan,     // the last walk planned again: SIGHUP as master, isolation
  Rebalance,  // routes afresh: `ibsm sweep --rebalance` or the schedule
};
inline constexpr std::array<std::string_view, 7> kSweepKindNames{
    "discovery", "heavy", "takeover", "light", "reroute", "replan", "rebalance"};
constexpr std::string_view name(SweepKind k) {
  return kSweepKindNames[static_cast<std::size_t>(k)];
}

// How sweeps are counted: by kind, a light sweep as quiet (it found no
// change) or changed.
enum class SweepCount : std::uint8_t {
  Discovery,
  Heavy,
  Takeover,
  LightQuiet,
  LightChanged,
  Reroute,
  Replan,
  Rebalance,
};
inline constexpr std::size_t kSweepCounts = 8;
inline constexpr std::array<std::string_view, kSweepCounts> kSweepCountNames{
    "discovery",     "heavy",   "takeover", "light_quiet",
    "light_changed", "reroute", "replan",   "rebalance"};
constexpr std::string_view name(SweepCount c) {
  return kSweepCountNames[static_cast<std::size_t>(c)];
}
// Where a sweep of `kind` is counted; `changed`: it found a change.
constexpr SweepCount countedAs(SweepKind kind, bool changed) {
  switch (kind) {
    case SweepKind::Discovery:
      return SweepCount::Discovery;
    case SweepKind::Heavy:
      return SweepCount::Heavy;
    case SweepKind::Takeover:
      return SweepCount::Takeover;
    case SweepKind::Light:
      return changed ? SweepCount::LightChanged : SweepCount::LightQuiet;
    case SweepKind::Reroute:
      return SweepCount::Reroute;
    case SweepKind::Replan:
      return SweepCount::Replan;
    case SweepKind::Rebalance:
      return SweepCount::Rebalance;
  }
  return SweepCount::Heavy;
}

// Sweeps since start, by how they are counted.
using SweepCounts = PerKind<SweepCount, std::uint64_t, kSweepCounts>;

}  // namespace ibsm::sm::control
