// routeWithHint (FatTreeDegradedRoute.h): the CA LIDs of a tree that lost a
// few cables, routed with previous tables, most of which hold whole.
//
// A column that holds whole (every chain climbs, then only descends in the
// hub order, and delivers) is what routing it would give: the hint keeps
// every switch's previous hop, and the legaliser finds nothing to change.
// So it is copied into the tables, and what later destinations read of it
// is counted apart: its flows on every cable (BalancedRoutes::take) and its
// routes longer than the fewest hops (Lengths::count), pushed through the
// previous tables 64 columns at a time on threads (FatTreeHintedFlows.h),
// not walked leaf by leaf. The climbs of the switches
// that lost a cable (lightestClimb) read loads of earlier destinations on
// those switches' up cables only: these flows are kept per column and added
// in destination order. Whether a destination keeps D-mod-K's column, and
// whether its short switches can climb, depends on no load (keepsDmodk,
// shortClimbs); the others take the routing of one column at a time, their
// longer routes counted on the leaf distance table the held columns read
// (leafDistances), not a search from their leaf each.
#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <vector>

#include "routing/engines/ftree/FatTreeDegradedPlan.h"
#include "routing/engines/ftree/FatTreeDegradedRoute.h"
#include "routing/engines/ftree/FatTreeHeldColumns.h"
#include "routing/engines/ftree/FatTreeHintedFlows.h"

