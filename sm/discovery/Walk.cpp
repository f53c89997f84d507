#include "sm/discovery/Walk.h"

#include <fmt/format.h>

#include "sm/discovery/Recall.h"

namespace ibsm::sm::discovery {
namespace {

// The port an SMP can enter a node by: a cabled port, never port 0.
bool validEntry(const NodeInfo& ni) {
  return ni.localPortNum >= 1 && ni.localPortNum <= ni.numPorts;
}

std::string_view typeName(NodeType t) {
  return t == NodeType::Switch ? "switch" : t == NodeType::Router ? "router" : "CA";
}

}  // namespace

Walk::Walk(MadEngine& engine, const DiscoveryOptions& options)
    : engine_(engine), options_(options) {}

void Walk::ask(SmpRequest request, std::function<void(const SmpReply&)> then) {
  engine_.submit(
      std::move(request),
      [then = std::move(then)](const SmpRequest&, const SmpReply& reply) { then(reply); });
}

void Walk::start() {
  ask(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
      [this](const SmpReply& reply) { onLocalNode(reply); });
}

void Walk::onLocalNode(const SmpReply& reply) {
  if (!reply.ok()) {
    seen_.localFailure =
        fmt::format("NodeInfo of the SM's own node (DR 0) {}", describeFailure(reply));
    return;
  }
  const NodeInfo ni = decodeNodeInfo(reply.smp->data);
  // The local node is entered by the SM's own port: port 0 of a switch, a
  // physical port of a CA.
  const bool isSwitch = ni.nodeType == NodeType::Switch;
  if (isSwitch ? ni.localPortNum != 0 : !validEntry(ni)) {
    seen_.localFailure = fmt::format(
        "NodeInfo of the SM's own node (DR 0) names port {} of a {} with {} ports as the SM's "
        "port",
        ni.localPortNum, typeName(ni.nodeType), ni.numPorts);
    return;
  }
  const std::size_t self = addNode(ni, DrPath{});
  if (isSwitch) {
    readSwitch(self);
  } else {
    readDescription(self);
    enterCaPort(self, ni.localPortNum, ni.portGuid, DrPath{}, /*follow=*/true);
  }
}

std::size_t Walk::addNode(const NodeInfo& info, const DrPath& path) {
  const std::size_t index = seen_.nodes.size();
  NodeRecord r;
  r.info = info;
  r.path = path;
  const std::size_t slots = std::size_t{info.numPorts} + 1;
  r.ports.resize(slots);
  r.portGuids.resize(slots);
  r.entered.resize(slots);
  seen_.nodes.push_back(std::move(r));
  seen_.byGuid.emplace(info.nodeGuid, index);
  return index;
}

void Walk::failRead(std::string id, std::size_t node, std::uint8_t port, AttributeId attribute,
                    const DrPath& path, const SmpReply& reply) {
  seen_.failedReads.push_back(Failure{.id = std::move(id),
                                      .at = {seen_.nodes[node].info.nodeGuid, port},
                                      .attribute = attribute,
                                      .path = path,
                                      .why = describeFailure(reply)});
}

void Walk::readDescription(std::size_t node) {
  if (const auto* known = options_.knownDescriptions) {
    const Guid guid = seen_.nodes[node].info.nodeGuid;
    if (auto it = known->find(guid); it != known->end()) {
      seen_.nodes[node].description = it->second;
      seen_.describedFromBefore.push_back(guid);
      return;
    }
  }
  const DrPath path = seen_.nodes[node].path;
  ask(SmpRequest::get(AttributeId::NodeDescription, 0, path),
      [this, node, path](const SmpReply& reply) {
        if (!reply.ok()) {
          failRead("DISC-0202", node, 0, AttributeId::NodeDescription, path, reply);
          return;
        }
        seen_.nodes[node].description = decodeNodeDescription(reply.smp->data).text;
      });
}

void Walk::readSwitch(std::size_t node) {
  readDescription(node);
  const DrPath path = seen_.nodes[node].path;
  ask(SmpRequest::get(AttributeId::SwitchInfo, 0, path), [this, node, path](const SmpReply& reply) {
    if (!reply.ok()) {
      failRead("DISC-0204", node, 0, AttributeId::SwitchInfo, path, reply);
      return;
    }
    seen_.nodes[node].switchInfo = decodeSwitchInfo(reply.smp->data);
  });
  const std::uint8_t ports = seen_.nodes[node].info.numPorts;
  for (unsigned p = 0; p <= ports; ++p) {
    readPortInfo(node, static_cast<std::uint8_t>(p), path, /*follow=*/p != 0);
  }
}

void Walk::enterCaPort(std::size_t node, std::uint8_t port, Guid portGuid, const DrPath& path,
                       bool follow) {
  NodeRecord& r = seen_.nodes[node];
  r.entered[port] = true;
  r.portGuids[port] = portGuid;
  readPortInfo(node, port, path, follow);
}

void Walk::readPortInfo(std::size_t node, std::uint8_t port, const DrPath& path, bool follow) {
  const std::size_t level = depth(node);
  if (follow) open(level);
  // A CA answers PortInfo for the port the SMP entered by, whatever the
  // modifier says on some implementations; asking for that port is exact on all.
  ask(SmpRequest::get(AttributeId::PortInfo, port, path),
      [this, node, port, path, follow, level](const SmpReply& reply) {
        if (!reply.ok()) {
          failRead("DISC-0203", node, port, AttributeId::PortInfo, path, reply);
          // Lost on a lossy route, of a port the last sweep saw linked: the
          // probe proves the cable again (Recall.h takes the PortInfo).
          if (follow && options_.last && lossyRoute(engine_.loss(), path) &&
              wasLinked(*options_.last, seen_.nodes[node].info.nodeGuid, port))
            wantProbe(node, port);
        } else {
          const PortInfo pi = decodePortInfo(reply.smp->data);
          seen_.nodes[node].ports[port] = pi;
          if (follow && linkUp(pi)) wantProbe(node, port);
        }
        if (follow) close(level);
      });
}

void Walk::open(std::size_t level) {
  if (open_.size() <= level) open_.resize(level + 1, 0);
  ++open_[level];
}

void Walk::close(std::size_t level) {
  --open_[level];
  while (!deferred_.empty() && settledBelow(deferred_.begin()->first)) {
    const auto ports = std::move(deferred_.begin()->second);
    deferred_.erase(deferred_.begin());
    for (const auto& [node, port] : ports)
      if (!landed_.contains({node, port})) probe(node, port);
  }
}

bool Walk::settledBelow(std::size_t level) const {
  for (std::size_t l = 0; l < level && l < open_.size(); ++l)
    if (open_[l] > 0) return false;
  return true;
}

void Walk::wantProbe(std::size_t node, std::uint8_t port) {
  if (landed_.contains({node, port})) return;
  const std::size_t level = depth(node);
  if (settledBelow(level)) {
    probe(node, port);
  } else {
    deferred_[level].emplace_back(node, port);
  }
}

void Walk::probe(std::size_t node, std::uint8_t port) {
  const NodeRecord& r = seen_.nodes[node];
  const PortKey from{r.info.nodeGuid, port};
  auto path = r.path.extended(port);
  if (!path || path->hopCount() > options_.maxHops) {
    seen_.failedProbes.emplace(
        from, Failure{.id = std::string(kNotFollowed),
                      .at = from,
                      .attribute = AttributeId::NodeInfo,
                      .path = r.path,
                      .why = fmt::format("it is not followed: the route would be {} hops, more "
                                         "than {}",
                                         r.path.hopCount() + 1, options_.maxHops)});
    return;
  }
  const std::size_t level = depth(node);
  open(level);
  ask(SmpRequest::get(AttributeId::NodeInfo, 0, *path),
      [this, from, to = *path, level](const SmpReply& reply) {
        onProbe(from, to, reply);
        close(level);
      });
}

void Walk::onProbe(PortKey from, const DrPath& path, const SmpReply& reply) {
  auto failed = [&](std::string id, std::string what) {
    seen_.failedProbes.emplace(
        from, Failure{.id = std::move(id),
                      .at = from,
                      .attribute = AttributeId::NodeInfo,
                      .path = path,
                      .why = fmt::format("NodeInfo through it (DR {}) {}", path, what)});
  };
  if (!reply.ok()) return failed("DISC-0201", describeFailure(reply));
  const NodeInfo ni = decodeNodeInfo(reply.smp->data);
  if (!validEntry(ni)) {
    return failed("DISC-0304",
                  fmt::format("was answered by {} {}, which says the SMP entered by port {} of "
                              "its {}",
                              typeName(ni.nodeType), ni.nodeGuid, ni.localPortNum, ni.numPorts));
  }
  const PortKey to{ni.nodeGuid, ni.localPortNum};
  if (auto known = seen_.byGuid.find(ni.nodeGuid); known != seen_.byGuid.end()) {
    NodeRecord& r = seen_.nodes[known->second];
    if (r.info.nodeType != ni.nodeType || r.info.numPorts != ni.numPorts) {
      return failed("DISC-0303",
                    fmt::format("was answered by GUID {} as a {} with {} ports, but that GUID "
                                "answered at DR {} as a {} with {} ports (two nodes with one "
                                "GUID?)",
                                ni.nodeGuid, typeName(ni.nodeType), ni.numPorts, r.path,
                                typeName(r.info.nodeType), r.info.numPorts));
    }
    seen_.probes.emplace(from, to);
    landed_.emplace(known->second, to.port);
    if (ni.nodeType != NodeType::Switch && !r.entered[to.port]) {
      enterCaPort(known->second, to.port, ni.portGuid, path, /*follow=*/false);
    }
    return;
  }
  seen_.probes.emplace(from, to);
  const std::size_t node = addNode(ni, path);
  landed_.emplace(node, to.port);
  if (ni.nodeType == NodeType::Switch) {
    readSwitch(node);
  } else {
    readDescription(node);
    enterCaPort(node, to.port, ni.portGuid, path, /*follow=*/false);
  }
}

}  // namespace ibsm::sm::discovery
