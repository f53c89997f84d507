#include "sm/program/HeldSubnet.h"

#include <ibsm/Routing.h>

namespace ibsm::sm::program {
namespace {

template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};

// Whether switch `sw` was last told of an SM other than the one whose
// port observed it (HeldSubnet.h: its blocks are then written unread).
bool programmedByAnother(const discovery::DiscoveredSubnet& seen, NodeId sw) {
  auto mine = seen.portInfo.find(seen.smPort);
  auto its = seen.portInfo.find(PortRef{sw, 0});
  if (mine == seen.portInfo.end() || its == seen.portInfo.end()) return false;
  const Lid master = its->second.masterSmLid;
  return master.value != 0 && master != mine->second.lid;
}

bool holdsLid(const discovery::DiscoveredSubnet& seen, PortRef port) {
  auto it = seen.portInfo.find(port);
  return it != seen.portInfo.end() && it->second.lid.value != 0;
}

// A port no SM has configured since its reset: read, with no LID and no
// M_Key. (`lidPort`: the port that carries its node's LID -- switch port 0
// for every port of a switch.)
bool unconfigured(const discovery::DiscoveredSubnet& seen, PortRef lidPort) {
  auto it = seen.portInfo.find(lidPort);
  return it != seen.portInfo.end() && it->second.lid.value == 0 && it->second.mKey == 0;
}

// The PKey table a port holds after its reset (IBA 10.9.2): the default
// P_Key 0xFFFF at index 0, every other entry 0 (no partition) -- as ibsim
// makes it (a zeroed table, 0xFFFF in entry 0).
PKeyBlock defaultPKeyBlock(std::uint16_t index) {
  PKeyBlock b;
  if (index == 0) b.pkeys[0] = 0xFFFF;
  return b;
}

}  // namespace

std::uint16_t pkeyEntries(const discovery::DiscoveredSubnet& seen, NodeId n, std::uint8_t port) {
  const Node& node = seen.fabric.node(n);
  if (!node.isSwitch() || port == 0) return node.partitionCap;
  auto si = seen.switchInfo.find(n);
  return si == seen.switchInfo.end() ? 0 : si->second.partitionEnforcementCap;
}

void HeldSubnet::observe(discovery::DiscoveredSubnet seen) {
  std::set<Guid> newSwitches;
  for (const NodeId sw : seen.fabric.switches()) {
    const Guid guid = seen.fabric.node(sw).guid;
    if (!lftTops_.contains(guid)) newSwitches.insert(guid);
  }
  admitLfts(seen);
  dropResetNodes(seen, newSwitches);
  admitCaPorts(seen);
  observed_ = std::move(seen);
  ++generation_;
}

void HeldSubnet::describe(const std::vector<std::pair<NodeId, std::string>>& read) {
  if (!observed_) return;
  for (const auto& [node, text] : read) observed_->fabric.node(node).description = text;
  observed_->describedFromBefore.clear();
}

void HeldSubnet::forget() {
  const std::uint64_t generation = generation_;
  *this = HeldSubnet{};
  generation_ = generation + 1;
}

std::optional<Lid> HeldSubnet::lftTop(Guid sw) const {
  auto it = lftTops_.find(sw);
  return it == lftTops_.end() ? std::nullopt : it->second;
}

void HeldSubnet::admitLfts(const discovery::DiscoveredSubnet& seen) {
  for (const auto& [sw, info] : seen.switchInfo) {
    const Guid guid = seen.fabric.node(sw).guid;
    const Lid top{info.linearFdbTop};
    auto known = lftTops_.find(guid);
    if (lfts_.has(guid) && known != lftTops_.end() && (!known->second || *known->second == top)) {
      known->second = top;
      continue;
    }
    lftTops_[guid] = top;
    mfts_.reset(guid, 0, BlockState::Stale);
    if (top.value == 0) {
      lfts_.reset(guid, 0, BlockState::Known, lftBlock({}, 0, kNoRoute));
    } else {
      lfts_.reset(guid, top.value / kLftBlockSize + 1,
                  programmedByAnother(seen, sw) ? BlockState::Stale : BlockState::Unknown);
    }
  }
}

