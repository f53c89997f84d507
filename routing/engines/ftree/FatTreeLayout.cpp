#include "routing/engines/ftree/FatTreeLayout.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <tuple>

#include "routing/engines/ftree/FatTreeRanking.h"

namespace ibsm::routing::ftree {
namespace {

constexpr std::uint16_t kFar = 0xFFFF;

struct Builder {
  const Fabric& fabric;
  const SwitchGraph& graph;
  FatTreeLayout& out;

  Guid guid(SwitchIndex s) const { return fabric.node(graph.nodeId(s)).guid; }
  std::string name(SwitchIndex s) const { return switchName(fabric, graph, s); }

  void collectCables() {
    const auto n = graph.size();
    out.firstCable.assign(1, 0);
    for (SwitchIndex s = 0; s < n; ++s) {
      graph.forEachCable(s, [&](SwitchIndex t, const Cable& c) {
        out.to.push_back(t);
        out.port.push_back(c.port);
        out.remotePort.push_back(c.remotePort);
      });
      out.firstCable.push_back(static_cast<std::uint32_t>(out.to.size()));
    }
    out.reverse.assign(out.to.size(), kNoCable);
    for (SwitchIndex s = 0; s < n; ++s)
      for (CableId c = out.cableBegin(s); c < out.cableEnd(s); ++c) {
        const SwitchIndex t = out.to[c];
        for (CableId r = out.cableBegin(t); r < out.cableEnd(t); ++r)
          if (out.port[r] == out.remotePort[c] && out.to[r] == s) out.reverse[c] = r;
      }
  }

  std::vector<std::uint16_t> distancesFrom(std::span<const SwitchIndex> sources) const {
    std::vector<std::uint16_t> dist(graph.size(), kFar);
    std::vector<SwitchIndex> queue(sources.begin(), sources.end());
    for (const SwitchIndex s : sources) dist[s] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const SwitchIndex u = queue[head];
      for (CableId c = out.cableBegin(u); c < out.cableEnd(u); ++c)
        if (dist[out.to[c]] == kFar) {
          dist[out.to[c]] = static_cast<std::uint16_t>(dist[u] + 1);
          queue.push_back(out.to[c]);
        }
    }
    return dist;
  }

  Result<void> checkConnected() const {
    std::vector<bool> seen(graph.size(), false);
    std::size_t parts = 0;
    SwitchIndex firstOfSecond = kNoSwitch;
    for (SwitchIndex s = 0; s < graph.size(); ++s) {
      if (seen[s]) continue;
      if (++parts == 2) firstOfSecond = s;
      const SwitchIndex from[] = {s};
      const auto dist = distancesFrom(from);
      for (SwitchIndex t = 0; t < graph.size(); ++t)
        if (dist[t] != kFar) seen[t] = true;
    }
    if (parts == 1) return {};
    return fail(fmt::format("the switches form {} separate parts ({} and {} are not connected)",
                            parts, name(0), name(firstOfSecond)));
  }

  Result<std::vector<SwitchIndex>> roots(const std::vector<Guid>& rootGuids) const {
    std::vector<SwitchIndex> out;
    for (const Guid g : rootGuids) {
      const auto id = fabric.findNode(g);
      if (!id) return fail(fmt::format("root GUID {} is not a node of the fabric", g));
      if (!fabric.node(*id).isSwitch())
        return fail(fmt::format("root GUID {} is not a switch (it is \"{}\")", g,
                                fabric.node(*id).description));
      out.push_back(graph.index(*id));
    }
    return out;
  }

  std::vector<std::uint32_t> hosts() const {
    std::vector<std::uint32_t> h(graph.size());
    for (SwitchIndex s = 0; s < graph.size(); ++s) h[s] = out.roles.hosts(s);
    return h;
  }

