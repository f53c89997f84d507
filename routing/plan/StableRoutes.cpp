#include <fmt/format.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/Report.h>
#include <ibsm/StableRoutes.h>

#include <set>
#include <tuple>
#include <vector>

#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"
#include "routing/plan/CreditLoopJudge.h"

namespace ibsm {
namespace {

// The busiest link routes under change may have, against fresh tables'.
constexpr double kMaxBusiestOverFresh = 1.1;

struct Target {
  Lid lid;
  routing::SwitchIndex sw{0};  // the switch that delivers it
  std::uint8_t port{0};        // its port toward the owner; 0 = the switch's own LID
};

std::vector<Target> targets(const routing::SwitchGraph& graph) {
  std::vector<Target> out;
  for (routing::SwitchIndex s = 0; s < graph.size(); ++s)
    for (const routing::Endpoint& e : graph.endpoints(s)) {
      if (e.base.value == 0) continue;
      for (std::uint32_t k = 0; k < (1u << e.lmc) && e.base.value + k <= kMaxUnicastLid; ++k)
        out.push_back({Lid{static_cast<std::uint16_t>(e.base.value + k)}, s, e.switchPort});
    }
  return out;
}

// Entries toward LIDs no port holds now keep their previous value: a host
// that comes back finds its routes where they were.
void keepAbsentLids(const std::vector<Target>& present, const std::vector<Lft>& previous,
                    RoutingResult& out) {
  std::vector<bool> live;
  for (const Target& t : present) {
    if (live.size() <= t.lid.value) live.resize(t.lid.value + 1u, false);
    live[t.lid.value] = true;
  }
  for (NodeId s = 0; s < out.lfts.size() && s < previous.size(); ++s) {
    auto& port = out.lfts[s].port;
    const auto& before = previous[s].port;
    if (port.empty() || before.empty()) continue;
    if (port.size() < before.size()) port.resize(before.size(), kNoRoute);
    for (std::size_t lid = 1; lid < before.size(); ++lid)
      if ((lid >= live.size() || !live[lid]) && before[lid] != kNoRoute) port[lid] = before[lid];
  }
}

// How the mix is counted: before routing (which chains hold), into the
// fresh tables of an engine that does not take the hint (the kept entries
// are written), or on the tables of one that does (kept: what it kept).
enum class Tally : std::uint8_t { Count, Write, Read };

// Walks every previous chain toward every LID present.
void keepHolding(const routing::SwitchGraph& graph, const std::vector<Target>& present,
                 routing::PreviousChains& chains, Tally tally, RoutingResult* candidate,
                 StableRoutesStats& stats) {
  stats.kept = stats.broken = stats.fromFresh = 0;
  std::set<std::pair<NodeId, std::uint16_t>> brokenBlocks;
  for (const Target& t : present) {
    chains.judge(t.lid, t.sw, t.port);
    for (routing::SwitchIndex s = 0; s < graph.size(); ++s) {
      bool kept = chains.holds(s);
      if (tally != Tally::Count) {
        auto& table = candidate->lfts[graph.nodeId(s)].port;
        if (t.lid.value >= table.size()) continue;  // an engine that sized it short
        auto& entry = table[t.lid.value];
        if (kept && tally == Tally::Write) entry = chains.port(s);
        kept = kept && entry == chains.port(s);
      }
      stats.kept += kept;
      stats.fromFresh += !kept;
      if (chains.holds(s) || !chains.hadRoute(s)) continue;
      stats.broken += 1;
      brokenBlocks.emplace(graph.nodeId(s),
                           static_cast<std::uint16_t>(t.lid.value / kLftBlockSize));
    }
  }
  stats.brokenBlocks = brokenBlocks.size();
}

}  // namespace

FabricChange classifyChange(const Fabric& before, const Fabric& now) {
  using End = std::tuple<Guid, std::uint8_t, Guid, std::uint8_t>;
  const auto cables = [](const Fabric& f) {
    std::set<End> out;
    for (const NodeId s : f.switches())
      for (const Port& p : f.node(s).ports)
        if (p.remote && f.node(p.remote->node).isSwitch())
          out.emplace(f.node(s).guid, p.number, f.node(p.remote->node).guid, p.remote->port);
    return out;
  };
  const auto was = cables(before), is = cables(now);
  bool gained = false, lost = false;
  for (const End& c : is) gained = gained || !was.contains(c);
  for (const End& c : was) lost = lost || !is.contains(c);
  for (const NodeId s : now.switches()) {
    const auto id = before.findNode(now.node(s).guid);
    gained = gained || !id || !before.node(*id).isSwitch();
  }
  if (gained) return FabricChange::CapacityGained;
  return lost ? FabricChange::CapacityLost : FabricChange::HostsOnly;
}

Result<RoutingResult> routeUnderChange(const Fabric& fabric, const EngineRegistry& registry,
                                       const std::vector<std::string>& engines,
                                       RoutingOptions options, const std::vector<Lft>& previous,
                                       FabricChange change, StableRoutesStats& stats) {
  stats = {};
  options.previous = {};
  const TablesJudge judge = creditLoopJudge();
  if (change == FabricChange::CapacityGained || previous.empty()) {
    stats.why = "inter-switch capacity came back (or no previous tables): fresh tables";
    return registry.route(fabric, engines, options, judge);
  }
  const routing::SwitchGraph graph(fabric);
  const auto present = targets(graph);
  routing::PreviousChains chains(graph, previous);
  if (change == FabricChange::Unknown) {
    keepHolding(graph, present, chains, Tally::Count, nullptr, stats);
    if (stats.broken == 0) {
      stats.why = "no previous path is broken and the previous fabric is unknown: fresh tables";
      return registry.route(fabric, engines, options, judge);
    }
  }
  // The hinted run first: an engine that does not take the hint returns its
  // fresh tables, so one run serves both, and only a taker runs twice.
  options.previous = previous;
  auto hinted = registry.route(fabric, engines, options, judge);
  if (!hinted) return hinted;
  const bool followed = hinted->followedPrevious;
  options.previous = {};
  auto fresh = followed ? registry.route(fabric, engines, options, judge) : *hinted;
  if (!fresh) return fresh;
  RoutingResult candidate = std::move(*hinted);
  keepHolding(graph, present, chains, followed ? Tally::Read : Tally::Write, &candidate, stats);
  keepAbsentLids(present, previous, candidate);
  const RouteReport freshReport = analyseRoutes(fabric, *fresh);
  const RouteReport report = analyseRoutes(fabric, candidate);
  stats.freshBusiest = static_cast<double>(freshReport.linkLoad.max);
  stats.busiest = static_cast<double>(report.linkLoad.max);
  const bool loops = !report.creditLoops.acyclic && freshReport.creditLoops.acyclic;
  if (report.unreachablePairs() > freshReport.unreachablePairs() || loops) {
    stats.why = fmt::format(
        "keeping the {} entries whose previous path holds would leave {} pairs unreachable{}: "
        "fresh tables",
        stats.kept, report.unreachablePairs(), loops ? " and close a credit loop" : "");
    stats.busiest = stats.freshBusiest;
    return fresh;
  }
  // Stability is worth some balance, not any: past this the flows crowded
  // around the loss cost more than the entries a fresh computation moves.
  if (stats.busiest > kMaxBusiestOverFresh * stats.freshBusiest) {
    stats.why = fmt::format(
        "keeping the {} entries whose previous path holds would load the busiest link with {} "
        "routes, more than {}x the {} of fresh tables: fresh tables",
        stats.kept, report.linkLoad.max, kMaxBusiestOverFresh, freshReport.linkLoad.max);
    stats.busiest = stats.freshBusiest;
    return fresh;
  }
  stats.stabilised = true;
  candidate.notes.push_back(fmt::format(
      "stable under change: {} (switch, LID) entries whose previous path holds kept, {} whose "
      "previous path broke routed anew; busiest link {} routes against {} for fresh tables",
      stats.kept, stats.broken, report.linkLoad.max, freshReport.linkLoad.max));
  return candidate;
}

}  // namespace ibsm
