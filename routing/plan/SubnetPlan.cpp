#include <fmt/format.h>
#include <ibsm/SubnetPlan.h>

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "routing/plan/CreditLoopJudge.h"

namespace ibsm {
namespace {

// Whether the entries of `previous` are placed by NodeId of `fabric`
// already: each switch's its GUID's, every other node's empty.
bool placedFor(const Fabric& fabric, const PreviousRoutes& previous) {
  if (previous.lfts.size() != fabric.size() || previous.guids.size() != fabric.size()) return false;
  for (NodeId n = 0; n < fabric.size(); ++n)
    if (fabric.node(n).isSwitch() ? previous.guids[n] != fabric.node(n).guid
                                  : !previous.lfts[n].port.empty())
      return false;
  return true;
}

// `fabric` as it is cabled, classified against the previous one as it was;
// `routedOn` the same without its loopback cables, for the engines.
Result<RoutingResult> routeFromPrevious(const Fabric& fabric, const Fabric& routedOn,
                                        const PlanInputs& inputs, const EngineRegistry& registry,
                                        StablePlan& stable) {
  const PreviousRoutes& previous = *inputs.previous;
  stable.change =
      previous.fabric ? classifyChange(*previous.fabric, fabric) : FabricChange::Unknown;
  std::vector<Lft> copy;
  return routeUnderChange(routedOn, registry, inputs.engines, inputs.routing,
                          previousByNode(fabric, previous, copy), stable.change, stable.stats);
}

// A cable from a node to itself carries no route, yet an engine that reads
// the cabling would take it for a link: ftree as a cycle of odd length that
// no fat tree has, so one spare-port loop turned a tree to updn.
std::vector<std::pair<PortRef, PortRef>> loopbackCables(const Fabric& fabric) {
  std::vector<std::pair<PortRef, PortRef>> out;
  for (NodeId n = 0; n < fabric.size(); ++n)
    for (const Port& p : fabric.node(n).ports)
      if (p.remote && p.remote->node == n && p.number < p.remote->port)
        out.emplace_back(PortRef{n, p.number}, *p.remote);
  return out;
}

// The fabric the engines see: without its loopback cables. NodeIds and
// ports stay as they are, so the tables fit the fabric as cabled.
std::optional<Fabric> withoutLoopbacks(const Fabric& fabric,
                                       const std::vector<std::pair<PortRef, PortRef>>& loops) {
  if (loops.empty()) return std::nullopt;
  Fabric cut = fabric;
  for (const auto& loop : loops) cut.disconnect(loop.first);
  return cut;
}

// A CA sends each packet on the VL its own port's SL2VL table gives, and
// only the SM sets that table: where the engine layers SLs on VLs, a host
// would send SL 1, 2, 4 or 15 on whatever VL its table held since reset --
// VL 15 on some HCAs, which drops every such packet at the first hop. So
// every linked CA and router port gets a table with every SL on VL 0: a
// channel out of a CA is on no credit loop (a CA forwards nothing), so the
// first hop needs only a data VL every port runs, and the leaf switch's
// table (in port the CA's) puts the SL on its layer. OpenSM writes these
// tables too (qos_ca_sl2vl). Under QoS, qos::planQosFor() plans these ports
// itself and drops these tables. Here, not in each engine, so the dry run
// and the live SM (both planSubnet()) name the same tables.
void addEndPortSl2Vl(const Fabric& fabric, RoutingResult& routing) {
  if (routing.sl2vl.empty()) return;
  std::set<PortRef> named;  // an engine's own table of an end port stands
  for (const Sl2VlEntry& e : routing.sl2vl)
    if (!fabric.node(e.sw).isSwitch()) named.insert(PortRef{e.sw, e.outPort});
  // By node GUID, as the engines list switches: the dry run's NodeIds are
  // the topology file's, the live SM's discovery's, and sl2vl.dump and
  // `ibsm dump sl2vl` list the tables in this order.
  std::vector<NodeId> ends = fabric.endNodes();
  std::ranges::sort(ends, {}, [&](NodeId id) { return fabric.node(id).guid.value; });
  std::size_t added = 0;
  for (const NodeId id : ends) {
    const Node& node = fabric.node(id);
    for (std::uint8_t p = 1; p <= node.numPorts(); ++p) {
      if (!node.ports[p].connected() || named.contains(PortRef{id, p})) continue;
      routing.sl2vl.push_back(Sl2VlEntry{.sw = id, .inPort = 0, .outPort = p, .vl = {}});
      ++added;
    }
  }
  if (added == 0) return;
  routing.notes.push_back(fmt::format(
      "{} CA and router ports' own SL2VL tables send every SL on VL 0 (the leaf switch's tables "
      "put it on its layer); the live SM leaves a port alone whose PortInfo lacks "
      "IsSLMappingSupported, which a topology file does not record",
      added));
}

}  // namespace

PreviousRoutes previousRoutesFrom(std::vector<std::pair<Guid, Lft>> tables,
                                  std::optional<Fabric> fabric) {
  PreviousRoutes out;
  const std::size_t nodes = fabric ? fabric->size() : 0;
  out.guids.resize(nodes);
  out.lfts.resize(nodes);
  std::unordered_set<Guid> seen;
  for (auto& [guid, lft] : tables) {
    if (!seen.insert(guid).second) continue;
    const auto id = fabric ? fabric->findNode(guid) : std::nullopt;
    if (id && fabric->node(*id).isSwitch()) {
      out.guids[*id] = guid;
      out.lfts[*id] = std::move(lft);
    } else {
      out.guids.push_back(guid);
      out.lfts.push_back(std::move(lft));
    }
  }
  out.fabric = std::move(fabric);
  return out;
}

PreviousRoutes previousRoutesOf(const Fabric& fabric, const RoutingResult& routing) {
  std::vector<std::pair<Guid, Lft>> tables;
  for (const NodeId s : fabric.switches())
    if (s < routing.lfts.size()) tables.emplace_back(fabric.node(s).guid, routing.lfts[s]);
  return previousRoutesFrom(std::move(tables), fabric);
}

const std::vector<Lft>& previousByNode(const Fabric& fabric, const PreviousRoutes& previous,
                                       std::vector<Lft>& copy) {
  if (placedFor(fabric, previous)) return previous.lfts;
  // By GUID: the entries past the fabric's nodes and those of switches
  // that moved; a node's place with no table of its own names none.
  std::unordered_map<Guid, std::size_t> at;
  for (std::size_t i = 0; i < previous.lfts.size(); ++i)
    if (previous.guids[i] || !previous.lfts[i].port.empty()) at.emplace(previous.guids[i], i);
  copy.assign(fabric.size(), Lft{});
  for (const NodeId s : fabric.switches())
    if (auto it = at.find(fabric.node(s).guid); it != at.end()) copy[s] = previous.lfts[it->second];
  return copy;
}

std::string_view changeName(FabricChange change) {
  switch (change) {
    case FabricChange::CapacityLost:
      return "capacity-lost";
    case FabricChange::CapacityGained:
      return "capacity-gained";
    case FabricChange::HostsOnly:
      return "hosts-only";
    case FabricChange::Unknown:
      break;
  }
  return "unknown";
}

std::string_view routesHow(const SubnetPlan& plan) {
  if (!plan.stable) return "fresh";
  return plan.stable->stats.stabilised ? "kept" : "fresh-fallback";
}

Result<SubnetPlan> planSubnet(Fabric fabric, const PlanInputs& inputs,
                              const EngineRegistry& registry) {
  auto lids = planLids(fabric, inputs.guid2lid, inputs.lmc);
  if (!lids) return std::unexpected(lids.error());
  applyLids(fabric, *lids);
  auto loops = loopbackCables(fabric);
  const std::optional<Fabric> cut = withoutLoopbacks(fabric, loops);
  const Fabric& routedOn = cut ? *cut : fabric;
  std::optional<StablePlan> stable;
  auto routed = inputs.previous
                    ? routeFromPrevious(fabric, routedOn, inputs, registry, stable.emplace())
                    : registry.route(routedOn, inputs.engines, inputs.routing, creditLoopJudge());
  if (!routed) return std::unexpected(routed.error());
  addEndPortSl2Vl(routedOn, *routed);
  routed->loopbacks = std::move(loops);
  SubnetPlan plan{std::move(fabric), std::move(*lids), std::move(*routed)};
  plan.stable = std::move(stable);
  return plan;
}

}  // namespace ibsm
