// The SL2VL and VLArbitration tables of every port, as OpenSM's osm_qos.c
// programs them from the qos_* options, then the policy's qos-setup scopes
// (which OpenSM ignores) on top:
// - a CA or router port: its type's VLArbitration, VLHighLimit and one
//   SL2VL table;
// - a switch's external ports: the swe set's VLArbitration and VLHighLimit,
//   and SL2VL for every (output, input) pair, input port 0 included;
// - a switch's port 0 only when it is an enhanced port 0: the sw0 set's
//   VLArbitration and VLHighLimit, and SL2VL (0, 0) from sw0, while the
//   pairs (0, input >= 1) keep the swe table, as OpenSM writes them first.
// OpenSM masks every VL it writes with the port's OperationalVLs (VL15,
// drop, kept in SL2VL); the plan predicts them as the SM sets them: the
// smaller VLCap of the link's two ends (a port with no link: its own). Like
// OpenSM, qos.max_vls changes no table. What the plan cannot know is the
// programmer's: how many VLArbitration entries a port holds
// (VLArbitrationHigh/LowCap) and whether it maps SLs at all
// (IsSLMappingSupported); the plan gives all 64 entries and every table.
//
// With a routing engine's VL layers the draft is finished by layerTables()
// (QosLayers.cpp) instead: QoS classes times layers. Only the engine's
// switch pairs are layers: the CA and router ports' own tables planSubnet()
// adds beside them (every SL on VL 0, the host's first hop) give way to the
// port type's QoS table, and adoptLayeredSl2Vl() leaves them out of the
// routing's SL2VL, so each port has one table, QoS's.
#include <fmt/format.h>
#include <ibsm/QosOptions.h>

#include <algorithm>
#include <iterator>
#include <tuple>
#include <vector>

#include "qos/QosDraft.h"
#include "routing/multicast/McSl.h"

