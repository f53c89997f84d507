#include <fmt/format.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/Report.h>
#include <ibsm/StableRoutes.h>

#include <set>
#include <tuple>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm {
namespace {

struct Target {
  Lid lid;
  NodeId sw{0};          // the switch that delivers it
  std::uint8_t port{0};  // its port toward the owner; 0 = the switch's own LID
};

std::vector<Target> targets(const Fabric& fabric) {
  const routing::SwitchGraph graph(fabric);
  std::vector<Target> out;
  for (routing::SwitchIndex s = 0; s < graph.size(); ++s)
    for (const routing::Endpoint& e : graph.endpoints(s)) {
      if (e.base.value == 0) continue;
      for (std::uint32_t k = 0; k < (1u << e.lmc) && e.base.value + k <= kMaxUnicastLid; ++k)
        out.push_back(
            {Lid{static_cast<std::uint16_t>(e.base.value + k)}, graph.nodeId(s), e.switchPort});
    }
  return out;
}

// Whether each switch's previous chain toward one target still holds, by a
// walk that marks every switch it passes (a loop or a dead end breaks all).
class Chains {
 public:
  Chains(const Fabric& fabric, const std::vector<Lft>& previous)
      : fabric_(fabric), previous_(previous), state_(fabric.size(), 0), stamp_(fabric.size(), 0) {}

  void next(const Target& t) {
    target_ = t;
    ++generation_;
  }

  bool holds(NodeId s) {
    path_.clear();
    NodeId at = s;
    bool ok = false;
    for (;;) {
      if (stamp_[at] == generation_) {
        ok = state_[at] == kHolds;  // kWalking: a loop
        break;
      }
      stamp_[at] = generation_;
      state_[at] = kWalking;
      path_.push_back(at);
      const auto step = hop(at);
      if (!step.next) {
        ok = step.delivered;
        break;
      }
      at = *step.next;
    }
    for (const NodeId n : path_) state_[n] = ok ? kHolds : kBroken;
    return ok;
  }

  bool hadRoute(NodeId s) const { return entry(s) != kNoRoute; }
  std::uint8_t entry(NodeId s) const {
    return s < previous_.size() ? previous_[s].at(target_.lid) : kNoRoute;
  }

 private:
  static constexpr std::uint8_t kWalking = 1, kHolds = 2, kBroken = 3;
  struct Step {
    std::optional<NodeId> next;
    bool delivered{false};
  };

  Step hop(NodeId s) const {
    const std::uint8_t p = entry(s);
    const Node& node = fabric_.node(s);
    if (p == kNoRoute || p > node.numPorts()) return {};
    if (p == 0) return {std::nullopt, s == target_.sw && target_.port == 0};
    const auto& remote = node.ports[p].remote;
    if (!remote) return {};
    if (fabric_.node(remote->node).isSwitch()) return {remote->node, false};
    return {std::nullopt, s == target_.sw && p == target_.port};
  }

  const Fabric& fabric_;
  const std::vector<Lft>& previous_;
  Target target_{};
  std::vector<std::uint8_t> state_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t generation_{0};
  std::vector<NodeId> path_;
};

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

// The fresh tables with every entry whose previous path holds put back.
RoutingResult mix(const Fabric& fabric, const RoutingResult& fresh,
                  const std::vector<Lft>& previous, StableRoutesStats& stats) {
  RoutingResult out = fresh;
  const auto present = targets(fabric);
  keepAbsentLids(present, previous, out);
  Chains chains(fabric, previous);
  const auto switches = fabric.switches();
  std::set<std::pair<NodeId, std::uint16_t>> brokenBlocks;
  for (const Target& t : present) {
    chains.next(t);
    for (const NodeId s : switches) {
      auto& port = out.lfts[s].port;
      if (t.lid.value >= port.size()) continue;
      if (chains.holds(s)) {
        port[t.lid.value] = chains.entry(s);
        stats.kept += 1;
      } else {
        stats.fromFresh += 1;
        if (!chains.hadRoute(s)) continue;
        stats.broken += 1;
        brokenBlocks.emplace(s, static_cast<std::uint16_t>(t.lid.value / kLftBlockSize));
      }
    }
  }
  stats.brokenBlocks = brokenBlocks.size();
  return out;
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
  auto fresh = registry.route(fabric, engines, options);
  if (!fresh) return fresh;
  if (change == FabricChange::CapacityGained || previous.empty()) {
    stats.why = "inter-switch capacity came back (or no previous tables): fresh tables";
    return fresh;
  }
  // The counts of the mix, whichever way the candidate is made.
  RoutingResult candidate = mix(fabric, *fresh, previous, stats);
  if (change == FabricChange::Unknown && stats.broken == 0) {
    stats.why = "no previous path is broken and the previous fabric is unknown: fresh tables";
    return fresh;
  }
  options.previous = previous;
  if (auto hinted = registry.route(fabric, engines, options); hinted && hinted->followedPrevious) {
    candidate = std::move(*hinted);
    keepAbsentLids(targets(fabric), previous, candidate);
  }
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
  stats.stabilised = true;
  candidate.notes.push_back(fmt::format(
      "stable under change: {} (switch, LID) entries whose previous path holds kept, {} whose "
      "previous path broke routed anew; busiest link {} routes against {} for fresh tables",
      stats.kept, stats.broken, report.linkLoad.max, freshReport.linkLoad.max));
  return candidate;
}

}  // namespace ibsm
