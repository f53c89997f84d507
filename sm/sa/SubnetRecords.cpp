// Each record kind from the snapshot's model. Where the devices' own
// PortInfo or SwitchInfo is known (what discovery read and programming
// changed) the records carry it as held; otherwise they are made from the
// fabric and the plan, with the fields an SM sets (LID, LMC, SM LID, subnet
// prefix and timeout) as the SM programmed them.
#include "sm/sa/SubnetRecords.h"

#include <algorithm>

#include "sm/mad/PortInfoFill.h"
#include "sm/sa/Components.h"

namespace ibsm::sm::sa {
namespace {

// PortInfo:CapabilityMask IsSLMappingSupported (IBA 14.2.5.6): a port that
// lacks it holds no SL2VL table, and programming writes none there.
constexpr std::uint32_t kIsSlMappingSupported = 1U << 6;

// LinearFDBTop of a planned table: Lft::top() says the same, but lives with
// the routing engines, which the SA (and its fuzz target) need not link.
Lid topOf(const Lft& lft) {
  for (std::size_t l = lft.port.size(); l-- > 1;) {
    if (lft.port[l] != kNoRoute) return Lid{static_cast<std::uint16_t>(l)};
  }
  return Lid{};
}

// Lid of the LID-carrying side of `port` (port 0 of a switch, a CA port).
Lid lidOf(const Fabric& fabric, PortRef port) {
  return fabric.port(SaSubnet::lidPort(fabric, port)).lid;
}

NodeInfo nodeInfoOf(const Node& node, const Port& port) {
  return NodeInfo{.baseVersion = 1,
                  .classVersion = 1,
                  .nodeType = node.type,
                  .numPorts = node.numPorts(),
                  .systemImageGuid = node.systemImageGuid,
                  .nodeGuid = node.guid,
                  .portGuid = port.guid,
                  .partitionCap = node.partitionCap,
                  .deviceId = node.deviceId,
                  .revision = node.revision,
                  .localPortNum = port.number,
                  .vendorId = node.vendorId};
}

PortInfo portInfoOf(const SaSource& source, const SaSubnet& subnet, PortRef ref) {
  const Fabric& fabric = subnet.fabric();
  const Port& port = fabric.port(ref);
  const Port& lidPort = fabric.port(SaSubnet::lidPort(fabric, ref));
  PortInfo pi;
  if (source.portInfo) {
    if (const auto it = source.portInfo->find(ref); it != source.portInfo->end()) pi = it->second;
  }
  const bool held = source.portInfo && source.portInfo->contains(ref);
  // What the SM gives a port: only end ports (CA ports, switch port 0)
  // carry it; a switch's external ports hold 0 there, as the switch
  // reports them (and OpenSM's SA lists them).
  const bool endPort = fabric.node(ref.node).type != NodeType::Switch || ref.port == 0;
  pi.gidPrefix = endPort ? subnet.settings().subnetPrefix : 0;
  pi.lid = endPort ? lidPort.lid : Lid{};
  pi.lmc = endPort ? lidPort.lmc : 0;
  pi.masterSmLid = endPort ? lidOf(fabric, source.smPort) : Lid{};
  // LocalPortNum is the port a query came in by: keep what the port said.
  if (!held) pi.localPortNum = port.number;
  if (held) return pi;
  mad::fillFromPort(pi, port);
  pi.portState = port.state;
  pi.physState = port.physState;
  if (port.remote) pi.neighborMtu = std::min(port.mtuCap, fabric.port(*port.remote).mtuCap);
  pi.subnetTimeout = subnet.settings().packetLifeTime;
  return pi;
}

SwitchInfo switchInfoOf(const SaSource& source, const SaSubnet& subnet, NodeId id) {
  SwitchInfo si;
  if (source.switchInfo) {
    if (const auto it = source.switchInfo->find(id); it != source.switchInfo->end())
      si = it->second;
  }
  const Node& node = subnet.fabric().node(id);
  if (!source.switchInfo || !source.switchInfo->contains(id)) {
    si.linearFdbCap = node.switchData->linearFdbCap;
    si.multicastFdbCap = node.switchData->multicastFdbCap;
    si.enhancedPort0 = node.switchData->enhancedPort0;
  }
  // What the plan programmed, whatever was read before programming.
  if (const Lft* lft = subnet.lft(id)) si.linearFdbTop = topOf(*lft).value;
  return si;
}

void addNodeAndPorts(const SaSource& source, const SaSubnet& subnet,
                     std::map<std::uint16_t, RecordTable>& t, NodeId id) {
  const Fabric& fabric = subnet.fabric();
  const Node& node = fabric.node(id);
  for (const std::uint8_t p : node.endpointPorts()) {
    const Port& port = node.ports[p];
    if (!port.lid.isUnicast()) continue;
    t[saAttr::kNodeRecord].add(encodeRecord(NodeRecord{.lid = port.lid,
                                                       .nodeInfo = nodeInfoOf(node, port),
                                                       .nodeDescription = {node.description}}));
    GuidInfoRecord gir{.lid = port.lid, .block = 0, .guids = {}};
    gir.guids[0] = port.guid;
    t[saAttr::kGuidInfoRecord].add(encodeRecord(gir));
  }
  // A switch's every port answers for its one LID; a CA port for its own.
  for (std::uint8_t p = node.isSwitch() ? 0 : 1; p < node.ports.size(); ++p) {
    const PortRef ref{id, p};
    const Lid lid = lidOf(fabric, ref);
    if (!lid.isUnicast() || (!node.isSwitch() && !node.ports[p].guid)) continue;
    t[saAttr::kPortInfoRecord].add(
        encodeRecord(PortInfoRecord{.endPortLid = lid,
                                    .portNum = p,
                                    .options = 0,
                                    .portInfo = portInfoOf(source, subnet, ref)}));
    if (const auto& remote = node.ports[p].remote; remote && p != 0) {
      t[saAttr::kLinkRecord].add(encodeRecord(LinkRecord{
          .fromLid = lid, .fromPort = p, .toPort = remote->port, .toLid = lidOf(fabric, *remote)}));
    }
    // Every port has a table, a switch's external ports included (OpenSM
    // lists them all); the default partition's where none is planned.
    const auto pkeys = subnet.pkeys(ref);
    for (std::uint16_t b = 0; b < pkeyBlockCount(pkeys.size()); ++b) {
      t[saAttr::kPKeyTableRecord].add(encodeRecord(
          PKeyTableRecord{.lid = lid, .block = b, .port = p, .table = pkeyBlock(pkeys, b)}));
    }
  }
}

void addSwitchTables(const SaSource& source, const SaSubnet& subnet,
                     std::map<std::uint16_t, RecordTable>& t, NodeId id) {
  const Lid lid = subnet.fabric().node(id).ports[0].lid;
  if (!lid.isUnicast()) return;
  t[saAttr::kSwitchInfoRecord].add(
      encodeRecord(SwitchInfoRecord{.lid = lid, .switchInfo = switchInfoOf(source, subnet, id)}));
  const Lft* lft = subnet.lft(id);
  if (!lft) return;
  const auto blocks = static_cast<std::uint16_t>(topOf(*lft).value / kLftBlockSize + 1);
  for (std::uint16_t b = 0; b < blocks; ++b) {
    t[saAttr::kLftRecord].add(
        encodeRecord(LftRecord{.lid = lid, .block = b, .lft = lftBlock(lft->port, b)}));
  }
}

}  // namespace

std::map<std::uint16_t, RecordTable> buildRecords(const SaSource& source, const SaSubnet& subnet) {
  std::map<std::uint16_t, RecordTable> t;
  for (const std::uint16_t id :
       {saAttr::kNodeRecord, saAttr::kPortInfoRecord, saAttr::kLinkRecord,
        saAttr::kSwitchInfoRecord, saAttr::kLftRecord, saAttr::kSl2VlTableRecord,
        saAttr::kPKeyTableRecord, saAttr::kGuidInfoRecord, saAttr::kSmInfoRecord,
        saAttr::kVlArbitrationTableRecord}) {
    t.emplace(id, RecordTable(recordSizeOf(id)));
  }
  const Fabric& fabric = subnet.fabric();
  for (NodeId id = 0; id < fabric.size(); ++id) {
    addNodeAndPorts(source, subnet, t, id);
    if (fabric.node(id).isSwitch()) addSwitchTables(source, subnet, t, id);
  }
  // A switch's records carry its one LID, a CA or router port's its own LID
  // (in port 0, the port as out port, as OpenSM answers them); a port that
  // maps no SLs was not written (sm/program's SL2VL diff) and is not named.
  for (const Sl2VlEntry& e : source.plan->routing.sl2vl) {
    const PortRef out{e.sw, e.outPort};
    if (!fabric.node(e.sw).isSwitch() &&
        (fabric.port(out).capabilityMask & kIsSlMappingSupported) == 0)
      continue;
    t[saAttr::kSl2VlTableRecord].add(encodeRecord(Sl2VlTableRecord{.lid = lidOf(fabric, out),
                                                                   .inPort = e.inPort,
                                                                   .outPort = e.outPort,
                                                                   .table = SlToVlTable{e.vl}}));
  }
  // A switch's records carry its one LID and the output port; a CA port's
  // its own LID and its port number.
  for (const HeldVlArbBlock& v : source.vlArb) {
    const Lid lid = lidOf(fabric, v.port);
    if (!lid.isUnicast()) continue;
    t[saAttr::kVlArbitrationTableRecord].add(encodeRecord(VlArbitrationTableRecord{
        .lid = lid, .outputPort = v.port.port, .block = v.block, .table = v.table}));
  }
  SmInfoRecord sm{.lid = lidOf(fabric, source.smPort), .smInfo = source.smInfo};
  sm.smInfo.smKey = 0;  // shown only to a trusted requester (the responder's business)
  t[saAttr::kSmInfoRecord].add(encodeRecord(sm));
  for (auto& [id, table] : t) table.sortByLid();
  return t;
}

}  // namespace ibsm::sm::sa
