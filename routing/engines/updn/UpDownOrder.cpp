#include "routing/engines/updn/UpDownOrder.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "routing/engines/updn/UpDownHint.h"

namespace ibsm::routing::updn {
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

// The leaf level: switches carrying hosts, except those with under a quarter
// of the median host count (the SM's own node on a spine does not make the
// spine a leaf).
std::vector<SwitchIndex> leafSwitches(const SwitchGraph& graph,
                                      std::span<const SwitchIndex> component) {
  std::vector<std::size_t> counts;
  for (const SwitchIndex s : component)
    if (graph.caCount(s) > 0) counts.push_back(graph.caCount(s));
  if (counts.empty()) return {};
  std::ranges::nth_element(counts, counts.begin() + counts.size() / 2);
  const std::size_t median = counts[counts.size() / 2];
  std::vector<SwitchIndex> leaves;
  for (const SwitchIndex s : component)
    if (graph.caCount(s) > 0 && graph.caCount(s) * 4 >= median) leaves.push_back(s);
  return leaves;
}

struct DetectedRoots {
  std::vector<SwitchIndex> roots;
  std::string how;
};

// The switches farthest from the leaf level; when there is no level to speak
// of (every switch a leaf, or no hosts at all) one root at the centre: with
// the hint, the previous tables' root while it is within a hop of the centre
// (a lost cable moves the centre of a dragonfly or a ring easily).
DetectedRoots detectRoots(const Fabric& fabric, const SwitchGraph& graph,
                          std::span<const SwitchIndex> component, Bfs& bfs,
                          PreviousChains* previous) {
  const auto guidOf = [&](SwitchIndex s) { return fabric.node(graph.nodeId(s)).guid; };
  DetectedRoots out;
  if (const auto leaves = leafSwitches(graph, component); !leaves.empty()) {
    bfs.run(leaves);
    std::uint16_t height = 0;
    for (const SwitchIndex s : component) height = std::max(height, bfs.dist(s));
    if (height > 0) {
      for (const SwitchIndex s : component)
        if (bfs.dist(s) == height) out.roots.push_back(s);
      std::ranges::sort(out.roots, {}, guidOf);
      out.how = fmt::format("the switches {} hops above the leaf switches", height);
      return out;
    }
  }
  SwitchIndex centre = component.front();
  std::uint16_t least = kUnreachable;
  std::vector<std::uint16_t> eccentricity(graph.size(), kUnreachable);
  for (const SwitchIndex s : component) {
    bfs.run(std::span(&s, 1));
    eccentricity[s] = 0;
    for (const SwitchIndex t : component) eccentricity[s] = std::max(eccentricity[s], bfs.dist(t));
    if (eccentricity[s] < least || (eccentricity[s] == least && guidOf(s) < guidOf(centre))) {
      centre = s;
      least = eccentricity[s];
    }
  }
  out.roots = {centre};
  out.how = "no leaf level: the centre of the fabric";
  if (previous && !previous->empty())
    if (const auto kept = previousCentre(graph, component, centre, *previous);
        kept && *kept != centre && eccentricity[*kept] <= least + 1) {
      out.roots = {*kept};
      out.how = "no leaf level: the previous tables' root, within a hop of the centre";
    }
  return out;
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

// T's first switch per component: its first root (by GUID), or with
// bridges the first root cabled to one.
template <typename Join>
void seedRoots(const SwitchGraph& graph, std::span<const SwitchIndex> roots,
               std::span<const std::size_t> componentOf, const std::vector<bool>& bridges,
               Join&& join) {
  std::vector<SwitchIndex> seed;
  const auto offer = [&](SwitchIndex r) {
    const std::size_t c = componentOf[r];
    if (c >= seed.size()) seed.resize(c + 1, kNoSwitch);
    if (seed[c] == kNoSwitch) seed[c] = r;
  };
  for (const SwitchIndex r : roots) {
    bool cabled = false;
    graph.forEachCable(r, [&](SwitchIndex w, const Cable&) { cabled = cabled || bridges[w]; });
    if (cabled) offer(r);
  }
  for (const SwitchIndex r : roots) offer(r);
  for (const SwitchIndex r : seed)
    if (r != kNoSwitch) join(r, 0);
}

// Grows T by Prim's rule from the first root of each component (roots sorted
// by GUID): one at a time, the root nearest to T joins along a shortest path.
// One at a time matters: a root that lost its cable toward the first bridge
// then joins through a root that already did (core, aggregation switch,
// core) instead of opening a second bridge through another leaf. Distances
// to T only shrink as it grows, so one BFS relaxes from the newcomers only.
// With `bridges` (the previous T's, previousBridges) T first grows through
// those alone, from the first root cabled to one: a lost cable leaves T, and
// with it the order of every chain kept, where the cabling still allows.
// Returns the depth in T (kUnreachable outside T).
std::vector<std::uint16_t> joinRoots(const SwitchGraph& graph, std::span<const SwitchIndex> roots,
                                     std::span<const std::size_t> componentOf,
                                     const std::vector<bool>& bridges) {
  std::vector<std::uint16_t> depth(graph.size(), kUnreachable);
  std::vector<std::uint16_t> dist(graph.size(), kUnreachable);  // to T
  std::vector<SwitchIndex> parent(graph.size(), kNoSwitch);     // toward T
  std::vector<bool> isRoot(graph.size(), false);
  for (const SwitchIndex r : roots) isRoot[r] = true;
  bool restricted = std::ranges::find(bridges, true) != bridges.end();
  std::vector<SwitchIndex> queue;
  const auto join = [&](SwitchIndex v, std::uint16_t d) {
    depth[v] = d;
    dist[v] = 0;
    queue.push_back(v);
  };
  const auto relax = [&] {
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const SwitchIndex u = queue[head];
      graph.forEachCable(u, [&](SwitchIndex w, const Cable&) {
        if (dist[u] + 1 >= dist[w] || (restricted && !bridges[w] && !isRoot[w])) return;
        dist[w] = static_cast<std::uint16_t>(dist[u] + 1);
        parent[w] = u;
        queue.push_back(w);
      });
    }
    queue.clear();
  };
  seedRoots(graph, roots, componentOf, bridges, join);
  std::vector<SwitchIndex> path;
  for (;;) {
    relax();
    SwitchIndex nearest = kNoSwitch;
    for (const SwitchIndex r : roots)
      if (depth[r] == kUnreachable && (nearest == kNoSwitch || dist[r] < dist[nearest]))
        nearest = r;
    if (nearest == kNoSwitch) return depth;
    if (dist[nearest] == kUnreachable) {  // the bridges join no more: the whole graph
      restricted = false;
      for (SwitchIndex v = 0; v < graph.size(); ++v) {
        dist[v] = depth[v] == kUnreachable ? kUnreachable : 0;
        if (depth[v] != kUnreachable) queue.push_back(v);
      }
      continue;
    }
    path.clear();
    SwitchIndex v = nearest;
    for (; depth[v] == kUnreachable; v = parent[v]) path.push_back(v);
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      join(*it, static_cast<std::uint16_t>(depth[v] + 1));
      v = *it;
    }
  }
}