void HeldSubnet::admitDefaultPKeys(const discovery::DiscoveredSubnet& seen, NodeId n,
                                   std::uint8_t port) {
  const PortKey key{seen.fabric.node(n).guid, port};
  const std::uint16_t blocks = pkeyBlockCount(pkeyEntries(seen, n, port));
  if (pkeys_.has(key) || blocks == 0) return;
  pkeys_.reset(key, blocks, BlockState::Known);
  pkeys_.learned(key, 0, defaultPKeyBlock(0));
}

void HeldSubnet::dropResetNodes(const discovery::DiscoveredSubnet& seen,
                                const std::set<Guid>& newSwitches) {
  const Fabric& f = seen.fabric;
  // Admitted after the loop: the erasures below scan the whole table per
  // switch, and must not scan what this loop admits (720 switches x ~15,000
  // ports at radix 24 took seconds).
  std::vector<NodeId> freshSwitches;
  std::vector<PortRef> freshCaPorts;
  for (NodeId n = 0; n < f.size(); ++n) {
    const Node& node = f.node(n);
    const Guid guid = node.guid;
    if (node.isSwitch()) markSl2VlAsReset(seen, PortRef{n, 0}, PortKey{guid, 0});
    if (node.isSwitch() && !holdsLid(seen, PortRef{n, 0})) {
      // First sight of an unconfigured switch: its tables are the reset's
      // (admitDefaultPKeys); a tracked one that lost its LID is read again.
      bool tracked = false;
      pkeys_.eraseIf([guid, &tracked](const PortKey& k) {
        tracked |= k.node == guid;
        return k.node == guid;
      });
      const bool fresh = !tracked && unconfigured(seen, PortRef{n, 0});
      sl2vl_.eraseIf([guid](const PortPairKey& k) { return k.node == guid; });
      vlarb_.eraseIf([guid](const PortKey& k) { return k.node == guid; });
      // A switch first seen unconfigured holds the reset's empty MFT (ibsim
      // zeroes it; OpenSM writes no MFT at bring-up either): only the blocks
      // a tree uses are written. Any other that lost its LID: all Stale.
      const bool emptyMft = newSwitches.contains(guid) && unconfigured(seen, PortRef{n, 0});
      mfts_.reset(guid, 0, BlockState::Stale,
                  emptyMft ? std::optional<MftBlock>(MftBlock{}) : std::nullopt);
      std::erase_if(ignoresEnforcement_, [guid](const PortKey& k) { return k.node == guid; });
      std::erase_if(keepsNoHighLimit_, [guid](const PortKey& k) { return k.node == guid; });
      if (fresh) freshSwitches.push_back(n);
      continue;
    }
    for (std::uint8_t p = node.isSwitch() ? 0 : 1; p <= node.numPorts(); ++p) {
      const PortKey key{guid, p};
      if (!node.isSwitch()) markSl2VlAsReset(seen, PortRef{n, p}, key);
      if (!node.isSwitch() && !holdsLid(seen, PortRef{n, p})) {
        const bool fresh = !pkeys_.has(key) && unconfigured(seen, PortRef{n, p});
        pkeys_.erase(key);
        if (fresh) freshCaPorts.push_back(PortRef{n, p});
        sl2vl_.erase(PortPairKey{guid, 0, p});
        vlarb_.erase(key);
        keepsNoHighLimit_.erase(key);
        continue;
      }
      if (pkeys_.has(key) && pkeys_.blocks(key) != pkeyBlockCount(pkeyEntries(seen, n, p)))
        pkeys_.erase(key);
    }
  }
  for (const NodeId n : freshSwitches) {
    for (std::uint8_t p = 0; p <= f.node(n).numPorts(); ++p) admitDefaultPKeys(seen, n, p);
  }
  for (const PortRef port : freshCaPorts) admitDefaultPKeys(seen, port.node, port.port);
}

