// diff()'s PortInfo part: the PortInfo each port should hold under the
// plan, computed from the one it holds (read-modify-write), and the link
// state steps (Armed, then Active) of ports whose link is up at both ends.
#include <fmt/format.h>

#include <algorithm>

#include "sm/program/Diff.h"
#include "sm/program/DiffParts.h"

namespace ibsm::sm::program {
namespace {

bool isLinkPort(const Fabric& fabric, PortRef port) {
  return !(fabric.node(port.node).isSwitch() && port.port == 0);
}

// The PortInfo held at the other end of the port's cable, if any.
const PortInfo* peerInfo(const discovery::DiscoveredSubnet& seen, PortRef port) {
  const auto& remote = seen.fabric.port(port).remote;
  if (!remote) return nullptr;
  auto it = seen.portInfo.find(*remote);
  return it == seen.portInfo.end() ? nullptr : &it->second;
}

bool isUp(PortState s) {
  return s == PortState::Init || s == PortState::Armed || s == PortState::Active;
}

bool enforcesPartitions(const discovery::DiscoveredSubnet& seen, NodeId sw) {
  auto si = seen.switchInfo.find(sw);
  return si != seen.switchInfo.end() && si->second.partitionEnforcementCap > 0;
}

struct PortSetting {
  PortInfo desired;  // PortState NoChange; enable fields "no change"
  bool changed{false};
  // Differs from what is held in its M_Key protection only.
  bool keyOnly{false};
  // Differs from what is held only in fields that may wait for a state Set
  // the port gets anyway (HOQLife): a Set of its own only if none comes.
  bool changedLater{false};
};

// The HOQLife a switch external port should hold, by what its cable leads
// to (OpenSM's rule); nullopt: not configured, switch port 0, no cable.
std::optional<std::uint8_t> wantedHoqLife(const DiffInput& in, PortRef port) {
  const Fabric& fabric = in.seen.fabric;
  if (!fabric.node(port.node).isSwitch() || port.port == 0) return std::nullopt;
  const auto& remote = fabric.port(port).remote;
  if (!remote) return std::nullopt;
  return fabric.node(remote->node).isSwitch() ? in.options.headOfQueueLifetime
                                              : in.options.leafHeadOfQueueLifetime;
}

// What the port holds, with every field whose write could disturb it left
// "no change".
PortInfo heldAsNoChange(const PortInfo& held) {
  PortInfo want = held;
  // Writing 0 leaves these alone; writing back the value read could make
  // a port renegotiate its link (ibsim even retrains to the enabled speed).
  want.portState = PortState::NoChange;
  want.physState = 0;
  want.linkDownDefaultState = 0;
  want.linkWidthEnabled = 0;
  want.linkSpeedEnabled = 0;
  want.linkSpeedExtEnabled = 0;
  // A request to the port's clients, not a state: only when due (below).
  want.clientReregister = false;
  return want;
}

// Sets `field` to `value`; true when it held something else.
template <typename Field, typename Value>
bool update(Field& field, Value value) {
  const bool differs = field != value;
  field = value;
  return differs;
}

// The LID, LMC, SM LID and prefix of switch port 0 and CA ports; true when
// one differs.
bool setAddresses(const DiffInput& in, PortRef port, PortInfo& want) {
  const Port& planned = in.plan.fabric.port(port);
  bool changed = update(want.lid, planned.lid);
  changed |= update(want.lmc, planned.lmc);
  changed |= update(want.masterSmLid, in.smLid);
  changed |= update(want.gidPrefix, in.options.subnetPrefix);
  // Rides on the Sets the port gets anyway, never one of its own: ibsim
  // (as OpenSM sees too) acknowledges it but keeps 31, so a Set for it
  // alone would be sent again every sweep, and a restart that finds the
  // fabric as it wants it must write nothing.
  want.subnetTimeout = in.options.subnetTimeout;
  return changed;
}

// The M_Key protection of switch port 0 and CA ports; true when it differs
// from what the port holds, unless the port keeps no key (HeldSubnet).
bool setProtection(const DiffInput& in, const Node& node, PortRef port, PortInfo& want) {
  const ProgramOptions& o = in.options;
  if (!o.mKeys.enabled() || in.held.keepsNoMKey(PortKey{node.guid, port.port})) return false;
  const Guid guid = node.ports[port.port].guid ? node.ports[port.port].guid : node.guid;
  bool changed = update(want.mKey, in.held.keyCache().keysFor(o.mKeys, guid.value).current);
  changed |= update(want.mKeyProtectBits, o.mKeyProtectBits);
  changed |= update(want.mKeyLeasePeriod, o.mKeyLeaseSeconds);
  return changed;
}

// Link parameters are negotiated per link and may only change before the
// link carries data, so an Armed or Active port keeps what it has.
bool setLinkParameters(const DiffInput& in, PortRef port, const PortInfo& held, PortInfo& want) {
  if (!isLinkPort(in.seen.fabric, port) || held.portState != PortState::Init) return false;
  const PortInfo* peer = peerInfo(in.seen, port);
  if (peer == nullptr) return false;
  bool changed = update(want.neighborMtu, std::min(held.mtuCap, peer->mtuCap));
  changed |= update(want.operationalVls, operationalVlsAfterSweep(in.seen, port));
  return changed;
}

// VLHighLimit of a port plan.qosTables gives VLArbitration tables: the
// high-priority bytes sent before a low-priority packet may go (OpenSM's
// qos_*_high_limit), written with the tables, every port its own.
// A port known to keep none (HeldSubnet) is not asked again.
bool setHighLimit(const DiffInput& in, const Node& node, PortRef port, PortInfo& want) {
  const qos::QosVlArb* planned = findQosVlArb(in.plan, port);
  if (planned == nullptr || in.held.keepsNoHighLimit(PortKey{node.guid, port.port})) return false;
  return update(want.vlHighLimit, planned->highLimit);
}

// Enforcement is the partition plan's: a listed switch external port
// filters exactly when the plan says so and the switch can -- unless the
// port is known to keep its own bits whatever it is told.
bool setEnforcement(const DiffInput& in, const Node& node, PortRef port, PortInfo& want) {
  if (!in.plan.pkeys || !node.isSwitch() || port.port == 0 ||
      in.held.ignoresEnforcement(PortKey{node.guid, port.port})) {
    return false;
  }
  const PortPKeys* entry = findPort(*in.plan.pkeys, port);
  if (entry == nullptr) return false;
  const bool enforce = entry->enforce && enforcesPartitions(in.seen, port.node);
  bool changed = update(want.partitionEnforcementInbound, enforce);
  changed |= update(want.partitionEnforcementOutbound, enforce);
  return changed;
}

PortSetting portSetting(const DiffInput& in, PortRef port, const PortInfo& held) {
  const Node& node = in.seen.fabric.node(port.node);
  PortInfo want = heldAsNoChange(held);
  bool changed = false;
  // Only switch port 0 and CA ports carry a LID; on switch link ports
  // these fields are reserved, and writing them would never read back.
  bool keyChanged = false;
  if (!node.isSwitch() || port.port == 0) {
    changed |= setAddresses(in, port, want);
    keyChanged = setProtection(in, node, port, want);
  }
  changed |= setLinkParameters(in, port, held, want);
  changed |= setEnforcement(in, node, port, want);
  changed |= setHighLimit(in, node, port, want);
  bool changedLater = false;
  if (const auto hoq = wantedHoqLife(in, port); hoq && want.hoqLife != *hoq) {
    want.hoqLife = *hoq;
    changedLater = true;
  }
  // Due or not, a port answers with the bit as it likes: always a Set.
  if (in.options.clientReregister && !node.isSwitch() &&
      (held.capabilityMask & capability::kIsClientReregistrationSupported) != 0 &&
      in.held.reregisterDue(PortKey{node.guid, port.port})) {
    want.clientReregister = true;
    changed = true;
  }
  return PortSetting{.desired = want,
                     .changed = changed || keyChanged,
                     .keyOnly = keyChanged && !changed,
                     .changedLater = changedLater};
}

// Link ports (not switch port 0) whose both ends answered and are up.
struct LinkSteps {
  bool arm{false};       // Init now: Armed first
  bool activate{false};  // then Active
};
LinkSteps linkSteps(const discovery::DiscoveredSubnet& seen, PortRef port, const PortInfo& held) {
  if (!isLinkPort(seen.fabric, port)) return {};
  const PortInfo* peer = peerInfo(seen, port);
  if (peer == nullptr || !isUp(peer->portState)) return {};
  switch (held.portState) {
    case PortState::Init:
      return LinkSteps{.arm = true, .activate = true};
    case PortState::Armed:
      return LinkSteps{.arm = false, .activate = true};
    default:
      return {};
  }
}

SmpRequest setPortInfo(PortRef port, const DrPath& path, const PortInfo& info) {
  return SmpRequest::set(AttributeId::PortInfo, port.port, path, encode(info));
}

// One note for the link ports whose OperationalVLs (as they will hold it)
// is below what their SL2VL tables send: packets on the missing VLs drop.
void noteShortVls(const Fabric& fabric,
                  const std::vector<std::pair<PortRef, std::uint8_t>>& shortPorts,
                  const std::unordered_map<PortRef, std::uint8_t>& needed, ProgramDiff& out) {
  if (shortPorts.empty()) return;
  std::vector<std::string> examples;
  for (std::size_t i = 0; i < shortPorts.size() && i < 5; ++i) {
    const auto& [port, runs] = shortPorts[i];
    examples.push_back(
        fmt::format("{} runs {} of {}", fabric.describe(port), runs, needed.at(port)));
  }
  out.notes.push_back(fmt::format(
      "{} link ports run fewer data VLs (PortInfo:OperationalVLs) than their SL2VL tables send "
      "on, e.g. {}; packets on the missing VLs are dropped. OperationalVLs changes only while a "
      "link is in Init: take such links down and up, or lower routing.max_vls",
      shortPorts.size(), fmt::join(examples, ", ")));
}

}  // namespace

std::uint8_t operationalVlsAfterSweep(const discovery::DiscoveredSubnet& seen, PortRef port) {
  auto it = seen.portInfo.find(port);
  if (it == seen.portInfo.end()) return 0;
  const PortInfo& held = it->second;
  const PortInfo* peer = peerInfo(seen, port);
  // IBA: OperationalVLs must not exceed VLCap, at either end; it may change
  // only before the link carries data.
  if (isLinkPort(seen.fabric, port) && held.portState == PortState::Init && peer != nullptr)
    return std::min(held.vlCap, peer->vlCap);
  return held.operationalVls;
}

void diffPorts(const DiffInput& in, ProgramDiff& out) {
  const Fabric& fabric = in.seen.fabric;
  std::vector<PortRef> ports;
  for (const auto& [ref, info] : in.seen.portInfo) ports.push_back(ref);
  std::ranges::sort(ports);  // a stable order of SMPs, whatever the map's
  const auto vlsWanted = vlsNeeded(fabric, in.plan.routing.sl2vl);
  std::vector<std::pair<PortRef, std::uint8_t>> shortVls;
  for (const PortRef ref : ports) {
    const PortInfo& held = in.seen.portInfo.at(ref);
    const PortSetting setting = portSetting(in, ref, held);
    if (auto need = vlsWanted.find(ref); need != vlsWanted.end()) {
      const std::uint8_t runs = dataVls(setting.desired.operationalVls);
      if (runs < need->second) shortVls.emplace_back(ref, runs);
    }
    const LinkSteps link = linkSteps(in.seen, ref, held);
    // A port to be armed gets its new fields (LID, MasterSMLID, partition
    // enforcement, HOQLife) in the Armed Set itself: one Set where a
    // Lids-phase Set and the Armed Set went before. They may wait that long:
    // a port carries no data before Active. Not folded: NeighborMTU and
    // OperationalVLs, which IBA lets a port take only while in Init, so a
    // Set that also leaves Init could see them refused; and the SM's own
    // port, whose LID every other port is told.
    const bool linkParameters = setting.desired.neighborMtu != held.neighborMtu ||
                                setting.desired.operationalVls != held.operationalVls;
    const bool foldIntoArm = link.arm && !linkParameters && ref != in.seen.smPort;
    // What may wait rides on the state Sets; a port that gets none is sent
    // a Set of its own.
    const bool setFields =
        !foldIntoArm && (setting.changed || (setting.changedLater && !link.arm && !link.activate));
    if (!setFields && !link.arm && !link.activate) continue;
    auto path = pathToPort(in.seen, ref);
    if (!path) {
      out.notes.push_back(fmt::format("port {}: no directed route enters through it; left alone",
                                      fabric.describe(ref)));
      continue;
    }
    if (setFields) {
      const PortInfoTarget target{ref, setting.keyOnly};
      out.phase(ref == in.seen.smPort ? ProgramPhase::SmLid : ProgramPhase::Lids)
          .push_back(ProgramStep{target, setPortInfo(ref, *path, setting.desired)});
    }
    // State Sets carry the new fields too: a Set writes the whole PortInfo;
    // but the clients are asked to re-register once, by the first Set.
    PortInfo next = setting.desired;
    next.clientReregister = foldIntoArm && setting.desired.clientReregister;
    if (link.arm) {
      next.portState = PortState::Armed;
      out.phase(ProgramPhase::Armed)
          .push_back(ProgramStep{PortInfoTarget{ref}, setPortInfo(ref, *path, next)});
    }
    if (link.activate) {
      next.clientReregister = false;
      next.portState = PortState::Active;
      out.phase(ProgramPhase::Active)
          .push_back(ProgramStep{PortInfoTarget{ref}, setPortInfo(ref, *path, next)});
    }
  }
  noteShortVls(fabric, shortVls, vlsWanted, out);
}

}  // namespace ibsm::sm::program
