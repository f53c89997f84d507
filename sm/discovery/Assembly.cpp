#include "sm/discovery/Assembly.h"

#include <fmt/format.h>

#include <map>

namespace ibsm::sm::discovery {
namespace {

std::string_view attributeName(AttributeId id) {
  switch (id) {
    case AttributeId::NodeDescription:
      return "NodeDescription";
    case AttributeId::PortInfo:
      return "PortInfo";
    case AttributeId::SwitchInfo:
      return "SwitchInfo";
    default:
      return "NodeInfo";
  }
}

std::string_view stateName(PortState s) {
  switch (s) {
    case PortState::Down:
      return "Down";
    case PortState::Init:
      return "Init";
    case PortState::Armed:
      return "Armed";
    case PortState::Active:
      return "Active";
    default:
      return "NoChange";
  }
}

class Assembler {
 public:
  explicit Assembler(const Observations& seen) : seen_(seen) {
    for (const auto& [from, to] : seen_.probes) landings_[to].push_back(from);
  }

  DiscoveredSubnet run() {
    for (const NodeRecord& r : seen_.nodes) addNode(r);
    out_.smPort = PortRef{0, seen_.nodes.front().info.localPortNum};
    addCables();
    reportUnconfirmed();
    reportReads();
    return std::move(out_);
  }

 private:
  const NodeRecord& record(PortKey k) const { return seen_.nodes[seen_.byGuid.at(k.node)]; }
  PortRef ref(PortKey k) const {
    return PortRef{static_cast<NodeId>(seen_.byGuid.at(k.node)), k.port};
  }
  std::string name(PortKey k) const {
    return fmt::format("\"{}\"[{}] ({})", record(k).description.value_or("?"), k.port, k.node);
  }
  const PortInfo* portInfo(PortKey k) const {
    const auto& pi = record(k).ports[k.port];
    return pi ? &*pi : nullptr;
  }
  std::size_t landingsOn(PortKey k) const {
    auto it = landings_.find(k);
    return it == landings_.end() ? 0 : it->second.size();
  }

  // Whether `end` agrees that its cable leads to `other`, which probed it.
  // An end that sent NodeInfo out of itself agrees when that NodeInfo
  // landed on `other`. An end never probed -- a CA port, a port at the hop
  // limit, and a switch port the walk did not probe back because `other`'s
  // probe had landed on it (Walk.h) -- agrees when its own PortInfo says
  // the link is up and nothing else landed on it. That is enough: the
  // landing proves the SMP left by `other` and entered by `end`, and a link
  // joins exactly two ports, so the cable is other-end; the PortInfo proves
  // `end` holds the link up itself. A port up with no probe of its own and
  // no landing, or with two landings, confirms nothing (DISC-0310,
  // DISC-0307): no half cable is ever recorded.
  bool confirms(PortKey end, PortKey other) const {
    if (auto it = seen_.probes.find(end); it != seen_.probes.end()) return it->second == other;
    if (auto it = seen_.failedProbes.find(end);
        it != seen_.failedProbes.end() && it->second.id != kNotFollowed)
      return false;
    const PortInfo* pi = portInfo(end);
    return pi && linkUp(*pi) && landingsOn(end) == 1;
  }

  void addNode(const NodeRecord& r);
  void addCables();
  void reportUnconfirmed();
  std::string whyUnconfirmed(PortKey k) const;
  std::string whyFarEndDisagrees(PortKey near, PortKey far) const;
  void reportReads();

