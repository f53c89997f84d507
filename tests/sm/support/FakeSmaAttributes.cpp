// The fake fabric's SMAs: what each node answers to a Get or a Set of
// each attribute (NodeInfo ... VLArbitration, the LFT, MFT and PKey
// tables), and the route a directed-route SMP walks. The transport
// around them (send, receive, M_Key checks, time) is
// FakeFabricTransport.cpp; split by job (review finding: one file was
// over the size limit).
#include <fmt/format.h>
#include <ibsm/MadAttributes.h>

#include <algorithm>
#include <expected>
#include <tuple>

#include "sm/mad/PortInfoFill.h"
#include "tests/sm/support/FakeFabricTransport.h"

namespace ibsm::testing {
namespace {

constexpr std::uint8_t kPhysLinkUp = 5;
constexpr std::uint8_t kPhysPolling = 2;
constexpr std::size_t kPKeyBlock = 32;

// Entries of a port's PKey table (see the header).
std::size_t pkeyEntries(const Node& node, std::uint8_t port) {
  if (!node.isSwitch() || port == 0) return node.partitionCap;
  return node.switchData && node.switchData->enforcesPartitions ? 32 : 0;
}

// The SL2VL table an SMP means: a CA's is the port it came in on; a
// switch's the (in, out) pair of modifier bits 15..8 and 7..0.
std::optional<std::tuple<NodeId, std::uint8_t, std::uint8_t>> sl2vlTable(const Node& node,
                                                                         PortRef at,
                                                                         std::uint32_t mod) {
  if (!node.isSwitch()) return std::tuple{at.node, std::uint8_t{0}, at.port};
  const auto in = static_cast<std::uint8_t>((mod >> 8) & 0xFF);
  const auto out = static_cast<std::uint8_t>(mod & 0xFF);
  if (in > node.numPorts() || out > node.numPorts() || (mod >> 16) != 0) return std::nullopt;
  return std::tuple{at.node, in, out};
}

// The VLArbitration block an SMP means (IBA 14.2.5.9: modifier bits 31..16
// the block 1..4, bits 7..0 a switch's output port; a CA's is the port it
// came in on), nullopt past the port's caps: a block exists only when its
// table's cap reaches into it.
std::optional<std::pair<PortRef, std::uint16_t>> vlArbBlockOf(
    const Node& node, PortRef at, std::uint32_t mod, std::pair<std::uint8_t, std::uint8_t> caps) {
  const auto block = static_cast<std::uint16_t>(mod >> 16);
  const auto port = static_cast<std::uint8_t>(mod & 0xFF);
  if (block < vlArbBlock::kLowFirst || block > vlArbBlock::kHighSecond) return std::nullopt;
  if (node.isSwitch() && port > node.numPorts()) return std::nullopt;
  const std::uint8_t cap = block <= vlArbBlock::kLowSecond ? caps.first : caps.second;
  const unsigned first =
      (block == vlArbBlock::kLowSecond || block == vlArbBlock::kHighSecond) ? 32 : 0;
  if (cap <= first) return std::nullopt;
  return std::pair{node.isSwitch() ? PortRef{at.node, port} : at, block};
}

// The table a PKeyTable SMP means: a CA answers for the port it came in
// on; a switch for the port in modifier bits 16..23.
PortRef pkeyPort(const Node& node, PortRef at, std::uint32_t mod) {
  if (!node.isSwitch()) return at;
  return PortRef{at.node, static_cast<std::uint8_t>((mod >> 16) & 0xFF)};
}

// The slot of an MFT block the modifier names, if the switch has it.
std::optional<std::uint16_t> mftSlot(const Node& node, std::uint32_t mod) {
  const std::uint32_t block = mod & 0x1FF;
  const std::uint32_t position = mod >> 28;
  if (!node.switchData || (block + 1) * kMftBlockSize > node.switchData->multicastFdbCap ||
      position >= mftPositions(node.numPorts()))
    return std::nullopt;
  return static_cast<std::uint16_t>(block * 16 + position);
}
}  // namespace

std::vector<std::uint16_t> FakeFabricTransport::pkeys(PortRef port) const {
  if (auto it = pkeys_.find(port); it != pkeys_.end()) return it->second;
  std::vector<std::uint16_t> table(pkeyEntries(fabric_.node(port.node), port.port), 0);
  if (!table.empty()) table[0] = 0xFFFF;
  return table;
}

void FakeFabricTransport::setPKeys(PortRef port, std::vector<std::uint16_t> table) {
  table.resize(pkeyEntries(fabric_.node(port.node), port.port), 0);
  pkeys_[port] = std::move(table);
}

std::optional<PortRef> FakeFabricTransport::walk(const Smp& request, PortRef from) const {
  if (!request.isDirected()) return std::nullopt;  // LID-routed: see destination()
  PortRef at = from;
  for (unsigned hop = 1; hop <= request.header.hopCount; ++hop) {
    const Node& node = fabric_.node(at.node);
    if (hop > 1 && !node.isSwitch()) return std::nullopt;  // only switches forward
    const std::uint8_t exit = request.initialPath[hop];
    if (exit == 0 || exit > node.numPorts()) return std::nullopt;
    const auto& remote = node.ports[exit].remote;
    if (!remote) return std::nullopt;
    at = *remote;
  }
  return at;
}

std::expected<SmpData, std::uint16_t> FakeFabricTransport::get(const Smp& request, PortRef at,
                                                               bool hideMKey) const {
  const Node& node = fabric_.node(at.node);
  const std::uint32_t mod = request.header.attributeModifier;
  switch (request.header.attributeId) {
    case AttributeId::NodeInfo: {
      NodeInfo ni;
      ni.nodeType = node.type;
      ni.numPorts = node.numPorts();
      ni.systemImageGuid = node.systemImageGuid;
      ni.nodeGuid = node.guid;
      ni.portGuid = node.ports[at.port].guid;
      ni.partitionCap = node.partitionCap;
      ni.deviceId = node.deviceId;
      ni.revision = node.revision;
      ni.localPortNum = at.port;
      ni.vendorId = node.vendorId;
      return encode(ni);
    }
    case AttributeId::NodeDescription:
      return encode(NodeDescription{node.description});
    case AttributeId::PortInfo: {
      std::uint8_t num = static_cast<std::uint8_t>(mod & 0xFF);
      if (!node.isSwitch() && num == 0) num = at.port;
      if (num > node.numPorts()) return std::unexpected(madstatus::kInvalidField);
      const Port& port = node.ports[num];
      const Port& lidPort = node.isSwitch() ? node.ports[0] : port;
      const bool cabled = port.connected() || (node.isSwitch() && num == 0);
      PortInfo pi;
      pi.lid = lidPort.lid;
      pi.lmc = lidPort.lmc;
      pi.masterSmLid = smLid({at.node, node.isSwitch() ? std::uint8_t{0} : num});
      if (auto g = gidPrefixes_.find({at.node, node.isSwitch() ? std::uint8_t{0} : num});
          g != gidPrefixes_.end()) {
        pi.gidPrefix = g->second;
      }
      if (auto t = subnetTimeouts_.find({at.node, node.isSwitch() ? std::uint8_t{0} : num});
          t != subnetTimeouts_.end()) {
        pi.subnetTimeout = t->second;
      }
      sm::mad::fillFromPort(pi, port);
      pi.localPortNum = at.port;
      pi.portState = !cabled                         ? PortState::Down
                     : port.state == PortState::Down ? PortState::Init
                                                     : port.state;
      pi.physState = cabled ? kPhysLinkUp : kPhysPolling;
      pi.neighborMtu = port.mtuCap;
      pi.operationalVls = operationalVls({at.node, num});
      pi.vlArbitrationLowCap = vlArbCaps_.first;
      pi.vlArbitrationHighCap = vlArbCaps_.second;
      pi.vlHighLimit = vlHighLimit({at.node, num});
      std::tie(pi.partitionEnforcementInbound, pi.partitionEnforcementOutbound) =
          enforcement({at.node, num});
      // The M_Key fields are port 0's on a switch, reserved on its other ports.
      if (!node.isSwitch() || num == 0) mkeys_.show({at.node, num}, hideMKey, now_, pi);
      return encode(pi);
    }
    case AttributeId::SwitchInfo: {
      if (!node.switchData) break;
      const SwitchData& sd = *node.switchData;
      SwitchInfo si;
      si.linearFdbCap = sd.linearFdbCap;
      si.multicastFdbCap = sd.multicastFdbCap;
      si.linearFdbTop = sd.linearFdbTop;
      si.lifeTimeValue = 18;
      si.partitionEnforcementCap = sd.enforcesPartitions ? 32 : 0;
      si.inboundEnforcementCap = sd.enforcesPartitions;
      si.outboundEnforcementCap = sd.enforcesPartitions;
      si.enhancedPort0 = sd.enhancedPort0;
      si.multicastFdbTop = mcastTop(at.node);
      si.portStateChange = portStateChanged_.contains(at.node);
      return encode(si);
    }
    case AttributeId::LinearForwardingTable: {
      if (!node.switchData) break;
      if (mod * 64 >= node.switchData->linearFdbCap) {
        return std::unexpected(madstatus::kInvalidField);
      }
      LftBlock block;
      block.ports.fill(0xFF);  // unprogrammed entries drop packets
      const auto& table = lft(at.node);
      for (std::size_t i = 0; i < 64 && mod * 64 + i < table.size(); ++i) {
        block.ports[i] = table[mod * 64 + i];
      }
      return encode(block);
    }
    case AttributeId::MulticastForwardingTable: {
      const auto slot = mftSlot(node, mod);
      if (!slot) return std::unexpected(madstatus::kInvalidField);
      auto it = mfts_.find({at.node, *slot});
      return encode(it == mfts_.end() ? MftBlock{} : it->second);
    }
    case AttributeId::SlToVlTable: {
      const auto table = sl2vlTable(node, at, mod);
      if (!table) return std::unexpected(madstatus::kInvalidField);
      return encode(std::apply([this](auto... k) { return sl2vl(k...); }, *table));
    }
    case AttributeId::VlArbitrationTable: {
      const auto which = vlArbBlockOf(node, at, mod, vlArbCaps_);
      if (!which) return std::unexpected(madstatus::kInvalidField);
      return encode(vlArb(which->first, which->second));
    }
    case AttributeId::PKeyTable: {
      const PortRef port = pkeyPort(node, at, mod);
      const std::size_t first = (mod & 0xFFFF) * kPKeyBlock;
      if (port.port > node.numPorts() || first >= pkeyEntries(node, port.port)) {
        return std::unexpected(madstatus::kInvalidField);
      }
      const auto table = pkeys(port);
      PKeyBlock block;
      for (std::size_t i = 0; i < kPKeyBlock && first + i < table.size(); ++i) {
        block.pkeys[i] = table[first + i];
      }
      return encode(block);
    }
    case AttributeId::SmInfo:
      if (auto it = smInfos_.find(at); it != smInfos_.end()) return encode(it->second);
      break;
    default:
      break;
  }
  return std::unexpected(madstatus::kMethodAttrUnsupported);
}

std::expected<void, std::uint16_t> FakeFabricTransport::set(const Smp& request, PortRef at) {
  Node& node = fabric_.node(at.node);
  const std::uint32_t mod = request.header.attributeModifier;
  switch (request.header.attributeId) {
    case AttributeId::PortInfo: {
      std::uint8_t num = static_cast<std::uint8_t>(mod & 0xFF);
      if (!node.isSwitch() && num == 0) num = at.port;
      if (num > node.numPorts()) return std::unexpected(madstatus::kInvalidField);
      const PortInfo pi = decodePortInfo(request.data);
      Port& port = node.ports[num];
      // As ibsim: more VLs than the port can run is refused outright.
      if (pi.operationalVls > port.vlCap) return std::unexpected(madstatus::kInvalidField);
      if (pi.operationalVls != 0) operVls_[{at.node, num}] = pi.operationalVls;
      highLimits_[{at.node, num}] = pi.vlHighLimit;
      if (!node.isSwitch() || num == 0) {
        port.lid = pi.lid;
        port.lmc = pi.lmc;
        smLids_[{at.node, num}] = pi.masterSmLid;
        gidPrefixes_[{at.node, num}] = pi.gidPrefix;
        subnetTimeouts_[{at.node, num}] = pi.subnetTimeout;
        mkeys_.applySet({at.node, num}, pi);  // the SM's way to protect a port
      }
      if (pi.clientReregister) ++reregistrations_[{at.node, num}];
      if (pi.portState != PortState::NoChange) port.state = pi.portState;
      if (node.isSwitch() && num != 0 && pkeyEntries(node, num) > 0 && !ignoreEnforcement_) {
        enforcement_[{at.node, num}] = {pi.partitionEnforcementInbound,
                                        pi.partitionEnforcementOutbound};
      }
      return {};
    }
    case AttributeId::SwitchInfo:
      if (!node.switchData) break;
      node.switchData->linearFdbTop = decodeSwitchInfo(request.data).linearFdbTop;
      if (decodeSwitchInfo(request.data).portStateChange) portStateChanged_.erase(at.node);
      if ((node.ports[0].capabilityMask & capability::kIsMulticastFdbTopSupported) != 0)
        mcastTops_[at.node] = decodeSwitchInfo(request.data).multicastFdbTop;
      return {};
    case AttributeId::MulticastForwardingTable: {
      const auto slot = mftSlot(node, mod);
      if (!slot) return std::unexpected(madstatus::kInvalidField);
      mfts_[{at.node, *slot}] = decodeMftBlock(request.data);
      return {};
    }
    case AttributeId::LinearForwardingTable: {
      if (!node.switchData) break;
      if (mod * 64 >= node.switchData->linearFdbCap) {
        return std::unexpected(madstatus::kInvalidField);
      }
      auto& table = lfts_[at.node];
      table.resize(std::max<std::size_t>(table.size(), (mod + 1) * 64), 0xFF);
      const LftBlock block = decodeLftBlock(request.data);
      std::ranges::copy(block.ports, table.begin() + mod * 64);
      return {};
    }
    case AttributeId::SlToVlTable: {
      const auto table = sl2vlTable(node, at, mod);
      if (!table) return std::unexpected(madstatus::kInvalidField);
      sl2vl_[*table] = decodeSlToVlTable(request.data);
      return {};
    }
    case AttributeId::VlArbitrationTable: {
      const auto which = vlArbBlockOf(node, at, mod, vlArbCaps_);
      if (!which) return std::unexpected(madstatus::kInvalidField);
      vlArb_[*which] = decodeVlArbitrationBlock(request.data);
      return {};
    }
    case AttributeId::PKeyTable: {
      const PortRef port = pkeyPort(node, at, mod);
      const std::size_t first = (mod & 0xFFFF) * kPKeyBlock;
      if (port.port > node.numPorts() || first >= pkeyEntries(node, port.port)) {
        return std::unexpected(madstatus::kInvalidField);
      }
      auto table = pkeys(port);
      const PKeyBlock block = decodePKeyBlock(request.data);
      for (std::size_t i = 0; i < kPKeyBlock && first + i < table.size(); ++i) {
        table[first + i] = block.pkeys[i];
      }
      pkeys_[port] = std::move(table);
      return {};
    }
    default:
      break;
  }
  return std::unexpected(madstatus::kMethodAttrUnsupported);
}

}  // namespace ibsm::testing
