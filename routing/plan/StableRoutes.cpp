#include <fmt/format.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/ParallelFor.h>
#include <ibsm/StableRoutes.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "routing/engines/ftree/FatTreeHeldColumns.h"
#include "routing/engines/ftree/FatTreeHintPass.h"
#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"
#include "routing/plan/CreditLoopJudge.h"
#include "routing/plan/StableTally.h"

namespace ibsm {
namespace {

using stable::changedEntries;
using stable::HeldChains;
using stable::keepAbsentLids;
using stable::lidBits;
using stable::tallyKept;
using stable::Target;
using stable::targets;

// Every switch's bit of `lid`'s row: its column holds whole.
void setWholeRow(PreviousHolds& holds, std::size_t lid, std::size_t switches) {
  std::uint64_t* row = holds.bits.data() + lid * holds.words;
  std::fill(row, row + switches / 64, ~std::uint64_t{0});
  if (switches % 64 != 0) row[switches / 64] = (std::uint64_t{1} << (switches % 64)) - 1;
}

// The LIDs present by LID: neighbours share the cache lines of every
// previous table.
std::vector<routing::ftree::HeldLane> lanesByLid(const std::vector<Target>& present) {
  std::vector<routing::ftree::HeldLane> lanes;
  lanes.reserve(present.size());
  for (const Target& t : present) lanes.push_back({t.lid, t.sw, t.port});
  std::ranges::sort(lanes, {}, [](const routing::ftree::HeldLane& l) { return l.lid.value; });
  return lanes;
}

HeldChains judgeChains(const routing::SwitchGraph& graph, const std::vector<Target>& present,
                       const std::vector<Lft>& previous, const routing::ftree::HeldColumns* whole,
                       unsigned threads) {
  std::size_t lids = 0;
  for (const Target& t : present) lids = std::max<std::size_t>(lids, t.lid.value + 1u);
  HeldChains out{lidBits(lids, graph.size()), 0, {}, 0};
  const std::vector<routing::ftree::HeldLane> lanes = lanesByLid(present);
  const unsigned n = threadCount(threads);
  std::vector<routing::PreviousChains> chains;
  chains.reserve(n);
  for (unsigned w = 0; w < n; ++w) chains.emplace_back(graph, previous);
  std::vector<routing::ftree::HeldColumns::Scratch> scratch(n);
  std::vector<std::uint64_t> broken(n, 0), wholeLids(n, 0);
  std::vector<std::set<std::pair<NodeId, std::uint16_t>>> blocks(n);
  // 64 LIDs a tile: one cache line of each previous table.
  const std::size_t tiles = (lanes.size() + 63) / 64;
  std::vector<std::uint64_t> heldOf(tiles, 0);  // per tile: its lanes held whole
  parallelFor(n, tiles, 1, [&](std::size_t begin, std::size_t end, unsigned w) {
    for (std::size_t tile = begin; tile < end; ++tile) {
      const std::span<const routing::ftree::HeldLane> lane(
          lanes.data() + tile * 64, std::min<std::size_t>(64, lanes.size() - tile * 64));
      const std::uint64_t held = whole ? whole->wholeLanes(lane, scratch[w]) : 0;
      heldOf[tile] = held;
      for (std::size_t i = 0; i < lane.size(); ++i) {
        const routing::ftree::HeldLane& t = lane[i];
        if ((held >> i) & 1u) {
          setWholeRow(out.holds, t.lid.value, graph.size());
          ++wholeLids[w];
          continue;
        }
        chains[w].judge(t.lid, t.sw, t.port);
        for (routing::SwitchIndex s = 0; s < graph.size(); ++s) {
          if (chains[w].holds(s)) {
            out.holds.set(t.lid.value, s);
          } else if (chains[w].hadRoute(s)) {
            ++broken[w];
            blocks[w].emplace(graph.nodeId(s),
                              static_cast<std::uint16_t>(t.lid.value / kLftBlockSize));
          }
        }
      }
    }
  });
  // Tiles need not start on a word of `whole`: set after, on one thread.
  out.holds.whole.assign((lids + 63) / 64, 0);
  for (std::size_t tile = 0; tile < tiles; ++tile)
    for (std::uint64_t bits = heldOf[tile]; bits != 0; bits &= bits - 1) {
      const std::size_t lid = lanes[tile * 64 + std::countr_zero(bits)].lid.value;
      out.holds.whole[lid / 64] |= std::uint64_t{1} << (lid % 64);
    }
  for (unsigned w = 0; w < n; ++w) {
    out.broken += broken[w];
    out.wholeLids += wholeLids[w];
    out.brokenBlocks.merge(blocks[w]);
  }
  return out;
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

// The LIDs every switch's table holds: below the shortest table.
std::size_t lidsInEveryTable(const RoutingResult& result, const routing::SwitchGraph& graph) {
  std::size_t out = graph.size() == 0 ? 0 : SIZE_MAX;
  for (routing::SwitchIndex s = 0; s < graph.size(); ++s)
    out = std::min(out, result.lfts[graph.nodeId(s)].port.size());
  return out;
}

// Whether `lid`'s entry is unchanged in every switch's table (`changed`
// from the previous ones) and every table holds it (`held`:
// lidsInEveryTable).
bool unchangedColumn(const PreviousHolds& changed, std::size_t lid, std::size_t held) {
  if (lid >= held || lid >= changed.lids) return false;
  const std::uint64_t* row = changed.bits.data() + lid * changed.words;
  return std::all_of(row, row + changed.words, [](std::uint64_t w) { return w == 0; });
}

// The columns the judge's hint pass found to copy whole (HintPass), by
// switch index and port, for the verdict to add rather than walk; nullopt
// when some such column is not in the tables as it was before.
std::optional<CopiedLoads> copiedLoads(const routing::ftree::FatTreeFrame& frame,
                                       const routing::ftree::HintPass& pass,
                                       const PreviousHolds& changed, const RoutingResult& result,
                                       const routing::SwitchGraph& graph) {
  const routing::ftree::FatTreeLayout& layout = frame.layout;
  CopiedLoads out;
  const std::size_t held = lidsInEveryTable(result, graph);
  for (const std::uint16_t lid : pass.copiedLids) {
    if (!unchangedColumn(changed, lid, held)) return std::nullopt;
    if (out.lids.size() <= lid) out.lids.resize(lid + 1u, false);
    out.lids[lid] = true;
  }
  for (routing::ftree::CableId c = 0; c < layout.cables(); ++c)
    out.stride = std::max<std::size_t>(out.stride, layout.port[c] + 1u);
  out.load.assign(layout.switches() * out.stride, 0);
  for (routing::SwitchIndex s = 0; s < layout.switches(); ++s)
    for (auto c = layout.cableBegin(s); c < layout.cableEnd(s); ++c)
      out.load[s * out.stride + layout.port[c]] += pass.baseLoad[c];
  out.sources.assign(layout.computeCas.begin(), layout.computeCas.end());
  return out;
}

// What the judge reads of the previous tables before routing: on a fat tree
// its frame (the tree read once, for the pass and for ftree after it), the
// columns held whole, and, when ftree routes first, the first half of its
// routing by the hint (HintPass), handed to ftree in the frame and to the
// verdict below.
struct Judged {
  std::shared_ptr<const routing::ftree::FatTreeFrame> frame;
  std::optional<routing::ftree::HeldColumns> whole;
  HeldChains held;
  std::shared_ptr<routing::ftree::HintPass> pass;
};

Judged judgePrevious(const Fabric& fabric, const routing::SwitchGraph& graph,
                     const std::vector<Target>& present, const std::vector<Lft>& previous,
                     const std::vector<std::string>& engines, const RoutingOptions& options) {
  Judged out;
  auto frame = routing::ftree::fatTreeFrame(fabric, graph, previous, options.rootGuids);
  if (frame) out.whole.emplace(graph, frame->hub, previous);
  out.held =
      judgeChains(graph, present, previous, out.whole ? &*out.whole : nullptr, options.threads);
  const bool ftreeFirst =
      !engines.empty() &&
      (engines.front() == "ftree" || engines.front() == "ftree-vl" || engines.front() == "auto");
  if (frame && ftreeFirst) {
    out.pass = routing::ftree::hintPassUnderChange(fabric, graph, *frame, previous, out.held.holds,
                                                   options.threads);
    frame->pass = out.pass;
  }
  out.frame = frame;
  out.held.holds.frame = out.frame;
  return out;
}

// The verdict on the candidate. An engine that legalises every chain of the
// mix in one order (ftree's hub order) says so: its tables need no walk of
// their channel dependencies, the columns that climb then descend in the hub
// order are weighed 64 at a time, and those the hint pass copied whole,
// unchanged in the tables, are added as the pass pushed them.
TablesVerdict judgeCandidate(const Fabric& fabric, const routing::SwitchGraph& graph,
                             const Judged& judged, const std::optional<PreviousHolds>& changed,
                             const RoutingResult& candidate, const RoutingOptions& options) {
  const bool legal = changed && candidate.legalByConstruction;
  std::optional<CopiedLoads> copied;
  if (legal && judged.pass)
    copied = copiedLoads(*judged.frame, *judged.pass, *changed, candidate, graph);
  return judgeTables(fabric, candidate, options.threads,
                     legal ? LoopCheck::ByConstruction : LoopCheck::Walk,
                     legal && judged.whole ? std::span<const std::uint32_t>(judged.whole->order())
                                           : std::span<const std::uint32_t>{},
                     copied ? &*copied : nullptr);
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

// Whether every inter-switch cable of `a`, by node GUID and port at both
// ends, is one of `b`'s. A port holds one cable, so each is looked up from
// its near end in `b` by GUID: no set of every cable of both fabrics built
// and sorted (tens of thousands on a large tree, under change on the path
// to the first LFT block written).
bool cablesWithin(const Fabric& a, const Fabric& b) {
  for (const NodeId s : a.switches()) {
    const Node& node = a.node(s);
    const std::optional<NodeId> there = b.findNode(node.guid);
    const Node* other = there && b.node(*there).isSwitch() ? &b.node(*there) : nullptr;
    for (const Port& p : node.ports) {
      if (!p.remote || !a.node(p.remote->node).isSwitch()) continue;
      if (other == nullptr || p.number >= other->ports.size()) return false;
      const std::optional<PortRef>& far = other->ports[p.number].remote;
      if (!far || !b.node(far->node).isSwitch() || far->port != p.remote->port ||
          b.node(far->node).guid != a.node(p.remote->node).guid)
        return false;
    }
  }
  return true;
}

}  // namespace

FabricChange classifyChange(const Fabric& before, const Fabric& now) {
  bool gained = !cablesWithin(now, before);
  const bool lost = !cablesWithin(before, now);
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
  options.previousHolds = nullptr;
  const TablesJudge judge = creditLoopJudge();
  if (change == FabricChange::CapacityGained || previous.empty()) {
    stats.why = "inter-switch capacity came back (or no previous tables): fresh tables";
    return registry.route(fabric, engines, options, judge);
  }
  const routing::SwitchGraph graph(fabric);
  const auto present = targets(graph);
  Judged judged = judgePrevious(fabric, graph, present, previous, engines, options);
  if (change == FabricChange::Unknown && judged.held.broken == 0) {
    stats.why = "no previous path is broken and the previous fabric is unknown: fresh tables";
    return registry.route(fabric, engines, options, judge);
  }
  // An engine that does not take the hint returns its fresh tables, so one
  // run serves both; a taker's fresh tables wait until they are needed.
  options.previous = previous;
  options.previousHolds = &judged.held.holds;
  auto hinted = registry.route(fabric, engines, options, judge);
  // ftree has routed from the pass's degraded plan: no one reads it after.
  if (judged.pass) judged.pass->setup.reset();
  if (!hinted) return hinted;
  const bool followed = hinted->followedPrevious;
  options.previous = {};
  options.previousHolds = nullptr;
  std::optional<RoutingResult> fresh;
  if (!followed) fresh = *hinted;
  RoutingResult candidate = std::move(*hinted);
  std::optional<PreviousHolds> changed;
  if (followed) changed.emplace(changedEntries(graph, previous, candidate, options.threads));
  tallyKept(graph, present, previous, judged.held, changed ? &*changed : nullptr, candidate, stats);
  keepAbsentLids(present, previous, candidate);
  const TablesVerdict mine = judgeCandidate(fabric, graph, judged, changed, candidate, options);
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
