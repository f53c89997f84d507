#include "sm/discovery/Recall.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace ibsm::sm::discovery {
namespace {

// Below this share of attempts lost, a route counts as sound: a failure
// there is a change, not the wire.
constexpr double kLossyShare = 0.02;

bool armedOrActive(const PortInfo& pi) {
  return pi.portState == PortState::Armed || pi.portState == PortState::Active;
}

class Recaller {
 public:
  Recaller(Observations& seen, const DiscoveredSubnet& last, const LossyRoute& lossy)
      : seen_(seen), last_(last), lossy_(lossy) {}

  RecallCounts run() {
    cables();
    // SwitchInfo before port 0: each may be taken only on the other's fresh answer.
    switchInfos();
    portInfos();
    descriptions();
    return counts_;
  }

 private:
  std::optional<NodeId> lastNode(Guid g) const { return last_.fabric.findNode(g); }
  const PortInfo* lastPortInfo(PortKey k) const {
    const auto id = lastNode(k.node);
    if (!id) return nullptr;
    auto it = last_.portInfo.find(PortRef{*id, k.port});
    return it == last_.portInfo.end() ? nullptr : &it->second;
  }
  std::optional<PortKey> lastPeer(PortKey k) const {
    const auto id = lastNode(k.node);
    if (!id || k.port > last_.fabric.node(*id).numPorts()) return std::nullopt;
    const auto remote = last_.fabric.port(PortRef{*id, k.port}).remote;
    if (!remote) return std::nullopt;
    return PortKey{last_.fabric.node(remote->node).guid, remote->port};
  }
  NodeRecord* record(Guid g) {
    auto it = seen_.byGuid.find(g);
    return it == seen_.byGuid.end() ? nullptr : &seen_.nodes[it->second];
  }
  const PortInfo* freshPortInfo(PortKey k) {
    NodeRecord* r = record(k.node);
    if (!r || k.port >= r->ports.size()) return nullptr;
    const auto& pi = r->ports[k.port];
    return pi ? &*pi : nullptr;
  }
  // Ports whose probe landed on `k`, but `except`.
  bool landedOnFromOther(PortKey k, PortKey except) const {
    for (const auto& [from, to] : seen_.probes)
      if (to == k && from != except) return true;
    return false;
  }
  // Nothing this sweep says `a`'s cable leads elsewhere than `b`.
  bool uncontradicted(PortKey a, PortKey b) const {
    if (landedOnFromOther(a, b)) return false;
    auto it = seen_.probes.find(a);
    return it == seen_.probes.end() || it->second == b;
  }

  void cables();
  bool recallCable(PortKey from, const Failure& failure);
  bool admitPeer(PortKey peer, PortKey from, const Failure& failure);
  void admitCa(PortKey peer, NodeId lastId, const DrPath& path);
  void portInfos();
  bool recallPortInfo(const Failure& f);
  void switchInfos();
  void descriptions();
  template <typename Pred>
  void forgive(Pred taken) {
    std::erase_if(seen_.failedReads, taken);
  }

