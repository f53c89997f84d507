// What `ibsm status` shows: the daemon fills a DaemonStatus, the control
// socket sends it formatted. Text is one "key: value" per line so operators
// and scripts can grep it (`ibsm status | grep '^state:'`); --json carries
// the same fields for tools.
#pragma once

#include <ibsm/Ids.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::control {

struct SweepInfo {
  std::string kind;  // "heavy", "light", "takeover", "reroute"
  std::chrono::system_clock::time_point when;
  std::chrono::milliseconds duration{0};
  std::uint64_t mads{0};
  std::vector<std::string> changes;  // one line each, e.g. "port 0x... down"
  bool up{false};                    // every reachable port ACTIVE and every pair routed
};

struct DaemonStatus {
  std::string state;  // "MASTER", "STANDBY", "DISCOVERING", "NOTACTIVE"
  std::string phase;  // fsm phase name, e.g. "MasterIdle"
  Guid portGuid{};
  Lid lid{};
  std::uint8_t priority{0};
  bool smKeySet{false};
  std::optional<Guid> master;  // the master we poll (standby) / ourselves
  std::uint64_t sweeps{0};
  std::optional<SweepInfo> lastSweep;
  std::optional<SweepInfo> lastHeavy;
  std::size_t switches{0}, caPorts{0};
  std::uint64_t routedPairs{0}, unreachablePairs{0};
  std::string engine;
  std::chrono::seconds uptime{0};
  std::uint64_t madsSent{0};
  std::uint64_t trapsReceived{0};
};

// Lines such as "state: MASTER", "last_sweep: light 2026-12-03T07:00:00Z 12 ms
// 40 mads up"; ends with a newline.
std::string formatStatus(const DaemonStatus& status);
// One JSON object with the same fields (snake_case); ends with a newline.
std::string formatStatusJson(const DaemonStatus& status);

}  // namespace ibsm::control
