#include "tests/sm/support/FakeFabricTransport.h"

#include <fmt/format.h>
#include <ibsm/MadAttributes.h>

#include <algorithm>
#include <expected>
#include <tuple>

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

}  // namespace

FakeFabricTransport::FakeFabricTransport(Fabric fabric, PortRef smPort)
    : fabric_(std::move(fabric)),
      smPort_(smPort),
      now_(MadClock::time_point{} + std::chrono::hours(1)) {}

std::function<MadClock::time_point()> FakeFabricTransport::clock() const {
  return [this] { return now_; };
}

std::bitset<256> FakeFabricTransport::mft(NodeId sw, std::uint16_t mlid) const {
  std::bitset<256> ports;
  const std::size_t offset = mlid - std::size_t{0xC000};
  for (std::uint16_t p = 0; p < 16; ++p) {
    auto it = mfts_.find({sw, static_cast<std::uint16_t>(offset / kMftBlockSize * 16 + p)});
    if (it == mfts_.end()) continue;
    const std::uint16_t bits = it->second.masks[offset % kMftBlockSize];
    for (std::size_t b = 0; b < 16; ++b)
      if (((bits >> b) & 1U) != 0) ports.set(p * 16 + b);
  }
  return ports;
}

void FakeFabricTransport::setMft(NodeId sw, std::uint16_t mlid, const std::bitset<256>& ports) {
  const std::size_t offset = mlid - std::size_t{0xC000};
  for (std::uint16_t p = 0; p < 16; ++p) {
    std::uint16_t bits = 0;
    for (std::size_t b = 0; b < 16; ++b)
      if (ports.test(p * 16 + b)) bits = static_cast<std::uint16_t>(bits | (1U << b));
    mfts_[{sw, static_cast<std::uint16_t>(offset / kMftBlockSize * 16 + p)}]
        .masks[offset % kMftBlockSize] = bits;
  }
}