  const Observations& seen_;
  std::map<PortKey, std::vector<PortKey>> landings_;  // port entered -> ports probed
  DiscoveredSubnet out_;
};

void Assembler::addNode(const NodeRecord& r) {
  const NodeInfo& ni = r.info;
  const bool isSwitch = ni.nodeType == NodeType::Switch;
  const std::string description = r.description.value_or("");
  Node node;
  if (isSwitch) {
    node = Node::makeSwitch(ni.nodeGuid, ni.numPorts, description);
    for (Port& p : node.ports) p.guid = ni.portGuid;  // a switch has one port GUID
  } else {
    node = Node::makeCa(ni.nodeGuid, {r.portGuids.begin() + 1, r.portGuids.end()}, description);
    node.type = ni.nodeType;
  }
  node.systemImageGuid = ni.systemImageGuid;
  node.vendorId = ni.vendorId;
  node.deviceId = ni.deviceId;
  node.partitionCap = ni.partitionCap;
  node.revision = ni.revision;
  const auto id = static_cast<NodeId>(out_.fabric.size());
  for (std::size_t p = 0; p < r.ports.size(); ++p) {
    if (!r.ports[p]) continue;
    fillPort(node.ports[p], *r.ports[p], !isSwitch || p == 0);
    out_.portInfo.emplace(PortRef{id, static_cast<std::uint8_t>(p)}, *r.ports[p]);
  }
  if (r.switchInfo) {
    const SwitchInfo& si = *r.switchInfo;
    node.switchData = SwitchData{.linearFdbCap = si.linearFdbCap,
                                 .linearFdbTop = si.linearFdbTop,
                                 .multicastFdbCap = si.multicastFdbCap,
                                 .enforcesPartitions = si.partitionEnforcementCap > 0,
                                 .enhancedPort0 = si.enhancedPort0};
    out_.switchInfo.emplace(id, si);
  }
  // Port GUIDs must be unique in a Fabric; a clash is the hardware's (or a
  // forger's) fault, and naming the port beats dropping the node.
  for (const std::uint8_t p : node.endpointPorts()) {
    Port& port = node.ports[p];
    if (!port.guid) continue;
    if (auto other = out_.fabric.findPort(port.guid)) {
      out_.problems.push_back(fmt::format(
          "DISC-0305 port GUID {} of \"{}\"[{}] ({}) is already the GUID of {}; recorded without "
          "a port GUID",
          port.guid, description, p, ni.nodeGuid, out_.fabric.describe(*other)));
      port.guid = Guid{};
    }
  }
  // Node GUIDs are unique by construction (the walk keys nodes by them).
  out_.fabric.addNode(std::move(node)).value();
  out_.pathTo.push_back(r.path);
}

void Assembler::addCables() {
  for (const auto& [near, far] : seen_.probes) {
    if (!confirms(far, near)) continue;
    const PortRef a = ref(near);
    const PortRef b = ref(far);
    if (out_.fabric.port(a).remote == b) continue;  // met from its other end already
    // Each end confirms exactly one peer, so no port can be claimed twice.
    out_.fabric.connect(a, b).value();
  }
}

std::string Assembler::whyFarEndDisagrees(PortKey near, PortKey far) const {
  const std::string leads = fmt::format("{} leads to {}", name(near), name(far));
  if (auto back = seen_.probes.find(far); back != seen_.probes.end())
    return fmt::format("DISC-0301 {}, but {} leads to {}", leads, name(far), name(back->second));
  if (auto failed = seen_.failedProbes.find(far);
      failed != seen_.failedProbes.end() && failed->second.id != kNotFollowed)
    return fmt::format("DISC-0308 {}, but {}", leads, failed->second.why);
  if (landingsOn(far) > 1) {
    std::string others;
    for (const PortKey o : landings_.at(far))
      if (o != near) others += fmt::format("{}{}", others.empty() ? "" : ", ", name(o));
    return fmt::format("DISC-0306 {}, but so does {}", leads, others);
  }
  if (const PortInfo* pi = portInfo(far))
    return fmt::format("DISC-0302 {}, which reports its link {} (changed during the sweep?)", leads,
                       stateName(pi->portState));
  return fmt::format("DISC-0309 {}, whose PortInfo could not be read", leads);
}

std::string Assembler::whyUnconfirmed(PortKey k) const {
  if (auto failed = seen_.failedProbes.find(k); failed != seen_.failedProbes.end())
    return fmt::format("{} {} is up, but {}", failed->second.id, name(k), failed->second.why);
  if (auto probe = seen_.probes.find(k); probe != seen_.probes.end())
    return whyFarEndDisagrees(k, probe->second);
  if (landingsOn(k) > 1) {
    std::string from;
    for (const PortKey o : landings_.at(k))
      from += fmt::format("{}{}", from.empty() ? "" : ", ", name(o));
    return fmt::format("DISC-0307 {} is reached from {} at once", name(k), from);
  }
  return fmt::format("DISC-0310 {} is up, but no peer confirmed its cable", name(k));
}

void Assembler::reportUnconfirmed() {
  for (NodeId id = 0; id < seen_.nodes.size(); ++id) {
    const NodeRecord& r = seen_.nodes[id];
    const bool isSwitch = r.info.nodeType == NodeType::Switch;
    for (std::size_t p = 1; p < r.ports.size(); ++p) {
      const auto port = static_cast<std::uint8_t>(p);
      // A CA port not entered was never asked about; only entered ones count.
      if (!r.ports[p] || !linkUp(*r.ports[p]) || (!isSwitch && !r.entered[p])) continue;
      if (out_.fabric.port({id, port}).connected()) continue;
      out_.unconfirmedLinks.push_back(PortRef{id, port});
      out_.problems.push_back(whyUnconfirmed(PortKey{r.info.nodeGuid, port}) +
                              "; recorded as not connected");
    }
  }
}

void Assembler::reportReads() {
  for (const Failure& f : seen_.failedReads) {
    const std::string what = f.attribute == AttributeId::PortInfo
                                 ? fmt::format("PortInfo of {}", name(f.at))
                                 : fmt::format("{} of \"{}\" ({})", attributeName(f.attribute),
                                               record(f.at).description.value_or("?"), f.at.node);
    std::string_view consequence = "";
    if (f.attribute == AttributeId::PortInfo) consequence = "; the port is recorded as down";
    if (f.attribute == AttributeId::SwitchInfo)
      consequence = "; its forwarding table sizes are unknown, it cannot be programmed";
    if (f.attribute == AttributeId::NodeDescription) consequence = "; description left empty";
    out_.problems.push_back(fmt::format("{} {} (DR {}) could not be read: {}{}", f.id, what, f.path,
                                        f.why, consequence));
  }
}

}  // namespace

DiscoveredSubnet assembleSubnet(const Observations& seen) {
  return Assembler(seen).run();
}

}  // namespace ibsm::sm::discovery