namespace ibsm::routing::ftree {
namespace {

using Load = BalancedRoutes::Load;

enum class Way : std::uint8_t { kLeft, kHeld, kRouted };

// Today's routing of one column: D-mod-K's, the short switches' climbs by
// load, the previous chains that hold laid over it, then legalised.
bool routeOne(const DegradedTree& tree, const Toward& t, std::size_t i, DegradedSinks& out,
              std::span<const std::uint16_t> dist, std::vector<CableId>& column) {
  const Destination& d = tree.destinations[i];
  if (!tree.degraded.plainColumn(i, t.dist, column) ||
      !tree.degraded.climbShort(i, t.dist, out.balanced, column))
    return false;
  // Where the previous chain holds it wins, as over a D-mod-K column of a
  // complete tree.
  out.tally.keptFromPrevious += out.hint.apply(d.lid, d.leaf, d.port, column);
  out.balanced.take(d, column);
  out.tally.hubRoutedCa += out.legaliser.legalise(column, d.leaf);
  out.writer.write(d.lid, d.port, column, out.tally);
  countLengths(tree.layout, d, column, out.legaliser, dist, out.tally);
  return true;
}

// Left to the placement by load, held whole, or routed column by column.
std::vector<Way> classify(const DegradedTree& tree, const std::vector<std::size_t>& order,
                          const std::vector<Toward>& toward, const HintColumns& hint) {
  const auto& dests = tree.destinations;
  const auto towardOf = [&](std::size_t i) -> const Toward& {
    return toward[tree.layout.leafIndex[dests[i].leaf]];
  };
  const auto sameCa = [&](std::size_t a, std::size_t b) {
    return dests[a].leaf == dests[b].leaf && dests[a].port == dests[b].port;
  };
  std::vector<Way> way(order.size(), Way::kLeft);
  for (std::size_t first = 0, end = 0; first < order.size(); first = end) {
    end = first + 1;
    while (end < order.size() && sameCa(order[first], order[end])) ++end;
    bool takes = true;
    for (std::size_t k = first; k < end && takes; ++k)
      takes = keepsDmodk(tree, towardOf(order[k]), order[k]);
    if (!takes) continue;
    for (std::size_t k = first; k < end; ++k) {
      const std::size_t i = order[k];
      if (!hint.whole(dests[i].lid))
        way[k] = Way::kRouted;
      else if (shortClimbs(tree, towardOf(i), i))
        way[k] = Way::kHeld;
    }
  }
  return way;
}

// The held columns BalancedRoutes must remember as a CA's earlier LIDs:
// those of a CA some of whose LIDs are routed here or by load after (they
// climb apart from them), and the last CA's, which the placement by load
// may continue.
std::vector<bool> remembered(const DegradedTree& tree, const std::vector<std::size_t>& order,
                             const std::vector<Way>& way) {
  const auto& dests = tree.destinations;
  const auto sameCa = [&](std::size_t a, std::size_t b) {
    return dests[a].leaf == dests[b].leaf && dests[a].port == dests[b].port;
  };
  std::vector<bool> out(order.size(), false);
  for (std::size_t first = 0, end = 0; first < order.size(); first = end) {
    end = first + 1;
    while (end < order.size() && sameCa(order[first], order[end])) ++end;
    bool all = end != order.size();
    for (std::size_t k = first; k < end && all; ++k) all = way[k] == Way::kHeld;
    for (std::size_t k = first; k < end; ++k) out[k] = !all && way[k] == Way::kHeld;
  }
  return out;
}

// The copied columns and their base LIDs' loads, for the verdict, into the
// frame the judge built (when this routing read the tree from it).
void reportCopied(const DegradedTree& tree, const HintColumns& hint,
                  const std::vector<std::size_t>& heldDests, const std::vector<HeldFlows>& work,
                  const std::vector<Watched>& watched) {
  const PreviousHolds* holds = hint.holds();
  if (holds == nullptr || !holds->frame) return;
  const auto* frame = static_cast<const FatTreeFrame*>(holds->frame.get());
  if (&frame->layout != &tree.layout) return;
  FatTreeFrame::Copied copied;
  copied.baseLoad.assign(tree.layout.cables(), 0);
  for (const HeldFlows& w : work)
    for (std::size_t c = 0; c < copied.baseLoad.size(); ++c) copied.baseLoad[c] += w.loads[0][c];
  for (const Watched& x : watched)
    if (tree.destinations[heldDests[x.held]].layer == 0) copied.baseLoad[x.cable] += x.flow;
  for (const std::size_t i : heldDests) copied.lids.push_back(tree.destinations[i].lid.value);
  frame->copied = std::move(copied);
}

}  // namespace

std::vector<std::size_t> routeWithHint(const DegradedTree& tree,
                                       const std::vector<std::size_t>& order, DegradedSinks& out,
                                       unsigned threads) {
  const FatTreeLayout& layout = tree.layout;
  const auto& dests = tree.destinations;
  std::vector<bool> wanted(layout.leaves.size(), false);
  for (const std::size_t i : order) wanted[layout.leafIndex[dests[i].leaf]] = true;
  const std::vector<Toward> toward = towardLeaves(tree, wanted, threads);
  const std::vector<Way> way = classify(tree, order, toward, out.hint);
  std::vector<std::size_t> held;  // places in `order`
  for (std::size_t k = 0; k < order.size(); ++k)
    if (way[k] == Way::kHeld) held.push_back(k);
  // The fewest hops from the leaves of the columns held or routed here, at
  // once, for their longer routes (Lengths::count without a search each).
  std::vector<bool> measured(layout.leaves.size(), false);
  for (std::size_t k = 0; k < order.size(); ++k)
    if (way[k] != Way::kLeft) measured[layout.leafIndex[dests[order[k]].leaf]] = true;
  const std::vector<std::uint16_t> dist = leafDistances(layout, measured, threads);

  // The held columns' flows and lengths, on threads.
  std::vector<bool> watch(layout.cables(), false);
  for (const SwitchIndex s : tree.degraded.shortList())
    for (const CableId c : layout.upCables(s)) watch[c] = true;
  std::vector<std::size_t> heldDests;
  for (const std::size_t k : held) heldDests.push_back(order[k]);
  std::vector<HeldFlows> work = countHeldColumns(tree, out.hint, watch, heldDests, threads, dist);
  std::vector<Watched> watched;
  for (HeldFlows& w : work) watched.insert(watched.end(), w.watched.begin(), w.watched.end());
  reportCopied(tree, out.hint, heldDests, work, watched);
  std::ranges::sort(watched, {}, &Watched::held);

  // In destination order: what the climbs by load read of earlier columns.
  const std::vector<bool> sibling = remembered(tree, order, way);
  std::vector<std::size_t> left;
  std::vector<CableId> column;
  std::size_t h = 0, next = 0;  // the next held column, and its first watched flow
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    const Destination& d = dests[i];
    const Toward& t = toward[layout.leafIndex[d.leaf]];
    if (way[k] == Way::kLeft ||
        (way[k] == Way::kRouted && !routeOne(tree, t, i, out, dist, column))) {
      left.push_back(i);
      continue;
    }
    if (way[k] != Way::kHeld) continue;
    for (; next < watched.size() && watched[next].held == h; ++next)
      out.balanced.addLoad(d.layer, watched[next].cable, watched[next].flow);
    ++h;
    if (sibling[k]) {
      column.assign(layout.switches(), kNoCable);
      out.hint.apply(d.lid, d.leaf, d.port, column);
      out.balanced.remember(d, column);
    }
  }

  for (std::size_t layer = 0; layer < work.front().loads.size(); ++layer) {
    std::vector<Load> sum(layout.cables(), 0);
    for (const HeldFlows& w : work)
      for (std::size_t c = 0; c < sum.size(); ++c) sum[c] += w.loads[layer][c];
    out.balanced.addLoads(static_cast<std::uint8_t>(layer), sum);
  }
  for (const HeldFlows& w : work) out.tally += w.tally;
  std::vector<std::uint16_t> lids;
  for (const std::size_t k : held) lids.push_back(dests[order[k]].lid.value);
  std::ranges::sort(lids);
  parallelFor(threadCount(threads), layout.switches(), 64,
              [&](std::size_t b, std::size_t e, unsigned) {
                out.writer.copy(
                    lids, [&](SwitchIndex s) { return out.hint.previousTable(s); },
                    static_cast<SwitchIndex>(b), static_cast<SwitchIndex>(e));
              });
  return left;
}

}  // namespace ibsm::routing::ftree
