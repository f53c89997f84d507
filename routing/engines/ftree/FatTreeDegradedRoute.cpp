#include "routing/engines/ftree/FatTreeDegradedRoute.h"

#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "routing/engines/ftree/FatTreeDegradedPlan.h"
#include "routing/engines/ftree/FatTreeFlows.h"

namespace ibsm::routing::ftree {
namespace {

using Load = BalancedRoutes::Load;

// What one thread of the columns' pass keeps.
struct Worker {
  Worker(const FatTreeLayout& layout, const TableWriter& w, std::size_t layers, bool flows)
      : writer(w), flows(layout) {
    if (flows) loads.assign(layers, std::vector<Load>(layout.cables(), 0));
  }
  TableWriter writer;
  Tally tally;
  Flows flows;
  std::vector<std::vector<Load>> loads;  // per layer, when the placement by load needs them
};

}  // namespace

bool levelsFollowHub(const FatTreeLayout& layout, const FatTreeReach& reach, const HubOrder& hub) {
  const auto cone = [&](SwitchIndex s) { return reach.under(s, hub.hub); };
  for (SwitchIndex s = 0; s < layout.switches(); ++s) {
    if (!cone(s))
      for (const CableId c : layout.upCables(s))
        if (!hub.isUp(s, layout.to[c])) return false;
    for (const CableId c : layout.downCables(s))
      if (hub.isUp(s, layout.to[c]) != cone(layout.to[c])) return false;
  }
  return true;
}

namespace {

std::uint8_t layersOf(const std::vector<Destination>& destinations) {
  std::uint8_t layers = 1;
  for (const Destination& d : destinations) layers = std::max<std::uint8_t>(layers, d.layer + 1u);
  return layers;
}

// The flows of the k-th column taken that needs no check, but those of the
// leaves that lost no cable on their own up cables (LeafFlows).
void countPlainFlows(const DegradedTree& tree, const Planner& plan, const LeafFlows& leafFlows,
                     const std::vector<SwitchIndex>& shortLeaves, std::size_t k, Worker& my) {
  const FatTreeLayout& layout = tree.layout;
  const Destination& d = tree.destinations[plan.taken[k]];
  Load* load = my.loads[d.layer].data();
  leafFlows.seed(my.flows, d, tree.degraded.dmodk().digit(plan.taken[k], 0),
                 tree.degraded.shortMask());
  for (const SwitchIndex leaf : shortLeaves) {
    if (leaf == d.leaf || layout.computeCas[leaf] == 0) continue;
    const CableId c = plan.hopOf(k, leaf);
    load[c] += layout.computeCas[leaf];
    my.flows.add(layout.to[c], layout.computeCas[leaf]);
  }
  my.flows.finish(
      tree.reach, d, [&](SwitchIndex s) { return plan.hopOf(k, s); }, load);
}

// The columns that need no hub-order check (`plain`) into the tables, on
// threads; their flows when the placement by load will need them.
std::vector<Worker> writeColumns(const DegradedTree& tree, const Planner& plan,
                                 const std::vector<bool>& plain, const LeafFlows* leafFlows,
                                 const TableWriter& writer, unsigned threads) {
  const auto& dests = tree.destinations;
  std::vector<SwitchIndex> shortLeaves;
  for (const SwitchIndex s : tree.degraded.shortList())
    if (tree.layout.leafIndex[s] != kNotLeaf) shortLeaves.push_back(s);
  const unsigned workers = threadCount(threads);
  std::vector<Worker> work;
  for (unsigned w = 0; w < workers; ++w)
    work.emplace_back(tree.layout, writer, layersOf(dests), leafFlows != nullptr);
  parallelFor(workers, plan.taken.size(), 256, [&](std::size_t b, std::size_t e, unsigned w) {
    Worker& my = work[w];
    for (; b < e; ++b) {
      if (!plain[b]) continue;
      const Toward& t = plan.toward(plan.taken[b]);
      plan.ports(b, my.writer.column(dests[plan.taken[b]].lid));
      my.tally.caRoutes += t.caRoutes;
      my.tally.longer += t.longer;
    }
  });
  if (!leafFlows) return work;
  // The flows by digits, not by LID: the columns of one digit climb on the
  // same cables above the leaves, whose loads then stay in cache. Sums, so
  // the loads do not depend on the order nor on the threads.
  std::vector<std::pair<std::uint64_t, std::size_t>> byDigits;  // (digits, k)
  for (std::size_t k = 0; k < plan.taken.size(); ++k) {
    if (!plain[k]) continue;
    std::uint64_t key = 0;
    for (std::size_t h = 0; h < tree.layout.top; ++h)
      key = key << 8 | tree.degraded.dmodk().digit(plan.taken[k], h);
    byDigits.emplace_back(key, k);
  }
  std::ranges::sort(byDigits);
  parallelFor(workers, byDigits.size(), 256, [&](std::size_t b, std::size_t e, unsigned w) {
    for (; b < e; ++b)
      countPlainFlows(tree, plan, *leafFlows, shortLeaves, byDigits[b].second, work[w]);
  });
  return work;
}

// The others, in destination order: the legaliser's choices depend on
// those it made before.
void checkColumns(const DegradedTree& tree, const Planner& plan, const std::vector<bool>& plain,
                  Worker& work, DegradedSinks& out) {
  std::vector<CableId> next(tree.layout.switches(), kNoCable);
  const auto hopOf = [&](SwitchIndex s) { return next[s]; };
  for (std::size_t k = 0; k < plan.taken.size(); ++k) {
    if (plain[k]) continue;
    const Destination& d = tree.destinations[plan.taken[k]];
    plan.column(k, next);
    if (!work.loads.empty()) {
      work.flows.seed(d, hopOf, work.loads[d.layer].data());
      work.flows.finish(tree.reach, d, hopOf, work.loads[d.layer].data());
    }
    out.tally.hubRoutedCa += out.legaliser.legalise(next, d.leaf);
    out.writer.write(d.lid, d.port, next, out.tally);
    out.lengths.count(d, next, out.legaliser, out.tally);
  }
}

// What BalancedRoutes::take would have left for the placement by load:
// the flows of every column, and the columns of the last CA taken.
void handOver(const DegradedTree& tree, const Planner& plan, const std::vector<bool>& plain,
              const LeafFlows& leafFlows, const std::vector<Worker>& work,
              BalancedRoutes& balanced) {
  const FatTreeLayout& layout = tree.layout;
  const std::size_t layers = work.front().loads.size(), digits = leafFlows.digits();
  std::vector<std::vector<std::uint32_t>> columns(layers, std::vector<std::uint32_t>(digits, 0));
  std::vector<std::vector<std::uint32_t>> onLeaf(
      layers, std::vector<std::uint32_t>(layout.leaves.size() * digits, 0));
  for (std::size_t k = 0; k < plan.taken.size(); ++k) {
    if (!plain[k]) continue;
    const Destination& d = tree.destinations[plan.taken[k]];
    const std::uint8_t v = tree.degraded.dmodk().digit(plan.taken[k], 0);
    ++columns[d.layer][v];
    ++onLeaf[d.layer][layout.leafIndex[d.leaf] * digits + v];
  }
  for (std::size_t layer = 0; layer < layers; ++layer) {
    std::vector<Load> sum(layout.cables(), 0);
    for (const Worker& w : work)
      for (std::size_t c = 0; c < sum.size(); ++c) sum[c] += w.loads[layer][c];
    leafFlows.addLeafLoads(columns[layer], onLeaf[layer], tree.degraded.shortMask(), sum.data());
    balanced.addLoads(static_cast<std::uint8_t>(layer), sum);
  }
  std::vector<CableId> next(layout.switches(), kNoCable);
  for (std::size_t k = plan.lastRun; k < plan.taken.size(); ++k) {
    plan.column(k, next);
    balanced.remember(tree.destinations[plan.taken[k]], next);
  }
}

}  // namespace

std::vector<std::size_t> routeMostByDmodk(const DegradedTree& tree,
                                          const std::vector<std::size_t>& order, DegradedSinks& out,
                                          unsigned threads) {
  if (!out.hint.empty()) return routeWithHint(tree, order, out, threads);
  const FatTreeLayout& layout = tree.layout;
  std::vector<bool> wanted(layout.leaves.size(), false);
  for (const std::size_t i : order) wanted[layout.leafIndex[tree.destinations[i].leaf]] = true;
  const std::vector<Toward> toward = towardLeaves(tree, wanted, threads);
  Planner plan(tree, toward);
  plan.run(order);
  const bool legal = levelsFollowHub(layout, tree.reach, tree.hub);
  std::vector<bool> plain(plan.taken.size());
  for (std::size_t k = 0; k < plain.size(); ++k)
    plain[k] = legal && !plan.toward(plan.taken[k]).check;
  std::optional<LeafFlows> leafFlows;
  if (!plan.left.empty()) leafFlows.emplace(layout, tree.degraded.shortMask());
  auto work =
      writeColumns(tree, plan, plain, leafFlows ? &*leafFlows : nullptr, out.writer, threads);
  for (Worker& w : work) {
    w.writer.flush();
    out.tally += w.tally;
  }
  checkColumns(tree, plan, plain, work.front(), out);
  if (leafFlows) handOver(tree, plan, plain, *leafFlows, work, out.balanced);
  return plan.left;
}

}  // namespace ibsm::routing::ftree
