#include "routing/multicast/McRoots.h"

#include <algorithm>
#include <limits>

#include "routing/graph/BitParallelBfs.h"

namespace ibsm::routing {
namespace {

constexpr std::uint32_t kNoComponent = std::numeric_limits<std::uint32_t>::max();

// Component id of every switch, numbered in order of their lowest index.
std::vector<std::uint32_t> componentsOf(const SwitchGraph& graph, std::uint32_t& count) {
  std::vector<std::uint32_t> comp(graph.size(), kNoComponent);
  std::vector<SwitchIndex> queue;
  count = 0;
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    if (comp[s] != kNoComponent) continue;
    comp[s] = count;
    queue.assign(1, s);
    for (std::size_t i = 0; i < queue.size(); ++i)
      graph.forEachCable(queue[i], [&](SwitchIndex t, const Cable&) {
        if (comp[t] == kNoComponent) {
          comp[t] = count;
          queue.push_back(t);
        }
      });
    ++count;
  }
  return comp;
}

// Orders the central switches so that consecutive ones share as few
// neighbours as possible: on a fat tree the cores hang off the pods'
// aggregation switches in groups, and trees on cores of one group would all
// cross the same aggregation switches. Greedy: each next one is the one
// whose neighbours were used least so far (ties: lowest index).
std::vector<SwitchIndex> spreadOrder(const SwitchGraph& graph, std::vector<SwitchIndex> left) {
  constexpr std::size_t kMaxReordered = 512;  // beyond, index order: quadratic work
  if (left.size() > kMaxReordered) return left;
  std::vector<std::uint32_t> used(graph.size(), 0);
  std::vector<SwitchIndex> order;
  while (!left.empty()) {
    auto best = left.begin();
    std::uint64_t bestCost = std::numeric_limits<std::uint64_t>::max();
    for (auto it = left.begin(); it != left.end(); ++it) {
      std::uint64_t cost = 0;
      graph.forEachCable(*it, [&](SwitchIndex t, const Cable&) { cost += used[t]; });
      if (cost < bestCost) {
        bestCost = cost;
        best = it;
      }
    }
    graph.forEachCable(*best, [&](SwitchIndex t, const Cable&) { ++used[t]; });
    order.push_back(*best);
    left.erase(best);
  }
  return order;
}

// Each switch's eccentricity toward the targets: the most hops from it to a
// target it reaches. Breadth-first from 256 switches at once, a bit each
// (BitParallelBfs), so a level costs one pass over the cables for all of
// them: a BFS from every switch is otherwise most of a plan's time on a
// fabric of thousands of switches.
std::vector<std::uint16_t> eccentricities(const SwitchGraph& graph,
                                          const std::vector<bool>& target) {
  using Search = BitParallelBfs<4>;
  const std::size_t n = graph.size();
  std::vector<std::uint16_t> ecc(n, 0);
  std::vector<SwitchIndex> sources;
  Search search(n);
  const auto neighbours = [&graph](SwitchIndex s, auto&& f) {
    graph.forEachCable(s, [&](SwitchIndex t, const Cable&) { f(t); });
  };
  for (std::size_t first = 0; first < n; first += Search::kWidth) {
    sources.clear();
    for (std::size_t s = first; s < std::min(n, first + Search::kWidth); ++s)
      sources.push_back(static_cast<SwitchIndex>(s));
    Search::Bits atLevel{};  // sources that reached a target at this level
    search.run(
        sources, neighbours,
        [&](SwitchIndex s, std::uint16_t, const Search::Bits& bits) {
          if (!target[s]) return;
          for (std::size_t w = 0; w < bits.size(); ++w) atLevel[w] |= bits[w];
        },
        [&](std::uint16_t level) {
          Search::forEachBit(atLevel, [&](std::size_t k) { ecc[first + k] = level; });
          atLevel = {};
        });
  }
  return ecc;
}

}  // namespace

McRoots::McRoots(const SwitchGraph& graph) : graph_(graph), hops_(graph.size()) {
  std::uint32_t count = 0;
  component_ = componentsOf(graph, count);
  // Eccentricity is measured toward the switches with CAs (where members
  // hang); a component without any is measured toward all its switches.
  std::vector<bool> hasCas(count, false);
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    if (graph.caCount(s) > 0) hasCas[component_[s]] = true;
  std::vector<bool> target(graph.size());
  for (SwitchIndex t = 0; t < graph.size(); ++t)
    target[t] = !hasCas[component_[t]] || graph.caCount(t) > 0;
  const auto ecc = eccentricities(graph, target);
  std::vector<std::uint16_t> best(count, std::numeric_limits<std::uint16_t>::max());
  candidates_.resize(count);
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const std::uint32_t c = component_[s];
    if (ecc[s] < best[c]) {
      best[c] = ecc[s];
      candidates_[c].clear();
    }
    if (ecc[s] == best[c]) candidates_[c].push_back(s);
  }
  for (auto& c : candidates_) c = spreadOrder(graph, std::move(c));
}

const std::vector<std::uint16_t>& McRoots::hopsFrom(SwitchIndex root) {
  if (hops_[root].empty()) hops_[root] = graph_.hopsFrom(root);
  return hops_[root];
}

}  // namespace ibsm::routing
