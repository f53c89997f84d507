#include "tests/sm/program/SubnetSnapshot.h"

#include <ibsm/MadAttributes.h>

#include <deque>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sm/mad/PortInfoFill.h"
#include "sm/program/Diff.h"

namespace ibsm::testing {
namespace {

constexpr std::uint8_t kPhysLinkUp = 5;
constexpr std::uint8_t kPhysPolling = 2;

// The ports discovery reads: every port of a switch, cabled CA ports.
std::vector<std::uint8_t> readablePorts(const Node& node) {
  std::vector<std::uint8_t> out;
  for (std::uint8_t p = node.isSwitch() ? 0 : 1; p <= node.numPorts(); ++p) {
    if (node.isSwitch() || node.ports[p].connected()) out.push_back(p);
  }
  return out;
}

PortInfo portInfoOf(const Node& node, std::uint8_t num) {
  const Port& port = node.ports[num];
  const Port& lidPort = node.isSwitch() ? node.ports[0] : port;
  const bool cabled = port.connected() || (node.isSwitch() && num == 0);
  PortInfo pi;
  pi.lid = lidPort.lid;
  pi.lmc = lidPort.lmc;
  sm::mad::fillFromPort(pi, port);
  pi.localPortNum = num;
  pi.portState = !cabled                         ? PortState::Down
                 : port.state == PortState::Down ? PortState::Init
                                                 : port.state;
  pi.physState = cabled ? kPhysLinkUp : kPhysPolling;
  pi.neighborMtu = port.mtuCap;
  pi.operationalVls = port.vlCap;
  return pi;
}

SwitchInfo switchInfoOf(const SwitchData& sd) {
  SwitchInfo si;
  si.linearFdbCap = sd.linearFdbCap;
  si.multicastFdbCap = sd.multicastFdbCap;
  si.linearFdbTop = sd.linearFdbTop;
  si.lifeTimeValue = 18;
  si.enhancedPort0 = sd.enhancedPort0;
  return si;
}

// Writes what was read back into the fabric, as discovery reports it.
void applyRead(sm::discovery::DiscoveredSubnet& subnet) {
  for (const auto& [ref, pi] : subnet.portInfo) {
    Node& node = subnet.fabric.node(ref.node);
    Port& port = node.ports[ref.port];
    port.state = pi.portState;
    port.physState = pi.physState;
    port.capabilityMask = pi.capabilityMask;
    if (!node.isSwitch() || ref.port == 0) {
      port.lid = pi.lid;
      port.lmc = pi.lmc;
    }
  }
  for (const auto& [sw, si] : subnet.switchInfo) {
    subnet.fabric.node(sw).switchData->linearFdbTop = si.linearFdbTop;
  }
}

}  // namespace

Fabric unprogrammed(Fabric fabric) {
  for (NodeId n = 0; n < fabric.size(); ++n) {
    Node& node = fabric.node(n);
    for (std::size_t p = 0; p < node.ports.size(); ++p) {
      Port& port = node.ports[p];
      port.lid = Lid{};
      port.lmc = 0;
      port.state = node.isSwitch() && p == 0 ? PortState::Active : PortState::Down;
    }
    if (node.switchData) node.switchData->linearFdbTop = 0;
  }
  return fabric;
}

std::vector<DrPath> routesFrom(const Fabric& fabric, PortRef smPort) {
  std::vector<std::optional<DrPath>> found(fabric.size());
  found[smPort.node] = DrPath{};
  std::deque<NodeId> queue{smPort.node};
  while (!queue.empty()) {
    const NodeId u = queue.front();
    queue.pop_front();
    const Node& node = fabric.node(u);
    for (std::uint8_t p = 1; p <= node.numPorts(); ++p) {
      if (!node.isSwitch() && p != smPort.port) continue;
      const auto& remote = node.ports[p].remote;
      if (!remote || found[remote->node]) continue;
      found[remote->node] = *found[u]->extended(p);
      if (fabric.node(remote->node).isSwitch()) queue.push_back(remote->node);
    }
  }
  std::vector<DrPath> out;
  for (NodeId n = 0; n < fabric.size(); ++n) {
    if (!found[n]) throw std::runtime_error("routesFrom: the fabric is not connected");
    out.push_back(*found[n]);
  }
  return out;
}

sm::discovery::DiscoveredSubnet snapshotOf(const Fabric& fabric, PortRef smPort) {
  sm::discovery::DiscoveredSubnet s;
  s.fabric = fabric;
  s.smPort = smPort;
  s.pathTo = routesFrom(fabric, smPort);
  for (NodeId n = 0; n < fabric.size(); ++n) {
    const Node& node = fabric.node(n);
    for (const std::uint8_t p : readablePorts(node)) s.portInfo[{n, p}] = portInfoOf(node, p);
    if (node.switchData) s.switchInfo[n] = switchInfoOf(*node.switchData);
  }
  applyRead(s);
  return s;
}

sm::discovery::DiscoveredSubnet readOverWire(MadEngine& engine, const Fabric& topology,
                                             PortRef smPort) {
  sm::discovery::DiscoveredSubnet s;
  s.fabric = topology;
  s.smPort = smPort;
  s.pathTo = routesFrom(topology, smPort);
  for (NodeId n = 0; n < topology.size(); ++n) {
    const Node& node = topology.node(n);
    for (const std::uint8_t p : readablePorts(node)) {
      auto path = sm::program::pathToPort(s, PortRef{n, p});
      if (!path) throw std::runtime_error("readOverWire: a port without a route");
      engine.submit(SmpRequest::get(AttributeId::PortInfo, p, *path),
                    [&s, n, p](const SmpRequest&, const SmpReply& reply) {
                      if (reply.ok()) s.portInfo[{n, p}] = decodePortInfo(reply.smp->data);
                    });
    }
    if (node.isSwitch()) {
      engine.submit(SmpRequest::get(AttributeId::SwitchInfo, 0, s.pathTo[n]),
                    [&s, n](const SmpRequest&, const SmpReply& reply) {
                      if (reply.ok()) s.switchInfo[n] = decodeSwitchInfo(reply.smp->data);
                    });
    }
  }
  if (auto idle = engine.runUntilIdle(); !idle) throw std::runtime_error(idle.error().message);
  applyRead(s);
  return s;
}

Fabric twoSwitchFabric() {
  Fabric f;
  const NodeId s0 = *f.addNode(Node::makeSwitch(Guid{0x200000}, 4, "sw0"));
  const NodeId s1 = *f.addNode(Node::makeSwitch(Guid{0x200001}, 4, "sw1"));
  const NodeId c0 = *f.addNode(Node::makeCa(Guid{0x100000}, {Guid{0x100001}}, "ca0"));
  const NodeId c1 = *f.addNode(Node::makeCa(Guid{0x100003}, {Guid{0x100004}}, "ca1"));
  for (const auto& [a, b] :
       {std::pair{PortRef{s0, 1}, PortRef{c0, 1}}, std::pair{PortRef{s0, 3}, PortRef{s1, 3}},
        std::pair{PortRef{s1, 1}, PortRef{c1, 1}}}) {
    if (auto ok = f.connect(a, b); !ok) throw std::runtime_error(ok.error().message);
  }
  return unprogrammed(std::move(f));
}

}  // namespace ibsm::testing
