#include "sm/health/CounterPlan.h"

namespace ibsm::sm::health {
namespace {

NodeTargets switchTargets(const Fabric& fabric, NodeId id) {
  const Node& n = fabric.node(id);
  NodeTargets t{.node = n.guid, .lid = n.ports[0].lid, .isSwitch = true, .ports = {}};
  for (std::uint8_t p = 1; p <= n.numPorts(); ++p) {
    if (!n.ports[p].connected()) continue;
    t.ports.push_back(CounterTarget{.port = PortKey{n.guid, p},
                                    .lid = t.lid,
                                    .portSelect = p,
                                    .name = fabric.describe(PortRef{id, p})});
  }
  return t;
}

NodeTargets caTargets(const Fabric& fabric, NodeId id) {
  const Node& n = fabric.node(id);
  NodeTargets t{.node = n.guid, .lid = Lid{}, .isSwitch = false, .ports = {}};
  for (std::uint8_t p = 1; p <= n.numPorts(); ++p) {
    const Port& port = n.ports[p];
    if (!port.connected() || port.lid.value == 0) continue;
    if (t.lid.value == 0) t.lid = port.lid;
    t.ports.push_back(CounterTarget{.port = PortKey{n.guid, p},
                                    .lid = port.lid,
                                    .portSelect = p,
                                    .name = fabric.describe(PortRef{id, p})});
  }
  return t;
}

}  // namespace

std::vector<NodeTargets> counterTargets(const Fabric& fabric) {
  std::vector<NodeTargets> out;
  for (NodeId id = 0; id < fabric.size(); ++id) {
    NodeTargets t = fabric.node(id).isSwitch() ? switchTargets(fabric, id) : caTargets(fabric, id);
    if (t.lid.value == 0 || t.ports.empty()) continue;
    out.push_back(std::move(t));
  }
  return out;
}

NodeReads readsFor(const NodeTargets& node, const PerfClassPortInfo& cpi) {
  return NodeReads{
      .allPortSelect =
          node.isSwitch && node.ports.size() > 1 && cpi.has(perfCapability::kAllPortSelect),
      .extended = cpi.hasPortCountersExtended(),
  };
}

bool portsNeedReading(const std::optional<PortReading>& before, const PortReading& now) {
  if (!before) return true;
  for (std::size_t i = 0; i < kThresholdCounterCount; ++i) {
    const Counter c = counterAt(i);
    if (now.values[i] != before->values[i]) return true;
    if (now.values[i] == saturated(counterBits(c, false))) return true;
  }
  return false;
}

bool portMayBeSpared(std::optional<std::uint64_t> lastReadPass, std::uint64_t sumMovedPass,
                     std::uint64_t pass) {
  if (!lastReadPass || *lastReadPass < sumMovedPass) return false;
  return pass - *lastReadPass < kRefreshPasses;
}

CounterSelectBits counterSelectFor(const CounterSet& counters) {
  CounterSelectBits bits;
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    if (!counters.test(i)) continue;
    const Counter c = counterAt(i);
    if (c == Counter::PortXmitWait) {
      bits.counterSelect2 |= 0x01;
    } else if (i < index(Counter::PortXmitWait)) {
      // SymbolErrorCounter .. VL15Dropped: CounterSelect bits 0-11, in order.
      bits.counterSelect |= static_cast<std::uint16_t>(1U << i);
    } else {
      // PortXmitData .. PortRcvPkts: bits 12-15, after PortXmitWait's index.
      bits.counterSelect |= static_cast<std::uint16_t>(1U << (i - 1));
    }
  }
  return bits;
}

}  // namespace ibsm::sm::health