namespace {
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

const std::vector<std::uint8_t>& FakeFabricTransport::lft(NodeId sw) const {
  static const std::vector<std::uint8_t> kNone;
  auto it = lfts_.find(sw);
  return it == lfts_.end() ? kNone : it->second;
}

Lid FakeFabricTransport::smLid(PortRef port) const {
  auto it = smLids_.find(port);
  return it == smLids_.end() ? Lid{} : it->second;
}

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

std::pair<bool, bool> FakeFabricTransport::enforcement(PortRef port) const {
  auto it = enforcement_.find(port);
  return it == enforcement_.end() ? std::pair{false, false} : it->second;
}

std::uint8_t FakeFabricTransport::operationalVls(PortRef port) const {
  auto it = operVls_.find(port);
  return it == operVls_.end() ? fabric_.port(port).vlCap : it->second;
}

SlToVlTable FakeFabricTransport::sl2vl(NodeId node, std::uint8_t in, std::uint8_t out) const {
  if (auto it = sl2vl_.find({node, in, out}); it != sl2vl_.end()) return it->second;
  SlToVlTable ibsimDefault;
  for (std::uint8_t sl = 0; sl < 16; ++sl) ibsimDefault.vl[sl] = sl == 15 ? 7 : sl;
  return ibsimDefault;
}

void FakeFabricTransport::setSl2Vl(NodeId node, std::uint8_t in, std::uint8_t out,
                                   const SlToVlTable& table) {
  sl2vl_[{node, in, out}] = table;
}

VlArbitrationBlock FakeFabricTransport::vlArb(PortRef port, std::uint16_t block) const {
  auto it = vlArb_.find({port, block});
  return it == vlArb_.end() ? VlArbitrationBlock{} : it->second;
}

void FakeFabricTransport::deliver(const ReceivedMad& mad, MadClock::time_point due) {
  inFlight_.push_back(InFlight{due, seq_++, mad});
}

void FakeFabricTransport::inject(const Smp& smp, MadAddress from, std::chrono::microseconds after) {
  deliver(ReceivedMad{encodeSmp(smp), from}, now_ + after);
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
      pi.capabilityMask = port.capabilityMask;
      pi.localPortNum = at.port;
      pi.linkWidthEnabled = port.link.widthEnabled;
      pi.linkWidthSupported = port.link.widthSupported;
      pi.linkWidthActive = port.link.widthActive;
      pi.linkSpeedSupported = port.link.speedSupported;
      pi.linkSpeedEnabled = port.link.speedEnabled;
      pi.linkSpeedActive = port.link.speedActive;
      pi.linkSpeedExtActive = port.link.extSpeedActive;
      pi.linkSpeedExtSupported = port.link.extSpeedSupported;
      pi.linkSpeedExtEnabled = port.link.extSpeedEnabled;
      pi.portState = !cabled                         ? PortState::Down
                     : port.state == PortState::Down ? PortState::Init
                                                     : port.state;
      pi.physState = cabled ? kPhysLinkUp : kPhysPolling;
      pi.mtuCap = port.mtuCap;
      pi.neighborMtu = port.mtuCap;
      pi.vlCap = port.vlCap;
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

Smp FakeFabricTransport::answer(const Smp& request, PortRef at, bool hideMKey) {
  Smp reply = request;
  reply.header.method = Method::GetResp;
  reply.header.direction = request.isDirected();
  reply.data = {};
  if (request.header.method == Method::Set) {
    if (auto done = set(request, at); !done) {
      reply.header.status = done.error();
      return reply;
    }
  } else if (request.header.method != Method::Get) {
    reply.header.status = madstatus::kMethodUnsupported;
    return reply;
  }
  if (auto data = get(request, at, hideMKey)) {
    reply.data = *data;
  } else {
    reply.header.status = data.error();
  }
  return reply;
}

std::optional<PortRef> FakeFabricTransport::destination(const Smp& request, Lid to,
                                                        PortRef from) const {
  if (request.isDirected()) return walk(request, from);
  for (NodeId n = 0; n < fabric_.size(); ++n) {
    for (std::uint8_t p : fabric_.node(n).endpointPorts()) {
      const Port& port = fabric_.node(n).ports[p];
      const unsigned first = port.lid.value;
      if (first != 0 && to.value >= first && to.value < first + (1U << port.lmc)) {
        return PortRef{n, p};
      }
    }
  }
  return std::nullopt;
}

std::optional<Smp> FakeFabricTransport::process(const Smp& request, PortRef at) {
  const PortRef holder = FakeMKeys::holder(fabric_.node(at.node), at);
  const MKeyCheck check = mkeys_.check(holder, request.header, now_);
  if (check == MKeyCheck::Fail) {
    badMKey(request, holder);
    return std::nullopt;  // 14.2.4.3: the SMA does not respond
  }
  if (request.header.method == Method::TrapRepress) return std::nullopt;  // never answered
  return answer(request, at, check == MKeyCheck::HideKey);
}

void FakeFabricTransport::badMKey(const Smp& request, PortRef holder) {
  const Lid sm = smLid(holder);
  auto timeout = subnetTimeouts_.find(holder);
  if (sm.value == 0 ||
      !mkeys_.mayTrap(holder, now_, timeout == subnetTimeouts_.end() ? 0 : timeout->second)) {
    return;  // no SM to tell yet, or a trap just went
  }
  if (sm != fabric_.port(smPort_).lid) return;  // another SM's: it never reaches this engine
  const Lid lid = fabric_.port(holder).lid;
  Smp trap = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
  trap.data = encode(FakeMKeys::badMKeyNotice(lid, request, fabric_.node(holder.node).isSwitch()));
  inject(trap, MadAddress::toLid(lid));
}

void FakeFabricTransport::protect(PortRef port, std::uint64_t key, std::uint8_t bits,
                                  std::chrono::seconds lease) {
  mkeys_.protect(FakeMKeys::holder(fabric_.node(port.node), port), key, bits, lease);
}

MKeyState FakeFabricTransport::mkeyState(PortRef port) const {
  return mkeys_.state(FakeMKeys::holder(fabric_.node(port.node), port), now_);
}

std::optional<Smp> FakeFabricTransport::foreignSmp(const Smp& request, PortRef from, Lid to) {
  const Method m = request.header.method;
  if (m != Method::Get && m != Method::Set && m != Method::TrapRepress) return std::nullopt;
  const auto at = destination(request, to, from);
  if (!at) return std::nullopt;
  return process(request, *at);
}

Result<void> FakeFabricTransport::send(const MadBuffer& mad, MadAddress to) {
  if (failNextSend_) {
    failNextSend_ = false;
    return fail("fake transport: send refused");
  }
  auto smp = decodeSmp(mad);
  if (!smp) return std::unexpected(smp.error());
  sent_.push_back(SentMad{*smp, to, now_});
  if (smp->header.method == Method::TrapRepress) {
    // Not answered, but checked: a wrong key is a violation, a right one stops the lease timer.
    if (auto at = destination(*smp, to.lid, smPort_)) (void)process(*smp, *at);
    return {};
  }
  if (smp->header.method != Method::Get && smp->header.method != Method::Set) return {};

  const Fate fate = faults_ ? faults_(*smp, requests_) : Fate{};
  ++requests_;
  if (fate.drop) return {};

  const std::optional<PortRef> at = destination(*smp, to.lid, smPort_);
  if (!at) return {};  // nobody there: the SMP is lost, as on a real fabric
  // Its node's SMA takes it after the SMPs already there (the latency model).
  const auto doneAt = sma_.serve(at->node, fabric_.node(at->node).isSwitch(), now_);
  std::optional<Smp> reply = process(*smp, *at);
  if (!reply) return {};  // refused by the M_Key check: silence
  if (fate.answerLost) return {};
  if (fate.status) reply->header.status = *fate.status;
  const MadAddress from =
      smp->isDirected() ? MadAddress::directed() : MadAddress::toLid(fabric_.port(*at).lid);
  const auto due = doneAt + fate.latency;
  for (unsigned copy = 0; copy <= fate.duplicates; ++copy) {
    deliver(ReceivedMad{encodeSmp(*reply), from}, due + std::chrono::microseconds(copy));
  }
  return {};
}

Result<std::optional<ReceivedMad>> FakeFabricTransport::receive(MadClock::time_point deadline) {
  auto next = std::ranges::min_element(inFlight_, [](const InFlight& a, const InFlight& b) {
    return a.due != b.due ? a.due < b.due : a.seq < b.seq;
  });
  if (next != inFlight_.end() && next->due <= deadline) {
    now_ = std::max(now_, next->due);
    ReceivedMad mad = next->mad;
    inFlight_.erase(next);
    return std::optional<ReceivedMad>{mad};
  }
  if (deadline == MadClock::time_point::max()) {
    return fail("fake transport: receive() would wait forever with nothing in flight");
  }
  now_ = std::max(now_, deadline);
  return std::optional<ReceivedMad>{};
}

}  // namespace ibsm::testing
