#include "UpDownOrder.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace ibsm::routing {
namespace {

// Breadth-first search from a set of switches over one SwitchGraph, reusing
// its buffers between runs (root detection runs one per CA-bearing switch).
class Bfs {
 public:
  explicit Bfs(const SwitchGraph& graph)
      : graph_(graph), dist_(graph.size()), parent_(graph.size()) {}

  void run(std::span<const SwitchIndex> sources) {
    std::ranges::fill(dist_, kUnreachable);
    queue_.clear();
    for (const SwitchIndex s : sources) {
      if (dist_[s] != kUnreachable) continue;
      dist_[s] = 0;
      parent_[s] = kNoSwitch;
      queue_.push_back(s);
    }
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const SwitchIndex u = queue_[head];
      graph_.forEachCable(u, [&](SwitchIndex v, const Cable&) {
        if (dist_[v] != kUnreachable) return;
        dist_[v] = static_cast<std::uint16_t>(dist_[u] + 1);
        parent_[v] = u;
        queue_.push_back(v);
      });
    }
  }

  std::uint16_t dist(SwitchIndex s) const { return dist_[s]; }
  SwitchIndex parent(SwitchIndex s) const { return parent_[s]; }
  std::span<const SwitchIndex> visited() const { return queue_; }  // in BFS order

 private:
  const SwitchGraph& graph_;
  std::vector<std::uint16_t> dist_;
  std::vector<SwitchIndex> parent_;
  std::vector<SwitchIndex> queue_;
};

std::string guidList(const Fabric& fabric, const SwitchGraph& graph,
                     std::span<const SwitchIndex> switches) {
  constexpr std::size_t kShown = 8;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < switches.size() && i < kShown; ++i)
    names.push_back(fmt::format("{}", fabric.node(graph.nodeId(switches[i])).guid));
  if (switches.size() > kShown)
    names.push_back(fmt::format("and {} more", switches.size() - kShown));
  return fmt::format("{}", fmt::join(names, ", "));
}

// Least eccentricity toward the CA-bearing switches of one component (toward
// all its switches when none carries a CA); one root when all tie.
std::vector<SwitchIndex> detectRoots(const Fabric& fabric, const SwitchGraph& graph,
                                     std::span<const SwitchIndex> component, Bfs& bfs) {
  std::vector<SwitchIndex> leaves;
  for (const SwitchIndex s : component)
    if (graph.caCount(s) > 0) leaves.push_back(s);
  if (leaves.empty()) leaves.assign(component.begin(), component.end());

  std::vector<std::uint16_t> ecc(component.size(), 0);
  for (const SwitchIndex leaf : leaves) {
    bfs.run(std::span(&leaf, 1));
    for (std::size_t i = 0; i < component.size(); ++i)
      ecc[i] = std::max(ecc[i], bfs.dist(component[i]));
  }
  const auto least = std::ranges::min(ecc);
  std::vector<SwitchIndex> roots;
  for (std::size_t i = 0; i < component.size(); ++i)
    if (ecc[i] == least) roots.push_back(component[i]);

  const auto guidOf = [&](SwitchIndex s) { return fabric.node(graph.nodeId(s)).guid; };
  std::ranges::sort(roots, {}, guidOf);
  if (roots.size() == component.size()) roots.resize(1);
  return roots;
}

// Connected components, each listed in BFS order from its first switch.
std::vector<std::vector<SwitchIndex>> components(const SwitchGraph& graph, Bfs& bfs) {
  std::vector<std::vector<SwitchIndex>> out;
  std::vector<bool> seen(graph.size(), false);
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    if (seen[s]) continue;
    bfs.run(std::span(&s, 1));
    out.emplace_back(bfs.visited().begin(), bfs.visited().end());
    for (const SwitchIndex v : out.back()) seen[v] = true;
  }
  return out;
}

