#include <fmt/format.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/StableRoutes.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
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

// How the mix is counted: into the fresh tables of an engine that does not
// take the hint (the kept entries are written), or on the tables of one
// that does (kept: what it kept).
enum class Tally : std::uint8_t { Write, Read };

// The (LID, switch) entries where a taker's tables differ from the previous
// ones, as LID-major bits, found table by table: the tally then reads no
// entry of the result LID by LID (a cache miss each on a large fabric).
class ChangedEntries {
 public:
  ChangedEntries(const routing::SwitchGraph& graph, const std::vector<Lft>& previous,
                 const RoutingResult& result)
      : switches_(graph.size()) {
    const auto compared = [&](routing::SwitchIndex s) -> std::size_t {
      const NodeId id = graph.nodeId(s);
      if (id >= previous.size()) return 0;
      return std::min(result.lfts[id].port.size(), previous[id].port.size());
    };
    std::size_t lids = 0;
    for (routing::SwitchIndex s = 0; s < graph.size(); ++s) lids = std::max(lids, compared(s));
    bits_.assign((lids * switches_ + 63) / 64, 0);
    for (routing::SwitchIndex s = 0; s < graph.size(); ++s) {
      const auto now = result.lfts[graph.nodeId(s)].port.begin();
      const auto end = now + static_cast<std::ptrdiff_t>(compared(s));
      auto before = previous.size() > graph.nodeId(s) ? previous[graph.nodeId(s)].port.begin()
                                                      : now;  // unused when nothing is compared
      for (auto [a, b] = std::mismatch(now, end, before); a != end;
           std::tie(a, b) = std::mismatch(a + 1, end, b + 1)) {
        const std::size_t i = static_cast<std::size_t>(a - now) * switches_ + s;
        bits_[i >> 6] |= std::uint64_t{1} << (i & 63);
      }
    }
  }
  bool at(Lid lid, routing::SwitchIndex s) const {
    const std::size_t i = std::size_t{lid.value} * switches_ + s;
    return (i >> 6) < bits_.size() && ((bits_[i >> 6] >> (i & 63)) & 1u) != 0;
  }

 private:
  std::size_t switches_;
  std::vector<std::uint64_t> bits_;
};

// Walks every previous chain toward every LID present.
void keepHolding(const routing::SwitchGraph& graph, const std::vector<Target>& present,
                 const std::vector<Lft>& previous, routing::PreviousChains& chains, Tally tally,
                 RoutingResult& candidate, StableRoutesStats& stats) {
  stats.kept = stats.broken = stats.fromFresh = 0;
  std::optional<ChangedEntries> changed;
  if (tally == Tally::Read) changed.emplace(graph, previous, candidate);
  std::vector<std::size_t> sized(graph.size());
  for (routing::SwitchIndex s = 0; s < graph.size(); ++s)
    sized[s] = candidate.lfts[graph.nodeId(s)].port.size();
  std::set<std::pair<NodeId, std::uint16_t>> brokenBlocks;
  for (const Target& t : present) {
    chains.judge(t.lid, t.sw, t.port);
    for (routing::SwitchIndex s = 0; s < graph.size(); ++s) {
      if (t.lid.value >= sized[s]) continue;  // an engine that sized it short
      bool kept = chains.holds(s);
      if (changed)
        kept = kept && !changed->at(t.lid, s);
      else if (kept)
        candidate.lfts[graph.nodeId(s)].port[t.lid.value] = chains.port(s);
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

// Whether any switch's previous chain toward a LID present breaks: the
// first broken one settles it.
bool anyBroken(const routing::SwitchGraph& graph, const std::vector<Target>& present,
               routing::PreviousChains& chains) {
  for (const Target& t : present) {
    chains.judge(t.lid, t.sw, t.port);
    for (routing::SwitchIndex s = 0; s < graph.size(); ++s)
      if (!chains.holds(s) && chains.hadRoute(s)) return true;
  }
  return false;
}

// Why the candidate is refused for the fresh tables, or nullopt.
std::optional<std::string> refusal(const TablesVerdict& mine, const TablesVerdict& theirs,
                                   const StableRoutesStats& stats) {
  const bool loops = !mine.acyclic && theirs.acyclic;
  if (mine.unreachable > theirs.unreachable || loops)
    return fmt::format(
        "keeping the {} entries whose previous path holds would leave {} pairs unreachable{}: "
        "fresh tables",
        stats.kept, mine.unreachable, loops ? " and close a credit loop" : "");
  // Stability is worth some balance, not any: past this the flows crowded
  // around the loss cost more than the entries a fresh computation moves.
  if (stats.busiest > kMaxBusiestOverFresh * stats.freshBusiest)
    return fmt::format(
        "keeping the {} entries whose previous path holds would load the busiest link with {} "
        "routes, more than {}x the {} of fresh tables: fresh tables",
        stats.kept, mine.busiest, kMaxBusiestOverFresh, theirs.busiest);
  return std::nullopt;
}

RoutingResult stabilised(RoutingResult candidate, StableRoutesStats& stats) {
  stats.stabilised = true;
  candidate.notes.push_back(fmt::format(
      "stable under change: {} (switch, LID) entries whose previous path holds kept, {} whose "
      "previous path broke routed anew; busiest link {} routes against {}",
      stats.kept, stats.broken, stats.busiest,
      stats.freshComputed ? fmt::format("{} for fresh tables", stats.freshBusiest)
                          : fmt::format("a floor of {} for any tables (fresh ones not needed)",
                                        stats.busiestFloor)));
  return candidate;
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
  if (change == FabricChange::Unknown && !anyBroken(graph, present, chains)) {
    stats.why = "no previous path is broken and the previous fabric is unknown: fresh tables";
    return registry.route(fabric, engines, options, judge);
  }
  // An engine that does not take the hint returns its fresh tables, so one
  // run serves both; a taker's fresh tables wait until they are needed.
  options.previous = previous;
  auto hinted = registry.route(fabric, engines, options, judge);
  if (!hinted) return hinted;
  const bool followed = hinted->followedPrevious;
  options.previous = {};
  std::optional<RoutingResult> fresh;
  if (!followed) fresh = *hinted;
  RoutingResult candidate = std::move(*hinted);
  keepHolding(graph, present, previous, chains, followed ? Tally::Read : Tally::Write, candidate,
              stats);
  keepAbsentLids(present, previous, candidate);
  const TablesVerdict mine = judgeTables(fabric, candidate, options.threads);
  stats.busiest = static_cast<double>(mine.busiest);
  stats.busiestFloor = static_cast<double>(mine.busiestFloor);
  if (mine.unreachable == 0 && mine.acyclic &&
      stats.busiest <= kMaxBusiestOverFresh * stats.busiestFloor)
    return stabilised(std::move(candidate), stats);
  if (!fresh) {
    auto routed = registry.route(fabric, engines, options, judge);
    if (!routed) return routed;
    fresh = std::move(*routed);
  }
  stats.freshComputed = true;
  const TablesVerdict theirs = judgeTables(fabric, *fresh, options.threads);
  stats.freshBusiest = static_cast<double>(theirs.busiest);
  if (auto why = refusal(mine, theirs, stats)) {
    stats.why = std::move(*why);
    stats.busiest = stats.freshBusiest;
    return std::move(*fresh);
  }
  return stabilised(std::move(candidate), stats);
}

}  // namespace ibsm
