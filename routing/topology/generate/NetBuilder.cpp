#include "routing/topology/generate/NetBuilder.h"

#include <fmt/format.h>

#include <cassert>
#include <iterator>

namespace ibsm::topogen {

NetNode NetBuilder::addSwitch(std::string name, int ports) {
  nodes_.push_back(
      Node{std::move(name), true, std::vector<Peer>(static_cast<std::size_t>(ports) + 1), 0});
  return static_cast<NetNode>(nodes_.size() - 1);
}

NetNode NetBuilder::addHca(std::string name) {
  nodes_.push_back(Node{std::move(name), false, std::vector<Peer>(2), 0});
  return static_cast<NetNode>(nodes_.size() - 1);
}

void NetBuilder::cable(NetPort a, NetPort b) {
  Peer& pa = nodes_.at(a.node).ports.at(static_cast<std::size_t>(a.port));
  Peer& pb = nodes_.at(b.node).ports.at(static_cast<std::size_t>(b.port));
  assert(a.port > 0 && b.port > 0 && pa.node == kNoNode && pb.node == kNoNode);
  pa = Peer{b.node, b.port};
  pb = Peer{a.node, a.port};
  if (nodes_[a.node].isSwitch && nodes_[b.node].isSwitch) {
    switchCables_.push_back(NetCable{a, b});
    switchCableRemoved_.push_back(false);
  }
}

void NetBuilder::removeSwitchCable(std::size_t index) {
  if (switchCableRemoved_.at(index)) return;
  switchCableRemoved_[index] = true;
  const NetCable& c = switchCables_[index];
  nodes_[c.a.node].ports[static_cast<std::size_t>(c.a.port)] = Peer{};
  nodes_[c.b.node].ports[static_cast<std::size_t>(c.b.port)] = Peer{};
}

void NetBuilder::renderNode(std::string& out, const Node& node) const {
  auto it = std::back_inserter(out);
  if (node.systemImageGuid != 0) fmt::format_to(it, "sysimgguid=0x{:x}\n", node.systemImageGuid);
  fmt::format_to(it, "{}\t{} \"{}\"\n", node.isSwitch ? "Switch" : "Hca", node.ports.size() - 1,
                 node.name);
  for (std::size_t p = 1; p < node.ports.size(); ++p) {
    const Peer& peer = node.ports[p];
    if (peer.node == kNoNode) continue;
    fmt::format_to(it, "[{}]\t\"{}\"[{}]\n", p, nodes_[peer.node].name, peer.port);
  }
  out += '\n';
}

std::string NetBuilder::render(NetNode first) const {
  std::string out;
  // About 24 bytes per port line and 24 per header: one allocation for the
  // largest fabrics instead of dozens of regrowths.
  std::size_t estimate = 0;
  for (const Node& n : nodes_) estimate += 24 * (n.ports.size() + 1);
  out.reserve(estimate);
  renderNode(out, nodes_.at(first));
  for (NetNode n = 0; n < nodes_.size(); ++n)
    if (n != first) renderNode(out, nodes_[n]);
  return out;
}

}  // namespace ibsm::topogen
