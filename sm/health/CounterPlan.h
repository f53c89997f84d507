// What one pass of the counter sweep asks, decided without a wire: which
// ports of a Fabric have counters worth reading and how each is addressed,
// what a node's PMA must be asked given what earlier passes learnt of it
// (its ClassPortInfo, its switch-wide sum), and the CounterSelect bits
// that clear a set of counters. CounterSweep (the wire side) follows these
// decisions; tests check them on hand-made fabrics.
//
//   for (const NodeTargets& n : counterTargets(fabric)) {
//     NodeReads r = readsFor(n, memory.at(n.node).cpi, havePreviousSum);
//     ...
//     if (r.allPortSelect && !portsNeedReading(before, sumNow))
//       for (port : n.ports) if (portMayBeSpared(port's read pass, sum moved at, pass)) ++spared;
//   }
//
// Addressing (IBA 16.1.2): a switch's PMA answers at the switch's LID (port
// 0) for any of its ports, named by PortSelect; a CA's answers at each
// port's own LID with PortSelect = that port.
#pragma once

#include <ibsm/Fabric.h>

#include <optional>
#include <string>
#include <vector>

#include "sm/health/Counters.h"
#include "sm/mad/PerfCounters.h"

namespace ibsm::sm::health {

struct CounterTarget {
  PortKey port;
  Lid lid;  // where the GMP goes
  std::uint8_t portSelect{0};
  std::string name;  // Fabric::describe
  auto operator<=>(const CounterTarget&) const = default;
};

// One PMA and the ports it is asked about.
struct NodeTargets {
  Guid node;
  Lid lid;  // where ClassPortInfo (and AllPortSelect) is asked
  bool isSwitch{false};
  std::vector<CounterTarget> ports;
  auto operator<=>(const NodeTargets&) const = default;
};

// Every node with a port that has a link (a switch's ports 1..N that are
// cabled, a CA's cabled ports) and a LID to reach it by, in Fabric order.
[[nodiscard]] std::vector<NodeTargets> counterTargets(const Fabric& fabric);

// What to ask a node's PMA, once its ClassPortInfo is known.
struct NodeReads {
  // Read the switch-wide sum (PortSelect 0xFF) before the ports: where it
  // is supported, on switches of more than one linked port (one port's
  // sum spares nothing).
  bool allPortSelect{false};
  // PortCountersExtended beside PortCounters, for 64-bit data counters.
  bool extended{false};
  auto operator<=>(const NodeReads&) const = default;
};
[[nodiscard]] NodeReads readsFor(const NodeTargets& node, const PerfClassPortInfo& cpi);

// Whether a switch's ports must be read, given its sum now and at the last
// pass: yes on a first pass, when an error counter (or PortXmitWait) of
// the sum moved, or when one sits at its ceiling (the sum no longer
// counts). The data and packet counters are left out of the comparison:
// they move with every packet (this sweep's own GMPs included), so a sum
// compared on them would never spare a read; a port not read keeps its
// last data counters and rates.
[[nodiscard]] bool portsNeedReading(const std::optional<PortReading>& before,
                                    const PortReading& now);

// Whether one port of a switch whose sum did not move this pass may keep
// its last reading. The sum only vouches for ports whose reading is at
// least as new as the sum it is compared with: a port read at or after the
// pass where the sum last moved (`sumMovedPass`). A port out of the fabric
// then (its cable pulled: its counters moved the sum but could not be
// read), or whose read went unanswered, is read. And a port is read at
// least every kRefreshPasses passes however still the sum stands: its data
// rates need two reads, and a sum that is blind to a port (a counter of the
// sum at a ceiling narrower than the port's, as ibsim's 8-bit sum of
// PortXmitDiscards) hides it for a bounded time only.
inline constexpr std::uint64_t kRefreshPasses = 5;
[[nodiscard]] bool portMayBeSpared(std::optional<std::uint64_t> lastReadPass,
                                   std::uint64_t sumMovedPass, std::uint64_t pass);

// The CounterSelect and CounterSelect2 bits of a PortCounters Set that
// clears `counters` (PortXmitWait is selected by CounterSelect2).
struct CounterSelectBits {
  std::uint16_t counterSelect{0};
  std::uint8_t counterSelect2{0};
  auto operator<=>(const CounterSelectBits&) const = default;
};
[[nodiscard]] CounterSelectBits counterSelectFor(const CounterSet& counters);

}  // namespace ibsm::sm::health