// Grows T from the first root of each component (roots sorted by GUID) until
// it holds every root: each round attaches the roots nearest to T along the
// BFS tree of that round. Returns the depth in T (kUnreachable outside T).
std::vector<std::uint16_t> joinRoots(const SwitchGraph& graph, std::span<const SwitchIndex> roots,
                                     std::span<const std::size_t> componentOf, Bfs& bfs) {
  std::vector<std::uint16_t> depth(graph.size(), kUnreachable);
  std::vector<SwitchIndex> tree;
  std::vector<bool> componentSeeded;
  for (const SwitchIndex r : roots) {
    const std::size_t c = componentOf[r];
    if (c >= componentSeeded.size()) componentSeeded.resize(c + 1, false);
    if (componentSeeded[c]) continue;
    componentSeeded[c] = true;
    depth[r] = 0;
    tree.push_back(r);
  }
  std::vector<SwitchIndex> path;
  for (;;) {
    bfs.run(tree);
    std::uint16_t nearest = kUnreachable;
    for (const SwitchIndex r : roots)
      if (depth[r] == kUnreachable) nearest = std::min(nearest, bfs.dist(r));
    if (nearest == kUnreachable) return depth;
    for (const SwitchIndex r : roots) {
      if (depth[r] != kUnreachable || bfs.dist(r) != nearest) continue;
      path.clear();
      SwitchIndex v = r;
      for (; depth[v] == kUnreachable; v = bfs.parent(v)) path.push_back(v);
      for (auto it = path.rbegin(); it != path.rend(); ++it) {
        depth[*it] = static_cast<std::uint16_t>(depth[v] + 1);
        v = *it;
        tree.push_back(v);
      }
    }
  }
}

}  // namespace

Result<UpDownOrder> upDownOrder(const Fabric& fabric, const SwitchGraph& graph,
                                const std::vector<Guid>& rootGuids) {
  const auto guidOf = [&](SwitchIndex s) { return fabric.node(graph.nodeId(s)).guid; };
  UpDownOrder order;
  for (const Guid g : rootGuids) {
    const auto id = fabric.findNode(g);
    if (!id || !fabric.node(*id).isSwitch())
      return fail(fmt::format("root GUID {} is not a switch in the fabric", g));
    order.roots.push_back(graph.index(*id));
  }
  std::ranges::sort(order.roots, {}, guidOf);
  const auto [dupFirst, dupLast] = std::ranges::unique(order.roots);
  order.roots.erase(dupFirst, dupLast);
  if (!order.roots.empty())
    order.notes.push_back(
        fmt::format("updn roots as configured: {}", guidList(fabric, graph, order.roots)));

  Bfs bfs(graph);
  const auto parts = components(graph, bfs);
  std::vector<std::size_t> componentOf(graph.size());
  for (std::size_t c = 0; c < parts.size(); ++c)
    for (const SwitchIndex s : parts[c]) componentOf[s] = c;
  std::vector<bool> hasRoot(parts.size(), false);
  for (const SwitchIndex r : order.roots) hasRoot[componentOf[r]] = true;

  for (std::size_t c = 0; c < parts.size(); ++c) {
    if (hasRoot[c]) continue;
    const auto found = detectRoots(fabric, graph, parts[c], bfs);
    order.notes.push_back(fmt::format(
        "updn roots detected{} (least eccentricity toward CA-bearing switches): {}",
        order.roots.empty() ? "" : fmt::format(" for the {} switches without one", parts[c].size()),
        guidList(fabric, graph, found)));
    order.roots.insert(order.roots.end(), found.begin(), found.end());
  }
  std::ranges::sort(order.roots, {}, guidOf);

  bfs.run(order.roots);
  std::vector<std::uint16_t> rank(graph.size());
  for (SwitchIndex s = 0; s < graph.size(); ++s) rank[s] = bfs.dist(s);
  const auto depth = joinRoots(graph, order.roots, componentOf, bfs);
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    if (depth[s] != kUnreachable && rank[s] != 0) ++order.joiningSwitches;
  if (order.joiningSwitches > 0)
    order.notes.push_back(fmt::format(
        "updn joined the {} roots through {} more switches ordered with them, so that every "
        "switch has a legal path to every other",
        order.roots.size(), order.joiningSwitches));

  std::vector<SwitchIndex> sorted(graph.size());
  std::iota(sorted.begin(), sorted.end(), SwitchIndex{0});
  const auto key = [&](SwitchIndex s) {
    const bool inTree = depth[s] != kUnreachable;
    return std::tuple(!inTree, inTree ? depth[s] : rank[s], guidOf(s));
  };
  std::ranges::sort(sorted, [&](SwitchIndex a, SwitchIndex b) { return key(a) < key(b); });
  order.position.resize(graph.size());
  for (std::uint32_t i = 0; i < sorted.size(); ++i) order.position[sorted[i]] = i;
  return order;
}

}  // namespace ibsm::routing