// T's switches first by depth in T, then the others by rank; ties by GUID.
std::vector<std::uint32_t> positions(const Fabric& fabric, const SwitchGraph& graph,
                                     std::span<const std::uint16_t> depth,
                                     std::span<const std::uint16_t> rank) {
  std::vector<SwitchIndex> sorted(graph.size());
  std::iota(sorted.begin(), sorted.end(), SwitchIndex{0});
  const auto key = [&](SwitchIndex s) {
    const bool inTree = depth[s] != kUnreachable;
    return std::tuple(!inTree, inTree ? depth[s] : rank[s], fabric.node(graph.nodeId(s)).guid);
  };
  std::ranges::sort(sorted, [&](SwitchIndex a, SwitchIndex b) { return key(a) < key(b); });
  std::vector<std::uint32_t> out(graph.size());
  for (std::uint32_t i = 0; i < sorted.size(); ++i) out[sorted[i]] = i;
  return out;
}

}  // namespace

Result<UpDownOrder> upDownOrder(const Fabric& fabric, const SwitchGraph& graph,
                                const std::vector<Guid>& rootGuids, PreviousChains* previous) {
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
    const auto found = detectRoots(fabric, graph, parts[c], bfs, previous);
    order.notes.push_back(fmt::format(
        "updn roots detected{} ({}): {}",
        order.roots.empty() ? "" : fmt::format(" for the {} switches without one", parts[c].size()),
        found.how, guidList(fabric, graph, found.roots)));
    order.roots.insert(order.roots.end(), found.roots.begin(), found.roots.end());
  }
  std::ranges::sort(order.roots, {}, guidOf);

  bfs.run(order.roots);
  std::vector<std::uint16_t> rank(graph.size());
  for (SwitchIndex s = 0; s < graph.size(); ++s) rank[s] = bfs.dist(s);
  const auto bridges = previous && !previous->empty()
                           ? previousBridges(graph, order.roots, *previous)
                           : std::vector<bool>(graph.size(), false);
  const auto depth = joinRoots(graph, order.roots, componentOf, bridges);
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    if (depth[s] != kUnreachable && rank[s] != 0) ++order.joiningSwitches;
  if (order.joiningSwitches > 0)
    order.notes.push_back(fmt::format(
        "updn joined the {} roots through {} more switches ordered with them, so that every "
        "switch has a legal path to every other",
        order.roots.size(), order.joiningSwitches));

  order.position = positions(fabric, graph, depth, rank);
  return order;
}

}  // namespace ibsm::routing::updn