namespace ibsm::qos {
namespace {

void putVlArb(Draft& d, PortRef port, const QosTableSet& set) {
  d.vlArb[port] =
      QosVlArb{.port = port, .highLimit = set.highLimit, .high = set.high, .low = set.low};
}

void planSwitch(Draft& d, const Fabric& fabric, NodeId id, const QosOptions& options) {
  const Node& node = fabric.node(id);
  const QosTableSet swe = options.tablesFor(QosPortType::SwitchExternal);
  const bool enhanced = node.switchData && node.switchData->enhancedPort0;
  for (std::uint8_t out = enhanced ? 0 : 1; out <= node.numPorts(); ++out) {
    if (out != 0 && !node.ports[out].connected()) continue;
    if (out != 0) putVlArb(d, {id, out}, swe);
    for (std::uint8_t in = 0; in <= node.numPorts(); ++in) d.sl2vl[{{id, out}, in}] = swe.sl2vl;
  }
  if (!enhanced) return;
  const QosTableSet sw0 = options.tablesFor(QosPortType::Switch0);
  putVlArb(d, {id, 0}, sw0);
  d.sl2vl[{{id, 0}, 0}] = sw0.sl2vl;
}

void planEndNode(Draft& d, const Fabric& fabric, NodeId id, const QosOptions& options) {
  const Node& node = fabric.node(id);
  const QosTableSet set =
      options.tablesFor(node.type == NodeType::Router ? QosPortType::Router : QosPortType::Ca);
  for (std::uint8_t p = 1; p <= node.numPorts(); ++p) {
    if (!node.ports[p].connected()) continue;
    putVlArb(d, {id, p}, set);
    d.sl2vl[{{id, p}, 0}] = set.sl2vl;
  }
}

Guid guidOf(const Fabric& fabric, PortRef ref) {
  const Node& node = fabric.node(ref.node);
  const Guid own = fabric.port(ref).guid;
  return own.value != 0 ? own : node.guid;
}

bool inAny(const ResolvedQos& qos, const std::vector<std::string>& groups, Guid guid) {
  return std::ranges::any_of(groups, [&](const std::string& g) { return qos.inGroup(g, guid); });
}

// Whether the port at the other end of `ref`'s link is in one of `groups`.
bool remoteInAny(const ResolvedQos& qos, const Fabric& fabric, PortRef ref,
                 const std::vector<std::string>& groups) {
  const auto& remote = fabric.port(ref).remote;
  return remote && inAny(qos, groups, guidOf(fabric, *remote));
}

template <typename T>
bool inRanges(const std::vector<Range<T>>& ranges, T v) {
  return ranges.empty() ||
         std::ranges::any_of(ranges, [&](const Range<T>& r) { return r.contains(v); });
}

// vlarb-scope: the output ports of the groups' ports (every port with no
// group), those whose link leads to a port of `across` when it is given.
void applyVlArbScope(Draft& d, const Fabric& fabric, const ResolvedQos& qos,
                     const QosVlArbScope& s) {
  for (auto& [ref, arb] : d.vlArb) {
    if (!s.groups.empty() && !inAny(qos, s.groups, guidOf(fabric, ref))) continue;
    if (!s.across.empty() && !remoteInAny(qos, fabric, ref, s.across)) continue;
    if (s.high) arb.high = *s.high, arb.high.resize(kVlArbEntries);
    if (s.low) arb.low = *s.low, arb.low.resize(kVlArbEntries);
    if (s.highLimit) arb.highLimit = *s.highLimit;
  }
}

// sl2vl-scope: a switch's (to, from) pairs of the groups' switches, or a CA
// or router port of the groups (from/to name switch ports: not theirs);
// across-to: the output port's link leads to the group; across-from: the
// input port's does (a CA's one link is both).
void applySl2VlScope(Draft& d, const Fabric& fabric, const ResolvedQos& qos,
                     const QosSl2VlScope& s) {
  for (auto& [key, table] : d.sl2vl) {
    const auto [out, inPort] = key;
    const bool isSwitch = fabric.node(out.node).isSwitch();
    const PortRef in = isSwitch ? PortRef{out.node, inPort} : out;
    if (!s.groups.empty() && !inAny(qos, s.groups, guidOf(fabric, out))) continue;
    if (isSwitch && (!inRanges(s.to, out.port) || !inRanges(s.from, inPort))) continue;
    if (!s.acrossTo.empty() && !remoteInAny(qos, fabric, out, s.acrossTo)) continue;
    if (!s.acrossFrom.empty() && !remoteInAny(qos, fabric, in, s.acrossFrom)) continue;
    table = s.sl2vl;
  }
}

QosTables finish(Draft& d, const Fabric& fabric) {
  QosTables out;
  for (auto& [ref, arb] : d.vlArb) {
    const std::uint8_t mask = vlMask(fabric, ref);
    for (auto* table : {&arb.high, &arb.low})
      for (VlWeight& e : *table) e.vl &= mask;
    out.vlArb.push_back(std::move(arb));
  }
  for (auto& [key, table] : d.sl2vl) {
    const auto [ref, in] = key;
    const std::uint8_t mask = vlMask(fabric, ref);
    for (auto& vl : table)
      if (vl != 15) vl &= mask;
    out.sl2vl.push_back({.port = ref, .inPort = in, .vl = table});
  }
  return out;
}

}  // namespace

// The OperationalVLs the SM gives the port (PortDiff: the smaller VLCap of
// the link's ends), as the mask OpenSM applies: code 1 (VL0) keeps VL 0
// only, 4 (VL0-7) VLs 0-7, 5 (VL0-14) all.
std::uint8_t vlMask(const Fabric& fabric, PortRef ref) {
  const Port& port = fabric.port(ref);
  std::uint8_t code = port.vlCap;
  if (port.remote) code = std::min(code, fabric.port(*port.remote).vlCap);
  if (code == 0) return 0x0f;
  return static_cast<std::uint8_t>((1U << (code - 1)) - 1);
}

Result<QosTables> planQosTables(const Fabric& fabric, const QosOptions& options,
                                const ResolvedQos* policy,
                                const std::vector<Sl2VlEntry>& engineSl2Vl) {
  Draft d;
  for (NodeId id = 0; id < fabric.size(); ++id) {
    if (fabric.node(id).isSwitch())
      planSwitch(d, fabric, id, options);
    else
      planEndNode(d, fabric, id, options);
  }
  if (policy && policy->policy) {
    for (const auto& s : policy->policy->setup.vlArb) applyVlArbScope(d, fabric, *policy, s);
    for (const auto& s : policy->policy->setup.sl2vl) applySl2VlScope(d, fabric, *policy, s);
  }
  // The engine layers its switches' pairs; an end port's table beside them
  // (planSubnet(): every SL on VL 0) is QoS's to plan, as every other port's,
  // and adoptLayeredSl2Vl() drops it with the engine's tables.
  std::vector<Sl2VlEntry> layers;
  std::ranges::copy_if(engineSl2Vl, std::back_inserter(layers),
                       [&](const Sl2VlEntry& e) { return fabric.node(e.sw).isSwitch(); });
  if (!layers.empty()) return layerTables(d, fabric, options, policy, layers);
  return finish(d, fabric);
}

void adoptLayeredSl2Vl(QosTables& tables, RoutingResult& routing) {
  if (!tables.layers) return;
  routing.sl2vl.clear();
  for (const QosSl2Vl& t : tables.layered)
    routing.sl2vl.push_back(
        Sl2VlEntry{.sw = t.port.node, .inPort = t.inPort, .outPort = t.port.port, .vl = t.vl});
  // The engine's order: by switch, input port, output port.
  std::ranges::sort(routing.sl2vl, {},
                    [](const Sl2VlEntry& e) { return std::tuple(e.sw, e.inPort, e.outPort); });
  routing.vlsUsed = tables.layers->vlsNeeded;
  tables.layered.clear();
  // A pair an engine names on SL 0 only said "unnamed pairs on SL 0" beside
  // the multicast trees' SL (routing/multicast/McSl.h); the classes' SLs
  // take its place, as without it.
  std::erase_if(routing.pairSls, [](const PairSl& p) { return p.sl == 0; });
}

namespace {

// With an engine that names its pairs' SLs (RoutingResult::pairSls) the SA
// answers those, not a QoS level's (PathRecords.cpp): its routes are free
// of credit loops only on them, as OpenSM's lash and dfsssp answer their
// path SL. Said once where a level names an SL of its own.
std::optional<std::string> pairSlConflict(const ResolvedQos* policy, const RoutingResult& routing) {
  if (routing.pairSls.empty() || !policy || !policy->policy) return std::nullopt;
  std::vector<std::string> levels;
  for (const QosLevel& l : policy->policy->levels)
    if (l.sl != 0) levels.push_back(fmt::format("{} (SL {})", l.name, l.sl));
  if (levels.empty()) return std::nullopt;
  return fmt::format(
      "the routing engine {} gives {} pairs an SL of their own and every other pair SL 0: the SA "
      "answers those SLs, not the QoS levels' ({}), whose classes then follow the engine's SLs; "
      "the levels still cap MTU, rate, PKey and packet life",
      routing.engine, routing.pairSls.size(), fmt::join(levels, ", "));
}

}  // namespace

Result<QosTables> planQosFor(const Fabric& fabric, const QosOptions& options,
                             const ResolvedQos* policy, RoutingResult& routing) {
  // Under QoS the trees stay on their groups' SLs (layerTables()): SL 15 is
  // a class's SL, layered as SL 0, so a layer the plan shared with the
  // trees (RoutingResult::treesShareVl) is given back, as a VL of their own
  // is.
  if (routing.treesShareVl) {
    for (Sl2VlEntry& e : routing.sl2vl) e.vl[routing::kTreeSl] = e.vl[0];
    routing.treesShareVl.reset();
  }
  auto tables = planQosTables(fabric, options, policy, routing.sl2vl);
  if (tables) adoptLayeredSl2Vl(*tables, routing);
  if (tables)
    if (auto note = pairSlConflict(policy, routing)) tables->notes.push_back(std::move(*note));
  return tables;
}

}  // namespace ibsm::qos
