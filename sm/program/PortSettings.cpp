#include "PortSettings.h"

#include <algorithm>

#include "PKeyPlan.h"

namespace ibsm::sm {
namespace {

bool isLinkPort(const Fabric& fabric, PortRef port) {
  return !(fabric.node(port.node).isSwitch() && port.port == 0);
}

// The PortInfo read from the other end of the port's cable, if any.
const PortInfo* peerInfo(const DiscoveredSubnet& discovered, PortRef port) {
  const auto& remote = discovered.fabric.port(port).remote;
  if (!remote) return nullptr;
  auto it = discovered.portInfo.find(*remote);
  return it == discovered.portInfo.end() ? nullptr : &it->second;
}

bool isUp(PortState s) {
  return s == PortState::Init || s == PortState::Armed || s == PortState::Active;
}

}  // namespace

PortSetting portSetting(const DiscoveredSubnet& discovered, const SubnetPlan& plan, PortRef port,
                        const PortInfo& held, Lid smLid, const ProgramOptions& options) {
  const Node& node = discovered.fabric.node(port.node);
  PortInfo want = held;
  // Writing 0 leaves these alone; writing back the value read could make
  // a port renegotiate its link (ibsim even retrains to the enabled speed).
  want.portState = PortState::NoChange;
  want.physState = 0;
  want.linkDownDefaultState = 0;
  want.linkWidthEnabled = 0;
  want.linkSpeedEnabled = 0;
  want.linkSpeedExtEnabled = 0;

  bool changed = false;
  auto update = [&changed](auto& field, auto value) {
    if (field != value) changed = true;
    field = value;
  };

  // Only switch port 0 and CA ports carry a LID; on switch link ports
  // these fields are reserved, and writing them would never read back.
  const bool carriesLid = !node.isSwitch() || port.port == 0;
  if (carriesLid) {
    const Port& planned = plan.fabric.port(port);
    update(want.lid, planned.lid);
    update(want.lmc, planned.lmc);
    update(want.masterSmLid, smLid);
    update(want.gidPrefix, options.subnetPrefix);
  }
  // Link parameters are negotiated per link and may only change before the
  // link carries data, so an Armed or Active port keeps what it has.
  if (isLinkPort(discovered.fabric, port) && held.portState == PortState::Init) {
    if (const PortInfo* peer = peerInfo(discovered, port)) {
      update(want.neighborMtu, std::min(held.mtuCap, peer->mtuCap));
      // IBA: OperationalVLs must not exceed VLCap, at either end.
      update(want.operationalVls, std::min(held.vlCap, peer->vlCap));
    }
  }
  bool enforcementChanged = false;
  // Enforcement is the partition plan's: a listed switch external port
  // filters exactly when the plan says so and the switch can.
  if (plan.pkeys && node.isSwitch() && port.port != 0) {
    if (const PortPKeys* entry = findPort(*plan.pkeys, port)) {
      const bool enforce = entry->enforce && enforcesPartitions(discovered, port.node);
      enforcementChanged = want.partitionEnforcementInbound != enforce ||
                           want.partitionEnforcementOutbound != enforce;
      want.partitionEnforcementInbound = enforce;
      want.partitionEnforcementOutbound = enforce;
    }
  }
  if (options.clientReregister && !node.isSwitch() &&
      (held.capabilityMask & capability::kIsClientReregistrationSupported) != 0) {
    update(want.clientReregister, true);
  }
  return PortSetting{.desired = want,
                     .changed = changed || enforcementChanged,
                     .onlyEnforcement = !changed && enforcementChanged};
}

LinkSteps linkSteps(const DiscoveredSubnet& discovered, PortRef port, const PortInfo& held) {
  if (!isLinkPort(discovered.fabric, port)) return {};
  const PortInfo* peer = peerInfo(discovered, port);
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

}  // namespace ibsm::sm
