// resolveQos(): the member ports of each port group on one fabric. A port
// is named by its port GUID -- a switch's ports all answer to port 0's, so
// "sw1/P3" names the switch -- and the selectors add up: a port any of them
// names is a member. pkey:/partition: take the full members of the
// partition, as the partition plan resolved them; a partition name the
// partition config lacks names no port.
#include <fmt/format.h>
#include <ibsm/QosPolicy.h>

#include <algorithm>

namespace ibsm::qos {
namespace {

template <typename T>
bool inAny(const std::vector<Range<T>>& ranges, T v) {
  return std::ranges::any_of(ranges, [&](const Range<T>& r) { return r.contains(v); });
}

std::uint8_t typeBit(NodeType t) {
  switch (t) {
    case NodeType::Ca:
      return nodeTypeBit::kCa;
    case NodeType::Switch:
      return nodeTypeBit::kSwitch;
    case NodeType::Router:
      return nodeTypeBit::kRouter;
  }
  return 0;
}

// "desc/P3" -> the port GUID of port 3 of the node described so.
bool namedBy(const QosPortGroup& g, const Node& node, std::uint8_t port) {
  if (g.portNames.empty()) return false;
  const auto name = fmt::format("{}/P{}", node.description, port);
  return std::ranges::find(g.portNames, name) != g.portNames.end();
}

void addByPort(const QosPortGroup& g, const Fabric& fabric, std::set<Guid>& out) {
  for (const Node& node : fabric.nodes()) {
    const bool byType = (g.nodeTypes & typeBit(node.type)) != 0;
    for (std::uint8_t p = node.isSwitch() ? 0 : 1; p < node.ports.size(); ++p) {
      // A switch's external ports carry no GUID of their own: port 0's.
      const Guid guid = node.isSwitch() ? node.ports[0].guid : node.ports[p].guid;
      if (guid.value == 0) continue;
      if (byType || inAny(g.portGuids, guid.value) || namedBy(g, node, p)) out.insert(guid);
    }
  }
}

void addByPartition(const QosPortGroup& g, const QosPartitions& partitions, std::set<Guid>& out) {
  auto addMembers = [&](std::uint16_t pkey) {
    if (auto it = partitions.fullMembers.find(pkey & 0x7FFF); it != partitions.fullMembers.end())
      out.insert(it->second.begin(), it->second.end());
  };
  for (const auto& [pkey, members] : partitions.fullMembers)
    if (std::ranges::any_of(g.pkeys, [&](const Range<std::uint16_t>& r) {
          return (r.first & 0x7FFF) <= pkey && pkey <= (r.last & 0x7FFF);
        }))
      out.insert(members.begin(), members.end());
  for (const auto& name : g.partitions)
    if (auto it = partitions.pkeyOf.find(name); it != partitions.pkeyOf.end())
      addMembers(it->second);
}

}  // namespace

ResolvedQos resolveQos(std::shared_ptr<const QosPolicy> policy, const Fabric& fabric,
                       const QosPartitions& partitions, Guid smPort) {
  ResolvedQos resolved;
  resolved.policy = std::move(policy);
  if (!resolved.policy) return resolved;
  for (const QosPortGroup& g : resolved.policy->groups) {
    auto& members = resolved.members[g.name];
    addByPort(g, fabric, members);
    addByPartition(g, partitions, members);
    if ((g.nodeTypes & nodeTypeBit::kSelf) && smPort.value != 0) members.insert(smPort);
  }
  return resolved;
}

}  // namespace ibsm::qos
