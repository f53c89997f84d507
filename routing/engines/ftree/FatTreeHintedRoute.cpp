// routeWithHint (FatTreeDegradedRoute.h): the CA LIDs of a tree that lost a
// few cables, routed with previous tables, most of which hold whole. Its
// first half, which columns are copied and what they add up to, is a
// HintPass (FatTreeHintPass.h): the judge's under change, else its own.
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
#include <optional>
#include <vector>

#include "routing/engines/ftree/FatTreeDegradedPlan.h"
#include "routing/engines/ftree/FatTreeDegradedRoute.h"
#include "routing/engines/ftree/FatTreeHeldColumns.h"
#include "routing/engines/ftree/FatTreeHintPass.h"
#include "routing/engines/ftree/FatTreeHintedFlows.h"

namespace ibsm::routing::ftree {
namespace {

using Load = BalancedRoutes::Load;

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

// The pass made for this routing by the judge under change (the frame ftree
// routes from, when it was made for this tree and order), or null.
const HintPass* givenPass(const DegradedTree& tree, const std::vector<std::size_t>& order,
                          const HintColumns& hint) {
  const PreviousHolds* holds = hint.holds();
  if (holds == nullptr || !holds->frame) return nullptr;
  const auto* frame = static_cast<const FatTreeFrame*>(holds->frame.get());
  if (&frame->layout != &tree.layout || !frame->pass || frame->pass->order != order) return nullptr;
  return frame->pass.get();
}

// The held columns' loads and tallies into `out`, and the columns copied
// into the tables, on threads.
void addHeld(const DegradedTree& tree, const HintPass& pass, unsigned threads, DegradedSinks& out) {
  const FatTreeLayout& layout = tree.layout;
  for (std::size_t layer = 0; layer < pass.work.front().loads.size(); ++layer) {
    std::vector<Load> sum(layout.cables(), 0);
    for (const HeldFlows& w : pass.work)
      for (std::size_t c = 0; c < sum.size(); ++c) sum[c] += w.loads[layer][c];
    out.balanced.addLoads(static_cast<std::uint8_t>(layer), sum);
  }
  for (const HeldFlows& w : pass.work) out.tally += w.tally;
  std::vector<std::uint16_t> lids;
  for (const std::size_t k : pass.held) lids.push_back(tree.destinations[pass.order[k]].lid.value);
  std::ranges::sort(lids);
  parallelFor(threadCount(threads), layout.switches(), 64,
              [&](std::size_t b, std::size_t e, unsigned) {
                out.writer.copy(
                    lids, [&](SwitchIndex s) { return out.hint.previousTable(s); },
                    static_cast<SwitchIndex>(b), static_cast<SwitchIndex>(e));
              });
}

}  // namespace

std::vector<std::size_t> routeWithHint(const DegradedTree& tree,
                                       const std::vector<std::size_t>& order, DegradedSinks& out,
                                       unsigned threads) {
  const FatTreeLayout& layout = tree.layout;
  const auto& dests = tree.destinations;
  std::optional<HintPass> own;
  const HintPass* pass = givenPass(tree, order, out.hint);
  if (pass == nullptr) pass = &own.emplace(hintPass(tree, order, out.hint, threads));
  const std::vector<Way>& way = pass->way;
  const std::vector<Watched>& watched = pass->watched;

  // In destination order: what the climbs by load read of earlier columns.
  const std::vector<bool> sibling = remembered(tree, order, way);
  std::vector<std::size_t> left;
  std::vector<CableId> column;
  std::size_t h = 0, next = 0;  // the next held column, and its first watched flow
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    const Destination& d = dests[i];
    const Toward& t = pass->toward[layout.leafIndex[d.leaf]];
    if (way[k] == Way::kLeft ||
        (way[k] == Way::kRouted && !routeOne(tree, t, i, out, pass->dist, column))) {
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
  addHeld(tree, *pass, threads, out);
  return left;
}

}  // namespace ibsm::routing::ftree