  Result<void> assignHeights(const std::vector<Guid>& rootGuids) {
    out.fromRoots = !rootGuids.empty();
    out.height.resize(graph.size());
    if (out.fromRoots) {
      auto r = roots(rootGuids);
      if (!r) return std::unexpected(r.error());
      const auto dist = distancesFrom(*r);
      out.top = *std::ranges::max_element(dist);
      for (SwitchIndex s = 0; s < graph.size(); ++s)
        out.height[s] = static_cast<std::uint16_t>(out.top - dist[s]);
      return {};
    }
    auto ranked = rankFromLeaves(out, hosts(), [&](SwitchIndex s) { return name(s); });
    if (!ranked) return std::unexpected(ranked.error());
    out.height = std::move(*ranked);
    out.top = *std::ranges::max_element(out.height);
    return {};
  }

  // Hosts on a switch with no switch below it are compute CAs; on any other
  // switch they are upper CAs.
  Result<void> classify() {
    const auto n = graph.size();
    out.computeCas.assign(n, 0);
    out.upperCas.assign(n, 0);
    for (SwitchIndex s = 0; s < n; ++s) {
      bool below = false;
      for (CableId c = out.cableBegin(s); c < out.cableEnd(s); ++c)
        below = below || out.height[out.to[c]] < out.height[s];
      const std::uint32_t hosts = out.roles.hosts(s);
      (below ? out.upperCas : out.computeCas)[s] = hosts;
      if (below)
        for (CaRole& r : out.roles.of(s))
          if (r == CaRole::Compute) r = CaRole::Upper;
      if (!below && hosts > 0) out.unevenLeaves = out.unevenLeaves || out.height[s] > 0;
    }
    if (std::ranges::all_of(out.computeCas, [](std::uint32_t c) { return c == 0; }))
      return fail(
          "no switch is a compute leaf (a switch with hosts and no switch below it): with these "
          "levels every host hangs off a switch above others");
    return {};
  }

  Result<void> checkLevels() const {
    for (SwitchIndex s = 0; s < graph.size(); ++s) {
      for (CableId c = out.cableBegin(s); c < out.cableEnd(s); ++c) {
        const SwitchIndex t = out.to[c];
        if (t < s || out.height[t] != out.height[s]) continue;
        if (out.fromRoots)
          return fail(fmt::format(
              "switches {} and {} are cabled to each other but both at rank {} from the "
              "roots: a fat tree only cables adjacent levels",
              name(s), name(t), out.top - out.height[s]));
        return fail(fmt::format(
            "switches {} and {} are cabled to each other but both at height {}: a fat tree "
            "only cables adjacent levels",
            name(s), name(t), out.height[s]));
      }
    }
    return {};
  }

