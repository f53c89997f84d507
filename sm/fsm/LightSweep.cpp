#include "sm/fsm/LightSweep.h"

#include <unordered_map>

namespace ibsm::sm::fsm {
namespace {

bool up(PortState s) {
  return s != PortState::Down && s != PortState::NoChange;
}

std::optional<PortChange> classify(PortState before, std::optional<PortState> now) {
  if (!now) return PortChange::Silent;
  if (*now == PortState::Init) return PortChange::LinkNew;
  if (!up(*now)) return up(before) ? std::optional(PortChange::LinkLost) : std::nullopt;
  return up(before) ? std::nullopt : std::optional(PortChange::LinkUp);
}

}  // namespace

LightSweepPlan planLightSweep(const Fabric& last, std::span<const SwitchReply> replies) {
  std::unordered_map<NodeId, const SwitchReply*> byNode;
  for (const auto& r : replies) byNode.emplace(r.node, &r);

  LightSweepPlan plan;
  for (const NodeId sw : last.switches()) {
    ++plan.switches;
    const auto it = byNode.find(sw);
    const SwitchReply* reply = it == byNode.end() ? nullptr : it->second;
    if (reply == nullptr || !reply->info.has_value()) {
      plan.silent.push_back(sw);
      continue;
    }
    const SwitchInfo& info = reply->info.value();
    if (info.portStateChange) plan.reread.push_back(sw);
    if (reply->programmedFdbTop.has_value() && info.linearFdbTop != reply->programmedFdbTop.value())
      plan.lostTables.push_back(sw);
  }
  return plan;
}

std::vector<PortRef> portsToRead(const Fabric& last, const LightSweepPlan& plan) {
  std::vector<PortRef> reads;
  for (const NodeId sw : plan.reread)
    for (std::uint8_t p = 1; p <= last.node(sw).numPorts(); ++p) reads.push_back({sw, p});
  return reads;
}

std::vector<PortDelta> comparePorts(const Fabric& last, NodeId sw,
                                    std::span<const PortReading> now) {
  std::vector<PortDelta> deltas;
  const Node& node = last.node(sw);
  for (const auto& reading : now) {
    if (reading.port == 0 || reading.port > node.numPorts()) continue;
    const PortState before = node.ports[reading.port].state;
    if (auto change = classify(before, reading.state))
      deltas.push_back({PortRef{sw, reading.port}, before, reading.state, *change});
  }
  return deltas;
}

}  // namespace ibsm::sm::fsm
