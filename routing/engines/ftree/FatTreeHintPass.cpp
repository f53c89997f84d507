#include "routing/engines/ftree/FatTreeHintPass.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeDmodk.h"

namespace ibsm::routing::ftree {
namespace {

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

// The copied columns' LIDs and base LIDs' loads, for the verdict.
void sumCopied(const DegradedTree& tree, HintPass& pass) {
  pass.baseLoad.assign(tree.layout.cables(), 0);
  for (const HeldFlows& w : pass.work)
    for (std::size_t c = 0; c < pass.baseLoad.size(); ++c) pass.baseLoad[c] += w.loads[0][c];
  for (const Watched& x : pass.watched)
    if (tree.destinations[pass.order[pass.held[x.held]]].layer == 0)
      pass.baseLoad[x.cable] += x.flow;
  for (const std::size_t k : pass.held)
    pass.copiedLids.push_back(tree.destinations[pass.order[k]].lid.value);
}

}  // namespace

HintPass hintPass(const DegradedTree& tree, const std::vector<std::size_t>& order,
                  const HintColumns& hint, unsigned threads) {
  const FatTreeLayout& layout = tree.layout;
  const auto& dests = tree.destinations;
  HintPass pass;
  pass.order = order;
  std::vector<bool> wanted(layout.leaves.size(), false);
  for (const std::size_t i : order) wanted[layout.leafIndex[dests[i].leaf]] = true;
  pass.toward = towardLeaves(tree, wanted, threads);
  pass.way = classify(tree, order, pass.toward, hint);
  for (std::size_t k = 0; k < order.size(); ++k)
    if (pass.way[k] == Way::kHeld) pass.held.push_back(k);
  // The fewest hops from the leaves of the columns held or routed, at
  // once, for their longer routes (Lengths::count without a search each).
  std::vector<bool> measured(layout.leaves.size(), false);
  for (std::size_t k = 0; k < order.size(); ++k)
    if (pass.way[k] != Way::kLeft) measured[layout.leafIndex[dests[order[k]].leaf]] = true;
  pass.dist = leafDistances(layout, measured, threads);
  // The held columns' flows and lengths, on threads.
  std::vector<bool> watch(layout.cables(), false);
  for (const SwitchIndex s : tree.degraded.shortList())
    for (const CableId c : layout.upCables(s)) watch[c] = true;
  std::vector<std::size_t> heldDests;
  for (const std::size_t k : pass.held) heldDests.push_back(order[k]);
  pass.work = countHeldColumns(tree, hint, watch, heldDests, threads, pass.dist);
  for (HeldFlows& w : pass.work) {
    pass.watched.insert(pass.watched.end(), w.watched.begin(), w.watched.end());
    w.watched.clear();
  }
  std::ranges::sort(pass.watched, {}, &Watched::held);
  sumCopied(tree, pass);
  return pass;
}

std::vector<std::size_t> caOrder(const FatTreeLayout& layout,
                                 const std::vector<Destination>& destinations) {
  std::vector<std::size_t> order(destinations.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, {}, [&](std::size_t i) {
    return std::tuple(layout.canon[destinations[i].leaf], destinations[i].port);
  });
  return order;
}

std::shared_ptr<HintPass> hintPassUnderChange(const Fabric& fabric, const SwitchGraph& graph,
                                              const FatTreeFrame& frame,
                                              std::span<const Lft> previous,
                                              const PreviousHolds& holds, unsigned threads) {
  const FatTreeLayout& layout = frame.layout;
  // Where ftree routes by load (FatTreeEngine's routeBalanced).
  if (completeAndRegular(layout, frame.reach) || dmodkOnUnevenLeaves(layout, frame.reach))
    return nullptr;
  auto setup = std::make_shared<DegradedSetup>();
  setup->destinations = caDestinations(layout, graph, fabric);
  auto degraded = DegradedDmodk::make(layout, frame.reach, setup->destinations);
  if (!degraded) return nullptr;
  setup->degraded.emplace(std::move(*degraded));
  const HintColumns hint(graph, layout, previous, &holds);
  const DegradedTree tree{layout, frame.reach, frame.hub, setup->destinations, *setup->degraded};
  auto pass = std::make_shared<HintPass>(
      hintPass(tree, caOrder(layout, setup->destinations), hint, threads));
  pass->setup = std::move(setup);
  return pass;
}

const DegradedDmodk* sharedDegraded(const HintColumns& hint, const FatTreeLayout& layout,
                                    std::span<const Destination> destinations) {
  const PreviousHolds* holds = hint.holds();
  if (holds == nullptr || !holds->frame) return nullptr;
  const auto* frame = static_cast<const FatTreeFrame*>(holds->frame.get());
  if (&frame->layout != &layout || !frame->pass || !frame->pass->setup) return nullptr;
  const DegradedSetup& setup = *frame->pass->setup;
  if (setup.destinations.size() != destinations.size() || !setup.degraded) return nullptr;
  return &*setup.degraded;
}

}  // namespace ibsm::routing::ftree
