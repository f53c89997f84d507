#include "tests/sm/discovery/DiscoveryChecks.h"

#include <fmt/format.h>

#include <algorithm>

namespace ibsm::testing {
namespace {

std::string endName(const Fabric& f, PortRef p) {
  return fmt::format("{}[{}]", f.node(p.node).guid, p.port);
}

class Comparer {
 public:
  Comparer(const Fabric& expected, const Fabric& actual, Compare what)
      : e_(expected), a_(actual), all_(what == Compare::Everything) {}

  std::vector<std::string> run() {
    for (NodeId id = 0; id < e_.size(); ++id) {
      const Node& en = e_.node(id);
      auto found = a_.findNode(en.guid);
      if (!found) {
        diff("node \"{}\" ({}) was not discovered", en.description, en.guid);
        continue;
      }
      node(en, a_.node(*found));
    }
    for (const Node& an : a_.nodes())
      if (!e_.findNode(an.guid)) diff("unexpected node \"{}\" ({})", an.description, an.guid);
    const auto ec = cableList(e_);
    const auto ac = cableList(a_);
    for (const auto& c : ec)
      if (!std::ranges::binary_search(ac, c)) diff("cable {} missing", c);
    for (const auto& c : ac)
      if (!std::ranges::binary_search(ec, c)) diff("unexpected cable {}", c);
    return std::move(diffs_);
  }

 private:
  template <typename... Args>
  void diff(fmt::format_string<Args...> f, Args&&... args) {
    diffs_.push_back(fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename T>
  void field(const Node& n, int port, std::string_view what, const T& e, const T& a) {
    if (e == a) return;
    if (port < 0)
      diff("\"{}\" {}: expected {}, found {}", n.description, what, e, a);
    else
      diff("\"{}\"[{}] {}: expected {}, found {}", n.description, port, what, e, a);
  }

  void node(const Node& e, const Node& a) {
    field(e, -1, "type", static_cast<int>(e.type), static_cast<int>(a.type));
    field(e, -1, "description", e.description, a.description);
    field(e, -1, "system image GUID", e.systemImageGuid, a.systemImageGuid);
    field(e, -1, "port count", e.ports.size(), a.ports.size());
    if (all_) {
      field(e, -1, "vendor id", e.vendorId, a.vendorId);
      field(e, -1, "device id", e.deviceId, a.deviceId);
      field(e, -1, "revision", e.revision, a.revision);
      field(e, -1, "partition cap", e.partitionCap, a.partitionCap);
      field(e, -1, "has SwitchData", e.switchData.has_value(), a.switchData.has_value());
      if (e.switchData && a.switchData) {
        const SwitchData& es = *e.switchData;
        const SwitchData& as = *a.switchData;
        field(e, -1, "LinearFDBCap", es.linearFdbCap, as.linearFdbCap);
        field(e, -1, "LinearFDBTop", es.linearFdbTop, as.linearFdbTop);
        field(e, -1, "MulticastFDBCap", es.multicastFdbCap, as.multicastFdbCap);
        field(e, -1, "enforces partitions", es.enforcesPartitions, as.enforcesPartitions);
        field(e, -1, "enhanced port 0", es.enhancedPort0, as.enhancedPort0);
      }
    }
    if (e.ports.size() != a.ports.size()) return;
    for (std::size_t p = e.isSwitch() ? 0 : 1; p < e.ports.size(); ++p) {
      if (!e.isSwitch() && !e.ports[p].connected()) continue;
      port(e, static_cast<int>(p), e.ports[p], a.ports[p]);
    }
  }

  void port(const Node& n, int p, const Port& e, const Port& a) {
    field(n, p, "port GUID", e.guid, a.guid);
    if (!all_) return;
    field(n, p, "LID", e.lid, a.lid);
    field(n, p, "LMC", e.lmc, a.lmc);
    field(n, p, "state", static_cast<int>(e.state), static_cast<int>(a.state));
    field(n, p, "physical state", e.physState, a.physState);
    field(n, p, "width supported", e.link.widthSupported, a.link.widthSupported);
    field(n, p, "width enabled", e.link.widthEnabled, a.link.widthEnabled);
    field(n, p, "width active", e.link.widthActive, a.link.widthActive);
    field(n, p, "speed supported", e.link.speedSupported, a.link.speedSupported);
    field(n, p, "speed enabled", e.link.speedEnabled, a.link.speedEnabled);
    field(n, p, "speed active", e.link.speedActive, a.link.speedActive);
    field(n, p, "extended speed active", e.link.extSpeedActive, a.link.extSpeedActive);
    field(n, p, "MTU cap", e.mtuCap, a.mtuCap);
    field(n, p, "VL cap", e.vlCap, a.vlCap);
    field(n, p, "capability mask", e.capabilityMask, a.capabilityMask);
  }

  const Fabric& e_;
  const Fabric& a_;
  bool all_;
  std::vector<std::string> diffs_;
};

}  // namespace

std::vector<std::string> compareFabrics(const Fabric& expected, const Fabric& actual,
                                        Compare what) {
  return Comparer(expected, actual, what).run();
}

std::vector<NodeId> nodesOnPath(const Fabric& fabric, PortRef smPort,
                                std::span<const std::uint8_t> ports) {
  std::vector<NodeId> nodes{smPort.node};
  PortRef at = smPort;
  for (std::size_t hop = 0; hop < ports.size(); ++hop) {
    const Node& node = fabric.node(at.node);
    if (hop > 0 && !node.isSwitch()) break;
    if (ports[hop] == 0 || ports[hop] > node.numPorts()) break;
    const auto& remote = node.ports[ports[hop]].remote;
    if (!remote) break;
    at = *remote;
    nodes.push_back(at.node);
  }
  return nodes;
}

std::optional<PortRef> followPath(const Fabric& fabric, PortRef smPort, const DrPath& path) {
  PortRef at = smPort;
  for (std::uint8_t hop = 1; hop <= path.hopCount(); ++hop) {
    const Node& node = fabric.node(at.node);
    if (hop > 1 && !node.isSwitch()) return std::nullopt;
    const std::uint8_t exit = path.port(hop);
    if (exit == 0 || exit > node.numPorts() || !node.ports[exit].remote) return std::nullopt;
    at = *node.ports[exit].remote;
  }
  return at;
}

PortRef firstNodePort(const Fabric& fabric) {
  const Node& first = fabric.node(0);
  if (first.isSwitch()) return PortRef{0, 0};
  for (std::uint8_t p = 1; p <= first.numPorts(); ++p)
    if (first.ports[p].connected()) return PortRef{0, p};
  return PortRef{0, 1};
}

std::vector<std::string> cableList(const Fabric& fabric) {
  std::vector<std::string> out;
  for (NodeId id = 0; id < fabric.size(); ++id) {
    const Node& n = fabric.node(id);
    for (std::uint8_t p = 1; p <= n.numPorts(); ++p) {
      const auto& remote = n.ports[p].remote;
      if (!remote) continue;
      const PortRef here{id, p};
      auto a = endName(fabric, here);
      auto b = endName(fabric, *remote);
      if (a < b) out.push_back(a + "-" + b);
    }
  }
  std::ranges::sort(out);
  return out;
}

}  // namespace ibsm::testing