  // Per leaf, the smallest leaf GUID of its connected part of the levels up
  // to j, for j from the top down to 1: the sort key that keeps subtrees
  // together.
  std::vector<std::vector<std::uint64_t>> clusterKeys(std::span<const SwitchIndex> leaves) const {
    const auto n = graph.size();
    std::vector<std::vector<std::uint64_t>> keys(leaves.size());
    std::vector<SwitchIndex> parent(n);
    const auto find = [&](SwitchIndex x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    for (int j = static_cast<int>(out.top) - 1; j >= 1; --j) {
      std::iota(parent.begin(), parent.end(), SwitchIndex{0});
      for (SwitchIndex s = 0; s < n; ++s) {
        if (out.height[s] > j) continue;
        for (CableId c = out.cableBegin(s); c < out.cableEnd(s); ++c)
          if (out.height[out.to[c]] <= j) parent[find(s)] = find(out.to[c]);
      }
      std::vector<std::uint64_t> least(n, ~std::uint64_t{0});
      for (const SwitchIndex l : leaves) least[find(l)] = std::min(least[find(l)], guid(l).value);
      for (std::size_t i = 0; i < leaves.size(); ++i) keys[i].push_back(least[find(leaves[i])]);
    }
    return keys;
  }

  void order() {
    const auto n = graph.size();
    out.byHeight.assign(out.top + 1u, {});
    for (SwitchIndex s = 0; s < n; ++s) out.byHeight[out.height[s]].push_back(s);
    out.canon.assign(n, 0);
    const auto number = [&](std::vector<SwitchIndex>& level) {
      for (std::uint32_t i = 0; i < level.size(); ++i) out.canon[level[i]] = i;
    };
    auto& tops = out.byHeight[out.top];
    std::ranges::sort(tops, {}, [&](SwitchIndex s) { return guid(s); });
    number(tops);
    for (int h = static_cast<int>(out.top) - 1; h >= 1; --h) {
      auto& level = out.byHeight[h];
      std::vector<std::uint32_t> column(n, ~std::uint32_t{0});
      for (const SwitchIndex s : level)
        for (CableId c = out.cableBegin(s); c < out.cableEnd(s); ++c)
          if (out.height[out.to[c]] > h) column[s] = std::min(column[s], out.canon[out.to[c]]);
      std::ranges::sort(level, {}, [&](SwitchIndex s) { return std::tuple(column[s], guid(s)); });
      number(level);
    }
    if (out.top > 0) {
      auto& level0 = out.byHeight[0];
      std::ranges::sort(level0, {}, [&](SwitchIndex s) { return guid(s); });
      level0 = bySubtree(level0);
      number(level0);
    }
    std::vector<SwitchIndex> leaves;
    for (SwitchIndex s = 0; s < n; ++s)
      if (out.computeCas[s] > 0) leaves.push_back(s);
    std::ranges::sort(leaves, {}, [&](SwitchIndex s) { return guid(s); });
    out.leaves = out.top > 0 ? bySubtree(leaves) : leaves;
    out.leafIndex.assign(n, kNotLeaf);
    for (std::uint32_t i = 0; i < out.leaves.size(); ++i) out.leafIndex[out.leaves[i]] = i;
  }

  // `sorted` (by GUID) stably ordered so that every subtree is contiguous.
  std::vector<SwitchIndex> bySubtree(const std::vector<SwitchIndex>& sorted) const {
    const auto keys = clusterKeys(sorted);
    std::vector<std::size_t> idx(sorted.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::ranges::stable_sort(idx, [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    std::vector<SwitchIndex> out;
    for (const std::size_t i : idx) out.push_back(sorted[i]);
    return out;
  }

  void sortCables() {
    const auto n = graph.size();
    out.firstUp.assign(1, 0);
    out.firstDown.assign(1, 0);
    std::vector<CableId> ups, downs;
    const auto key = [&](CableId c) { return std::tuple(out.canon[out.to[c]], out.port[c]); };
    for (SwitchIndex s = 0; s < n; ++s) {
      ups.clear();
      downs.clear();
      for (CableId c = out.cableBegin(s); c < out.cableEnd(s); ++c)
        (out.height[out.to[c]] > out.height[s] ? ups : downs).push_back(c);
      std::ranges::sort(ups, {}, key);
      std::ranges::sort(downs, {}, key);
      out.up.insert(out.up.end(), ups.begin(), ups.end());
      out.down.insert(out.down.end(), downs.begin(), downs.end());
      out.firstUp.push_back(static_cast<std::uint32_t>(out.up.size()));
      out.firstDown.push_back(static_cast<std::uint32_t>(out.down.size()));
    }
  }
};

}  // namespace

std::string switchName(const Fabric& fabric, const SwitchGraph& graph, SwitchIndex s) {
  const Node& n = fabric.node(graph.nodeId(s));
  return fmt::format("\"{}\" ({})", n.description, n.guid);
}

Result<FatTreeLayout> layoutFatTree(const Fabric& fabric, const SwitchGraph& graph,
                                    const std::vector<Guid>& rootGuids) {
  if (graph.size() == 0) return fail("the fabric has no switches");
  FatTreeLayout layout{CaRoles(fabric, graph)};
  Builder b{fabric, graph, layout};
  b.collectCables();
  if (auto ok = b.checkConnected(); !ok) return std::unexpected(ok.error());
  if (auto ok = b.assignHeights(rootGuids); !ok) return std::unexpected(ok.error());
  if (auto ok = b.checkLevels(); !ok) return std::unexpected(ok.error());
  if (auto ok = b.classify(); !ok) return std::unexpected(ok.error());
  b.order();
  b.sortCables();
  return layout;
}

}  // namespace ibsm::routing::ftree