void HeldSubnet::markSl2VlAsReset(const discovery::DiscoveredSubnet& seen, PortRef lidPort,
                                  PortKey key) {
  if (unconfigured(seen, lidPort)) {
    sl2vlAsReset_.insert(key);
  } else {
    sl2vlAsReset_.erase(key);
  }
}

void HeldSubnet::admitCaPorts(const discovery::DiscoveredSubnet& seen) {
  for (const auto& [ref, info] : seen.portInfo) {
    const Node& node = seen.fabric.node(ref.node);
    if (node.isSwitch()) continue;
    const PortKey key{node.guid, ref.port};
    if (caPortsSeen_.insert(key).second &&
        (info.capabilityMask & capability::kIsClientReregistrationSupported) != 0)
      reregisterDue_.insert(key);
  }
}

bool HeldSubnet::apply(const ProgramStep& step, const SmpReply& reply) {
  const Method method = step.request.method;
  bool quirk = false;
  std::visit(Overloaded{[&](const PortInfoTarget& t) {
                          if (method != Method::Set || !reply.ok() || !reply.smp) return;
                          quirk = applyPortInfo(t.port, decodePortInfo(step.request.data),
                                                decodePortInfo(reply.smp->data));
                        },
                        [&](const SwitchInfoTarget& t) { applySwitchInfo(t.sw, method, reply); },
                        [&]<typename Kind>(const BlockTarget<Kind>& t) { applyBlock(t, reply); }},
             step.target);
  return quirk;
}

template <typename Kind>
void HeldSubnet::applyBlock(const BlockTarget<Kind>& t, const SmpReply& reply) {
  auto& table = mutableTable<Kind>();
  if (!table.has(t.owner)) table.reset(t.owner, t.count, BlockState::Unknown);
  if (reply.ok() && reply.smp) {
    table.learned(t.owner, t.index, Kind::decode(reply.smp->data));
  } else {
    // A failed Set may have landed or not; a failed Get leaves it unread.
    // Either way the block is written next, unread.
    table.forgotten(t.owner, t.index);
  }
}

bool HeldSubnet::applyPortInfo(PortRef port, const PortInfo& asked, const PortInfo& now) {
  if (!observed_) return false;
  Node& node = observed_->fabric.node(port.node);
  bool quirk = false;
  if (node.isSwitch() && port.port != 0 &&
      (asked.partitionEnforcementInbound != now.partitionEnforcementInbound ||
       asked.partitionEnforcementOutbound != now.partitionEnforcementOutbound)) {
    quirk = ignoresEnforcement_.insert(PortKey{node.guid, port.port}).second;
  }
  if (asked.clientReregister) reregisterDue_.erase(PortKey{node.guid, port.port});
  // Acknowledged, yet no key and no protection: it keeps none (a reply to
  // a Set that passed the M_Key check shows the key, IBA 14.2.4).
  if (asked.mKey != 0 && now.mKey == 0 && now.mKeyProtectBits == 0)
    keepsNoMKey_.insert(PortKey{node.guid, port.port});
  // Acknowledged, yet the old limit: ibsim keeps no VLHighLimit.
  if (asked.vlHighLimit != now.vlHighLimit) keepsNoHighLimit_.insert(PortKey{node.guid, port.port});
  observed_->portInfo[port] = now;
  discovery::fillPort(node.ports[port.port], now, !node.isSwitch() || port.port == 0);
  return quirk;
}

void HeldSubnet::applySwitchInfo(NodeId sw, Method method, const SmpReply& reply) {
  if (!observed_ || method != Method::Set) return;
  const Guid guid = observed_->fabric.node(sw).guid;
  if (!reply.ok() || !reply.smp) {
    lftTops_[guid].reset();  // it may hold the old top or the new one
    return;
  }
  const SwitchInfo now = decodeSwitchInfo(reply.smp->data);
  observed_->switchInfo[sw] = now;
  lftTops_[guid] = Lid{now.linearFdbTop};
}

}  // namespace ibsm::sm::program
