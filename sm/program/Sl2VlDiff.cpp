// diff()'s SL2VL part: the SLtoVLMappingTables the routing result and the
// QoS tables ask for (plannedSl2Vl: never both for one port pair, as
// qos::planQosTables multiplies QoS classes into the engine's own tables),
// how to reach each (directed route, attribute modifier), and those not
// known to hold what the plan wants. A switch's table is per (input port,
// output port): modifier bits 15..8 name the input port, bits 7..0 the
// output port (IBA 14.2.5.8; the "all ports" bits 16 and 17 of
// OptimizedSLtoVLMappingProgramming are not used, ibsim lacks them). A CA
// port has one table, modifier 0, reached through that port; an Sl2VlEntry
// for a CA names the port as outPort (planSubnet() adds one for every linked
// CA and router port where the engine layers SLs, QoS plans its own), and is
// written only where the port's PortInfo, as this sweep read it, advertises
// IsSLMappingSupported.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sm/program/Diff.h"
#include "sm/program/DiffParts.h"

namespace ibsm::sm::program {
Result<void> checkSl2VlEntries(const Fabric& fabric, const std::vector<Sl2VlEntry>& entries) {
  std::set<PortPairKey> seen;
  for (const Sl2VlEntry& e : entries) {
    if (e.sw >= fabric.size()) {
      return fail(
          fmt::format("the SL2VL tables name node {}, which the fabric lacks: route again", e.sw));
    }
    const Node& node = fabric.node(e.sw);
    const std::size_t ports = node.ports.size();
    if (e.inPort >= ports || e.outPort >= ports || (!node.isSwitch() && e.outPort == 0)) {
      return fail(fmt::format(
          "the SL2VL tables name {} in port {} out port {}, which it lacks: route again",
          node.description, e.inPort, e.outPort));
    }
    if (!seen.insert(sl2vlOwner(node, e)).second) {
      return fail(fmt::format(
          "the SL2VL tables list {} in port {} out port {} twice (one port pair has one table: "
          "QoS classes go into the engine's own, as qos::planQosTables plans them): plan again",
          node.description, e.inPort, e.outPort));
    }
    if (std::ranges::any_of(e.vl, [](std::uint8_t vl) { return vl > 15; })) {
      return fail(fmt::format("the SL2VL table of {} in port {} out port {} has a VL above 15",
                              node.description, e.inPort, e.outPort));
    }
  }
  return {};
}

std::vector<Sl2VlEntry> qosSl2VlEntries(const SubnetPlan& plan) {
  std::vector<Sl2VlEntry> entries;
  if (!plan.qosTables) return entries;
  for (const ProgrammedSl2Vl& t : programmedSl2Vl({}, &*plan.qosTables).tables)
    entries.push_back(t.entry);
  return entries;
}

PlannedSl2VlTables plannedSl2Vl(const SubnetPlan& plan) {
  return programmedSl2Vl(plan.routing.sl2vl, plan.qosTables ? &*plan.qosTables : nullptr);
}

namespace {

// A QoS table as OpenSM writes it: each VL the output port does not run
// folded into the ones it does (VL 15, "drop", kept).
SlToVlTable maskedForPort(const DiffInput& in, const Sl2VlEntry& e) {
  SlToVlTable table{e.vl};
  const std::uint8_t mask = vlMask(operationalVlsAfterSweep(in.seen, PortRef{e.sw, e.outPort}));
  for (std::uint8_t& vl : table.vl) {
    if (vl != 15) vl &= mask;
  }
  return table;
}

// PortInfo:CapabilityMask IsSLMappingSupported (IBA 14.2.5.6).
constexpr std::uint32_t kIsSlMappingSupported = 1U << 6;

// A CA or router port that does not advertise SL mapping has no table to
// write (OpenSM skips it too), whoever planned it, the engine's layering or
// QoS; a switch's tables are written as the engine's always were.
bool mapsSls(const DiffInput& in, const Node& node, const Sl2VlEntry& e) {
  if (node.isSwitch()) return true;
  auto it = in.seen.portInfo.find(PortRef{e.sw, e.outPort});
  return it != in.seen.portInfo.end() && (it->second.capabilityMask & kIsSlMappingSupported) != 0;
}

}  // namespace

void diffSl2Vl(const DiffInput& in, ProgramDiff& out) {
  const Fabric& fabric = in.seen.fabric;
  std::set<NodeId> unreachable;  // one note per node, not per table
  const PlannedSl2VlTables planned = plannedSl2Vl(in.plan);
  for (const auto& [e, fromQos] : planned.tables) {
    const Node& node = fabric.node(e.sw);
    const bool isSwitch = node.isSwitch();
    if (!mapsSls(in, node, e)) continue;
    // A switch takes the SMP on any route; a CA only for the port it came in on.
    const PortRef target{e.sw, isSwitch ? std::uint8_t{0} : e.outPort};
    auto path = pathToPort(in.seen, target);
    if (!path) {
      if (unreachable.insert(e.sw).second) {
        out.notes.push_back(
            fmt::format("{}: no directed route reaches it; its SL2VL tables are left alone",
                        fabric.describe(target)));
      }
      continue;
    }
    const auto modifier = isSwitch ? slToVlModifier(e.inPort, e.outPort) : 0U;
    const SlToVlTable want = fromQos ? maskedForPort(in, e) : SlToVlTable{e.vl};
    diffBlock(
        in.held, BlockTarget<Sl2VlKind>{.node = e.sw, .owner = sl2vlOwner(node, e)}, want,
        ProgramPhase::Sl2Vl,
        [&] { return SmpRequest::get(AttributeId::SlToVlTable, modifier, *path); },
        [&] { return SmpRequest::set(AttributeId::SlToVlTable, modifier, *path, encode(want)); },
        out);
  }
}

std::uint8_t vlMask(std::uint8_t operationalVls) {
  const unsigned code = std::clamp<unsigned>(operationalVls, 1, 5);
  return static_cast<std::uint8_t>((1U << (code - 1)) - 1);
}

std::uint8_t dataVls(std::uint8_t code) {
  static constexpr std::uint8_t kByCode[] = {0, 1, 2, 4, 8, 15};
  return code < std::size(kByCode) ? kByCode[code] : 0;
}

std::unordered_map<PortRef, std::uint8_t> vlsNeeded(const Fabric& fabric,
                                                    const std::vector<Sl2VlEntry>& entries) {
  std::unordered_map<PortRef, std::uint8_t> need;
  auto raise = [&need](PortRef p, std::uint8_t vls) {
    auto& n = need[p];
    n = std::max(n, vls);
  };
  for (const Sl2VlEntry& e : entries) {
    const PortRef out{e.sw, e.outPort};
    // VL 15 in an SL2VL table drops the packet: it needs no data VL.
    std::uint8_t vls = 0;
    for (const std::uint8_t vl : e.vl) {
      if (vl < 15) vls = std::max(vls, static_cast<std::uint8_t>(vl + 1));
    }
    if (vls == 0) continue;
    raise(out, vls);
    if (const auto& remote = fabric.port(out).remote) raise(*remote, vls);
  }
  return need;
}

}  // namespace ibsm::sm::program
