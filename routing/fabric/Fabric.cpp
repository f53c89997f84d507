#include <fmt/format.h>
#include <ibsm/Fabric.h>

namespace ibsm {

std::vector<std::uint8_t> Node::endpointPorts() const {
  if (isSwitch()) return {0};
  std::vector<std::uint8_t> out;
  for (std::size_t p = 1; p < ports.size(); ++p) out.push_back(static_cast<std::uint8_t>(p));
  return out;
}

Node Node::makeSwitch(Guid guid, std::uint8_t numPorts, std::string description) {
  Node n;
  n.type = NodeType::Switch;
  n.guid = guid;
  n.systemImageGuid = guid;
  n.description = std::move(description);
  n.ports.resize(std::size_t{numPorts} + 1);
  for (std::size_t p = 0; p < n.ports.size(); ++p) {
    n.ports[p].number = static_cast<std::uint8_t>(p);
    n.ports[p].guid = guid;
  }
  n.ports[0].state = PortState::Active;  // port 0 is internal and always up
  n.switchData = SwitchData{};
  return n;
}

Node Node::makeCa(Guid guid, const std::vector<Guid>& portGuids, std::string description) {
  Node n;
  n.type = NodeType::Ca;
  n.guid = guid;
  n.systemImageGuid = guid;
  n.description = std::move(description);
  n.ports.resize(portGuids.size() + 1);
  for (std::size_t p = 0; p < n.ports.size(); ++p) n.ports[p].number = static_cast<std::uint8_t>(p);
  for (std::size_t i = 0; i < portGuids.size(); ++i) n.ports[i + 1].guid = portGuids[i];
  return n;
}

Result<NodeId> Fabric::addNode(Node node) {
  if (byNodeGuid_.contains(node.guid))
    return fail(fmt::format("node GUID {} appears twice ({} and {})", node.guid,
                            nodes_[byNodeGuid_.at(node.guid)].description, node.description));
  const auto id = static_cast<NodeId>(nodes_.size());
  for (const std::uint8_t p : node.endpointPorts()) {
    const Guid g = node.ports[p].guid;
    if (!g) continue;
    if (auto it = byPortGuid_.find(g); it != byPortGuid_.end())
      return fail(fmt::format("port GUID {} of {} is already used by {}", g, node.description,
                              describe(it->second)));
  }
  for (const std::uint8_t p : node.endpointPorts())
    if (node.ports[p].guid) byPortGuid_.emplace(node.ports[p].guid, PortRef{id, p});
  byNodeGuid_.emplace(node.guid, id);
  nodes_.push_back(std::move(node));
  return id;
}

Result<void> Fabric::connect(PortRef a, PortRef b) {
  for (const PortRef p : {a, b}) {
    if (p.node >= nodes_.size() || p.port == 0 || p.port >= nodes_[p.node].ports.size())
      return fail(fmt::format("no port {} on node {}", p.port,
                              p.node < nodes_.size() ? nodes_[p.node].description : "?"));
  }
  if (a == b) return fail(fmt::format("{} is cabled to itself", describe(a)));
  Port& pa = port(a);
  Port& pb = port(b);
  if (pa.remote == b && pb.remote == a) return {};
  if (pa.remote)
    return fail(fmt::format("{} is cabled to {} and also to {}", describe(a), describe(*pa.remote),
                            describe(b)));
  if (pb.remote)
    return fail(fmt::format("{} is cabled to {} and also to {}", describe(b), describe(*pb.remote),
                            describe(a)));
  pa.remote = b;
  pb.remote = a;
  return {};
}

void Fabric::disconnect(PortRef a) {
  Port& pa = port(a);
  if (pa.remote) port(*pa.remote).remote.reset();
  pa.remote.reset();
}

std::optional<NodeId> Fabric::findNode(Guid nodeGuid) const {
  if (auto it = byNodeGuid_.find(nodeGuid); it != byNodeGuid_.end()) return it->second;
  return std::nullopt;
}

std::optional<PortRef> Fabric::findPort(Guid portGuid) const {
  if (auto it = byPortGuid_.find(portGuid); it != byPortGuid_.end()) return it->second;
  return std::nullopt;
}

std::vector<NodeId> Fabric::switches() const {
  std::vector<NodeId> out;
  for (NodeId i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].isSwitch()) out.push_back(i);
  return out;
}

std::vector<NodeId> Fabric::endNodes() const {
  std::vector<NodeId> out;
  for (NodeId i = 0; i < nodes_.size(); ++i)
    if (!nodes_[i].isSwitch()) out.push_back(i);
  return out;
}

std::string Fabric::describe(PortRef p) const {
  if (p.node >= nodes_.size()) return fmt::format("node#{}[{}]", p.node, p.port);
  const Node& n = nodes_[p.node];
  return fmt::format("\"{}\"[{}] ({})", n.description, p.port, n.guid);
}

}  // namespace ibsm
