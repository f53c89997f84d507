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

namespace ibsm::sm::control {

struct SweepInfo {
  std::string kind;  // "heavy", "light", "takeover", "reroute"
  std::chrono::system_clock::time_point when;
  std::chrono::milliseconds duration{0};
  std::uint64_t mads{0};
  std::vector<std::string> changes;  // one line each, e.g. "port 0x... down"
  bool up{false};                    // every reachable port ACTIVE and every pair routed
};

// Another SM whose SMInfo shows an SM_Key other than ours: another
// management domain, or a different sm_key in its configuration. It takes
// no part in our elections, and it ignores us as we ignore it, so both of
// us may be MASTER -- the worst state a subnet can be in, hence shown.
struct ForeignSm {
  Guid guid;
  std::string port;   // how we reach it, e.g. "DR 0,1,3"
  Lid lid{};          // its port's LID as discovered (0: none yet)
  std::string state;  // the state it shows: "MASTER", "STANDBY", ...
  std::uint8_t priority{0};
  std::uint64_t smKey{0};  // the key it shows
};

struct DaemonStatus {
  std::string state;  // "MASTER", "STANDBY", "DISCOVERING", "NOTACTIVE"
  std::string phase;  // fsm phase name, e.g. "MasterIdle"
  Guid portGuid{};
  Lid lid{};
  std::uint8_t priority{0};
  bool smKeyIsDefault{true};   // OpenSM's default key, kDefaultSmKey
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
  std::vector<ForeignSm> foreignSms;  // as of the last read of the other SMs
};

// Lines such as "state: MASTER", "last_sweep: light 2026-12-03T07:00:00Z 12 ms
// 40 mads up"; ends with a newline.
std::string formatStatus(const DaemonStatus& status);
// One JSON object with the same fields (snake_case); ends with a newline.
std::string formatStatusJson(const DaemonStatus& status);

}  // namespace ibsm::sm::control
