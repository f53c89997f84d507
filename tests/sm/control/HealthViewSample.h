// A fabric's health as the daemon would hand it to the control socket,
// built by hand: two unhealthy entries (a port with rising symbol errors
// whose isolation was refused, a link trained at 1x and isolated) and the
// two ports the counter sweep read. Shared by the health format, metrics
// and control socket specs.
#pragma once

#include <chrono>

#include "sm/health/HealthView.h"

namespace ibsm::sm::control::testing {

using namespace std::chrono_literals;

inline std::chrono::system_clock::time_point dec4(std::chrono::seconds timeOfDay) {
  return std::chrono::sys_days{std::chrono::December / 4 / 2026} + timeOfDay;
}

inline constexpr PortKey kLeaf0Port3{Guid{0x0002c90300000001}, 3};
inline constexpr PortKey kSpine1Port7{Guid{0x0002c90300000002}, 7};

inline health::HealthView twoUnhealthy() {
  using health::Counter;
  using health::index;
  health::HealthView v;
  v.at = dec4(12h + 3min + 10s);
  auto& s = v.counterSweep;
  s.enabled = true;
  s.interval = 60s;
  s.passes = 42;
  s.gmpsSent = 144942;
  s.lastPassGmps = 3451;
  s.lastPassDuration = 812ms;
  s.lastPassAt = dec4(12h + 3min + 4s);

  health::PortCounterView leaf;
  leaf.port = kLeaf0Port3;
  leaf.lid = Lid{5};
  leaf.name = "\"leaf0\"[3] (0x0002c90300000001)";
  leaf.last.values[index(Counter::SymbolErrorCounter)] = 65535;
  leaf.totals[index(Counter::SymbolErrorCounter)] = {.value = 1205, .lowerBound = true};
  leaf.totals[index(Counter::LinkDownedCounter)] = {.value = 2, .lowerBound = false};
  leaf.totals[index(Counter::PortXmitData)] = {.value = 123456789012, .lowerBound = false};
  leaf.lastDelta[index(Counter::SymbolErrorCounter)] = {.value = 60, .saturated = true};
  health::CounterRates rates;
  rates.perHour[index(Counter::SymbolErrorCounter)] = 720.0;
  rates.perSecond[index(Counter::SymbolErrorCounter)] = 0.2;
  rates.perSecond[index(Counter::PortXmitData)] = 3.0e8;  // 4-octet words: 1.2 GB/s
  rates.perSecond[index(Counter::PortRcvData)] = 2.0e8;
  rates.perSecond[index(Counter::PortXmitPkts)] = 1.0e6;
  rates.perSecond[index(Counter::PortRcvPkts)] = 5.0e5;
  leaf.rates = rates;
  leaf.readAt = dec4(12h + 3min + 4s);
  leaf.reads = 42;
  leaf.portResets = 1;
  v.ports.push_back(leaf);

  health::PortCounterView spine;  // read once: no rates yet
  spine.port = kSpine1Port7;
  spine.lid = Lid{9};
  spine.name = "\"spine1\"[7] (0x0002c90300000002)";
  spine.readAt = dec4(12h + 3min + 4s);
  spine.reads = 1;
  v.ports.push_back(spine);

  health::HealthEntry errors;
  errors.condition = health::Condition::Errors;
  errors.port = kLeaf0Port3;
  errors.name = leaf.name;
  errors.peer = kSpine1Port7;
  errors.peerName = spine.name;
  errors.detail = "SymbolErrorCounter 1205 > 10";
  errors.counters = {Counter::SymbolErrorCounter};
  errors.action = health::Action::Isolate;
  errors.notIsolatedWhy = "the only way to 0x0002c90300000009";
  errors.since = dec4(11h + 58min);
  errors.lastSeen = dec4(12h + 3min + 4s);
  v.unhealthy.push_back(errors);

  health::HealthEntry downgraded;
  downgraded.condition = health::Condition::Downgraded;
  downgraded.port = PortKey{Guid{0x0002c90300000003}, 1};
  downgraded.name = "\"leaf1\"[1] (0x0002c90300000003)";
  downgraded.peer = PortKey{Guid{0x0002c90300000004}, 2};
  downgraded.peerName = "\"spine0\"[2] (0x0002c90300000004)";
  downgraded.detail = "4x expected, 1x active";
  downgraded.action = health::Action::Isolate;
  downgraded.isolated = true;
  downgraded.since = dec4(10h);
  downgraded.lastSeen = dec4(12h + 3min);
  v.unhealthy.push_back(downgraded);
  return v;
}

// A quiet fabric, the counter sweep on but not yet through its first pass.
inline health::HealthView healthy() {
  health::HealthView v;
  v.at = dec4(12h);
  v.counterSweep.enabled = true;
  v.counterSweep.interval = 60s;
  return v;
}

}  // namespace ibsm::sm::control::testing
