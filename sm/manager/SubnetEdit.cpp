#include "sm/manager/SubnetEdit.h"

#include <fmt/format.h>

#include <deque>
#include <unordered_set>

namespace ibsm::sm::manager {
namespace {

// The node a directed route ends at in `fabric`, or nullopt when one of its
// hops leaves through a port without a cable.
std::optional<NodeId> walk(const Fabric& fabric, PortRef smPort, const DrPath& path) {
  NodeId at = smPort.node;
  for (const std::uint8_t exit : path.ports()) {
    const Node& node = fabric.node(at);
    if (exit > node.numPorts()) return std::nullopt;
    const auto& remote = node.ports[exit].remote;
    if (!remote) return std::nullopt;
    at = remote->node;
  }
  return at;
}

// Directed routes by breadth-first search from the SM's port. Only
// switches forward SMPs; the SM's own CA sends out of its port alone.
Result<std::vector<std::optional<DrPath>>> reachable(const Fabric& fabric, PortRef smPort) {
  std::vector<std::optional<DrPath>> path(fabric.size());
  path[smPort.node] = DrPath{};
  std::deque<NodeId> queue{smPort.node};
  while (!queue.empty()) {
    const NodeId at = queue.front();
    queue.pop_front();
    const Node& node = fabric.node(at);
    if (!node.isSwitch() && at != smPort.node) continue;
    for (std::uint8_t p = 1; p <= node.numPorts(); ++p) {
      if (!node.isSwitch() && p != smPort.port) continue;
      const auto& remote = node.ports[p].remote;
      if (!remote || path[remote->node]) continue;
      auto next = path[at]->extended(p);
      if (!next) return std::unexpected(next.error());
      path[remote->node] = *next;
      queue.push_back(remote->node);
    }
  }
  return path;
}

// The subnet's fabric and PortInfo with the lost cables cut, both ends Down.
struct Cut {
  Fabric fabric;
  std::unordered_map<PortRef, PortInfo> portInfo;
};

Cut cutLinks(const discovery::DiscoveredSubnet& last, std::span<const PortRef> lost) {
  Cut cut{last.fabric, last.portInfo};
  auto down = [&](PortRef p) {
    cut.fabric.port(p).state = PortState::Down;
    if (auto it = cut.portInfo.find(p); it != cut.portInfo.end())
      it->second.portState = PortState::Down;
  };
  for (const PortRef p : lost) {
    if (p.node >= cut.fabric.size() || p.port > cut.fabric.node(p.node).numPorts()) continue;
    const auto remote = cut.fabric.port(p).remote;
    if (!remote) continue;
    cut.fabric.disconnect(p);
    down(p);
    down(*remote);
  }
  return cut;
}

// The nodes still reachable, in the old order, and the cables between them;
// `renumber` maps an old NodeId to the new one.
struct Kept {
  Fabric fabric;
  std::vector<std::optional<NodeId>> renumber;
};

Result<Kept> keepReachable(const Fabric& cut, const std::vector<std::optional<DrPath>>& reach,
                           NodeId smNode) {
  Kept kept{Fabric{}, std::vector<std::optional<NodeId>>(cut.size())};
  for (NodeId n = 0; n < cut.size(); ++n) {
    if (!reach[n]) continue;
    Node node = cut.node(n);
    for (Port& port : node.ports) port.remote.reset();
    auto id = kept.fabric.addNode(std::move(node));
    if (!id) return std::unexpected(id.error());
    kept.renumber[n] = *id;
  }
  const auto& renumber = kept.renumber;
  if (!renumber[smNode]) return fail("the SM's own node is not reachable from its port");
  for (NodeId n = 0; n < cut.size(); ++n) {
    if (!renumber[n]) continue;
    const Node& node = cut.node(n);
    for (std::uint8_t p = 0; p < node.ports.size(); ++p) {
      const auto& remote = node.ports[p].remote;
      if (!remote || !renumber[remote->node] || PortRef{n, p} > *remote) continue;
      auto ok = kept.fabric.connect(PortRef{*renumber[n], p},
                                    PortRef{*renumber[remote->node], remote->port});
      if (!ok) return std::unexpected(ok.error());
    }
  }
  return kept;
}

}  // namespace

Result<discovery::DiscoveredSubnet> withoutLinks(const discovery::DiscoveredSubnet& last,
                                                 std::span<const PortRef> lost) {
  const Cut cutSubnet = cutLinks(last, lost);
  const Fabric& cut = cutSubnet.fabric;
  auto fresh = reachable(cut, last.smPort);
  if (!fresh) return std::unexpected(fresh.error());
  auto reached = keepReachable(cut, *fresh, last.smPort.node);
  if (!reached) return std::unexpected(reached.error());
  const auto& renumber = reached->renumber;

  discovery::DiscoveredSubnet out;
  out.fabric = std::move(reached->fabric);
  out.smPort = PortRef{*renumber[last.smPort.node], last.smPort.port};
  out.problems = last.problems;
  out.pathTo.resize(out.fabric.size());
  for (NodeId n = 0; n < cut.size(); ++n) {
    if (!renumber[n]) continue;
    // A route that still reaches its node is kept, so SMPs keep their paths.
    const bool stillGood = n < last.pathTo.size() && walk(cut, last.smPort, last.pathTo[n]) == n;
    out.pathTo[*renumber[n]] = stillGood ? last.pathTo[n] : *(*fresh)[n];
  }
  for (const auto& [ref, info] : cutSubnet.portInfo)
    if (renumber[ref.node]) out.portInfo.emplace(PortRef{*renumber[ref.node], ref.port}, info);
  for (const auto& [sw, info] : last.switchInfo)
    if (renumber[sw]) out.switchInfo.emplace(*renumber[sw], info);
  for (const PortRef p : last.unconfirmedLinks)
    if (renumber[p.node]) out.unconfirmedLinks.push_back(PortRef{*renumber[p.node], p.port});
  return out;
}

}  // namespace ibsm::sm::manager