  Observations& seen_;
  const DiscoveredSubnet& last_;
  const LossyRoute& lossy_;
  RecallCounts counts_;
  std::vector<Guid> freshSwitchInfo_;  // switches whose SwitchInfo answered this sweep
};

void Recaller::cables() {
  std::vector<std::pair<PortKey, Failure>> lost;
  for (const auto& [from, f] : seen_.failedProbes)
    if (f.id != kNotFollowed && lossy_(f.path)) lost.emplace_back(from, f);
  for (const auto& [from, f] : lost)
    if (seen_.failedProbes.contains(from) && recallCable(from, f)) ++counts_.cables;
}

bool Recaller::recallCable(PortKey from, const Failure& failure) {
  const PortInfo* near = freshPortInfo(from);
  const auto peer = lastPeer(from);
  if (!near || !armedOrActive(*near) || !peer || !uncontradicted(from, *peer)) return false;
  if (!admitPeer(*peer, from, failure)) return false;
  seen_.failedProbes.erase(from);
  seen_.probes[from] = *peer;
  // The peer's own probe, lost too, was the same cable seen from there.
  if (seen_.failedProbes.erase(*peer) > 0) seen_.probes[*peer] = from;
  return true;
}

// The far end of a recalled cable: Armed or Active and uncontradicted
// itself; a CA port not entered this sweep is taken as it was last.
bool Recaller::admitPeer(PortKey peer, PortKey from, const Failure& failure) {
  const auto id = lastNode(peer.node);
  const PortInfo* was = lastPortInfo(peer);
  if (!id || !was || !armedOrActive(*was) || !uncontradicted(peer, from)) return false;
  NodeRecord* r = record(peer.node);
  if (r) {
    if (const PortInfo* now = freshPortInfo(peer)) return armedOrActive(*now);
    if (r->info.nodeType == NodeType::Switch || peer.port >= r->ports.size()) return false;
    r->entered[peer.port] = true;
    r->ports[peer.port] = *was;
    r->portGuids[peer.port] = last_.fabric.port(PortRef{*id, peer.port}).guid;
    ++counts_.portInfos;
    return true;
  }
  // Not reached at all: only a CA, which nothing but this cable leads to.
  if (last_.fabric.node(*id).isSwitch()) return false;
  admitCa(peer, *id, failure.path);
  return true;
}

void Recaller::admitCa(PortKey peer, NodeId lastId, const DrPath& path) {
  const Node& node = last_.fabric.node(lastId);
  NodeRecord r;
  r.info = NodeInfo{.nodeType = node.type,
                    .numPorts = node.numPorts(),
                    .systemImageGuid = node.systemImageGuid,
                    .nodeGuid = node.guid,
                    .portGuid = node.ports[peer.port].guid,
                    .partitionCap = node.partitionCap,
                    .deviceId = node.deviceId,
                    .revision = node.revision,
                    .localPortNum = peer.port,
                    .vendorId = node.vendorId};
  r.path = path;
  r.description = node.description;
  const std::size_t slots = std::size_t{node.numPorts()} + 1;
  r.ports.resize(slots);
  r.portGuids.resize(slots);
  r.entered.resize(slots);
  r.entered[peer.port] = true;
  r.portGuids[peer.port] = node.ports[peer.port].guid;
  r.ports[peer.port] = *lastPortInfo(peer);
  seen_.byGuid.emplace(node.guid, seen_.nodes.size());
  seen_.nodes.push_back(std::move(r));
  ++counts_.nodes;
}

void Recaller::portInfos() {
  forgive([this](const Failure& f) {
    if (f.attribute != AttributeId::PortInfo || !lossy_(f.path) || !recallPortInfo(f)) return false;
    ++counts_.portInfos;
    return true;
  });
}

bool Recaller::recallPortInfo(const Failure& f) {
  const PortInfo* was = lastPortInfo(f.at);
  NodeRecord* r = record(f.at.node);
  if (!was || !r || f.at.port >= r->ports.size()) return false;
  if (f.at.port == 0) {
    // Port 0 of a switch: vouched for by its SwitchInfo, answered this
    // sweep with the LinearFDBTop it last held.
    const auto id = lastNode(f.at.node);
    const bool fresh = std::ranges::find(freshSwitchInfo_, f.at.node) != freshSwitchInfo_.end();
    if (!id || !fresh || !r->switchInfo) return false;
    auto si = last_.switchInfo.find(*id);
    if (si == last_.switchInfo.end() || was->lid.value == 0 ||
        r->switchInfo->linearFdbTop != si->second.linearFdbTop)
      return false;
  } else {
    const auto peer = lastPeer(f.at);
    if (!peer) return false;
    auto out = seen_.probes.find(f.at);
    auto in = seen_.probes.find(*peer);
    const bool proven = (out != seen_.probes.end() && out->second == *peer) ||
                        (in != seen_.probes.end() && in->second == f.at);
    const PortInfo* other = freshPortInfo(*peer);
    if (!proven || landedOnFromOther(f.at, *peer) || !other || other->portState != was->portState)
      return false;
  }
  r->ports[f.at.port] = *was;
  return true;
}

void Recaller::switchInfos() {
  for (const NodeRecord& r : seen_.nodes)
    if (r.switchInfo) freshSwitchInfo_.push_back(r.info.nodeGuid);
  forgive([this](const Failure& f) {
    if (f.attribute != AttributeId::SwitchInfo || !lossy_(f.path)) return false;
    const auto id = lastNode(f.at.node);
    if (!id) return false;
    auto si = last_.switchInfo.find(*id);
    const PortInfo* was = lastPortInfo(PortKey{f.at.node, 0});
    const PortInfo* now = freshPortInfo(PortKey{f.at.node, 0});
    if (si == last_.switchInfo.end() || !was || !now || was->lid.value == 0 || now->lid != was->lid)
      return false;
    record(f.at.node)->switchInfo = si->second;
    ++counts_.switchInfos;
    return true;
  });
}

void Recaller::descriptions() {
  forgive([this](const Failure& f) {
    if (f.attribute != AttributeId::NodeDescription || !lossy_(f.path)) return false;
    const auto id = lastNode(f.at.node);
    if (!id) return false;
    record(f.at.node)->description = last_.fabric.node(*id).description;
    ++counts_.descriptions;
    return true;
  });
}

}  // namespace

bool lossyRoute(const MadLoss& loss, const DrPath& path) {
  return loss.lossRate(MadLoss::bucketOf(path)) >= kLossyShare;
}

RecallCounts recallConfirmed(Observations& seen, const DiscoveredSubnet& last,
                             const LossyRoute& lossy) {
  return Recaller(seen, last, lossy).run();
}

bool wasLinked(const DiscoveredSubnet& last, Guid node, std::uint8_t port) {
  const auto id = last.fabric.findNode(node);
  if (!id || port == 0 || port > last.fabric.node(*id).numPorts()) return false;
  auto pi = last.portInfo.find(PortRef{*id, port});
  return pi != last.portInfo.end() && armedOrActive(pi->second) &&
         last.fabric.port(PortRef{*id, port}).connected();
}

}  // namespace ibsm::sm::discovery
