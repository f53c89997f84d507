// Recognition works on the cabling only. Dragonfly+ is told by its layers:
// the switches with hosts are leaves, the others spines, and the leaf-spine
// cables bind a group. A dragonfly has no layers: its groups are the cliques
// of local links, found per router as the largest clique among its switch
// neighbours (at most 64 of them, as bit masks) and joined by union-find, so
// a group missing a few local cables still comes out whole. Global links only
// close triangles by accident, and never cliques as large as a group.
#include <fmt/format.h>
#include <ibsm/Dragonfly.h>

#include <algorithm>
#include <bit>
#include <numeric>

#include "routing/graph/SwitchGraph.h"

namespace ibsm {
namespace {

using routing::SwitchGraph;
using routing::SwitchIndex;

class Groups {
 public:
  explicit Groups(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::uint32_t> parent_;
};

// Distinct switch neighbours of every switch, sorted.
std::vector<std::vector<SwitchIndex>> neighbours(const SwitchGraph& g) {
  std::vector<std::vector<SwitchIndex>> out(g.size());
  for (SwitchIndex s = 0; s < g.size(); ++s) {
    g.forEachCable(s, [&](SwitchIndex t, const routing::Cable&) {
      if (t != s) out[s].push_back(t);
    });
    std::ranges::sort(out[s]);
    out[s].erase(std::unique(out[s].begin(), out[s].end()), out[s].end());
  }
  return out;
}

bool adjacent(const std::vector<std::vector<SwitchIndex>>& nb, SwitchIndex a, SwitchIndex b) {
  return std::ranges::binary_search(nb[a], b);
}

// The largest clique among the neighbours of one router (Bron-Kerbosch with
// pivoting on bit masks); ties go to the clique whose members share the most
// neighbours with the router, which local links do and global links do not.
class CliqueSearch {
 public:
  explicit CliqueSearch(std::vector<std::uint64_t> adj) : adj_(std::move(adj)) {}

  std::uint64_t largest() {
    const std::uint64_t all = adj_.size() == 64 ? ~0ull : (1ull << adj_.size()) - 1;
    expand(0, all, 0);
    return best_;
  }

 private:
  int score(std::uint64_t r) const {
    int s = 0;
    for (std::uint64_t m = r; m; m &= m - 1) s += std::popcount(adj_[std::countr_zero(m)]);
    return s;
  }
  void expand(std::uint64_t r, std::uint64_t p, std::uint64_t x) {
    if (!p && !x) {
      const int size = std::popcount(r);
      const int bestSize = std::popcount(best_);
      if (size > bestSize || (size == bestSize && score(r) > score(best_))) best_ = r;
      return;
    }
    if (std::popcount(r) + std::popcount(p) < std::popcount(best_)) return;
    int pivot = std::countr_zero(p | x);
    int most = -1;
    for (std::uint64_t m = p | x; m; m &= m - 1) {
      const int u = std::countr_zero(m);
      if (const int c = std::popcount(p & adj_[u]); c > most) most = c, pivot = u;
    }
    for (std::uint64_t m = p & ~adj_[pivot]; m; m &= m - 1) {
      const int v = std::countr_zero(m);
      const std::uint64_t bit = 1ull << v;
      expand(r | bit, p & adj_[v], x & adj_[v]);
      p &= ~bit;
      x |= bit;
    }
  }

  std::vector<std::uint64_t> adj_;
  std::uint64_t best_{0};
};

std::string name(const Fabric& f, const SwitchGraph& g, SwitchIndex s) {
  return fmt::format("\"{}\" ({})", f.node(g.nodeId(s)).description, f.node(g.nodeId(s)).guid);
}

// Numbers the groups 0.. in order of their first switch and fills groupOf.
std::uint32_t numberGroups(Groups& dsu, const std::vector<bool>& member,
                           std::vector<std::uint32_t>& groupOf) {
  std::vector<std::uint32_t> id(groupOf.size(), kNoGroup);
  std::uint32_t next = 0;
  for (std::uint32_t s = 0; s < groupOf.size(); ++s) {
    if (!member[s]) continue;
    const std::uint32_t root = dsu.find(s);
    if (id[root] == kNoGroup) id[root] = next++;
    groupOf[s] = id[root];
  }
  return next;
}

MinMax span(const std::vector<std::uint32_t>& values) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::ranges::minmax(values);
  return {lo, hi};
}

// Figures shared by both shapes, from group of each switch (by switch index)
// and which switches carry global links (routers, or spines).
Result<DragonflyShape> summarise(const Fabric& f, const SwitchGraph& g,
                                 const std::vector<std::vector<SwitchIndex>>& nb,
                                 const std::vector<std::uint32_t>& group, std::uint32_t groups,
                                 DragonflyKind kind, const std::vector<DragonflyRole>& role) {
  DragonflyShape shape;
  shape.kind = kind;
  shape.groups = groups;
  shape.groupOf.assign(f.size(), kNoGroup);
  shape.roleOf.assign(f.size(), DragonflyRole::None);
  if (groups < 2) return fail("only one group: no global links to route over");

  std::vector<std::uint32_t> members(groups, 0), leaves(groups, 0);
  std::vector<std::uint32_t> pairLinks(std::size_t{groups} * groups, 0);
  std::vector<std::uint32_t> hosts, globals;
  for (SwitchIndex s = 0; s < g.size(); ++s) {
    shape.groupOf[g.nodeId(s)] = group[s];
    shape.roleOf[g.nodeId(s)] = role[s];
    ++members[group[s]];
    if (role[s] == DragonflyRole::Leaf) ++leaves[group[s]];
    if (role[s] != DragonflyRole::Spine) hosts.push_back(static_cast<std::uint32_t>(g.caCount(s)));
    std::uint32_t global = 0;
    g.forEachCable(s, [&](SwitchIndex t, const routing::Cable&) {
      if (group[t] == group[s]) return;
      ++global;
      ++pairLinks[std::size_t{group[s]} * groups + group[t]];
    });
    if (role[s] != DragonflyRole::Leaf) globals.push_back(global);
  }
  for (std::uint32_t gr = 1; gr < groups; ++gr)
    if (members[gr] != members[0] || leaves[gr] != leaves[0])
      return fail(fmt::format(
          "groups differ: group 0 has {} switches ({} with hosts), group {} has {} ({})",
          members[0], leaves[0], gr, members[gr], leaves[gr]));
  shape.switchesPerGroup = members[0];
  shape.leavesPerGroup = kind == DragonflyKind::DragonflyPlus ? leaves[0] : 0;
  shape.hostsPerSwitch = span(hosts);
  shape.globalsPerSwitch = span(globals);

  std::vector<std::uint32_t> perPair;
  for (std::uint32_t a = 0; a < groups; ++a)
    for (std::uint32_t b = a + 1; b < groups; ++b) {
      perPair.push_back(pairLinks[std::size_t{a} * groups + b]);
      if (perPair.back() == 0) ++shape.unlinkedGroupPairs;
    }
  shape.globalsPerGroupPair = span(perPair);

  // Missing local links: pairs a full group would cable and this one does not.
  std::vector<std::vector<SwitchIndex>> byGroup(groups);
  for (SwitchIndex s = 0; s < g.size(); ++s) byGroup[group[s]].push_back(s);
  for (const auto& members : byGroup)
    for (std::size_t i = 0; i < members.size(); ++i)
      for (std::size_t j = i + 1; j < members.size(); ++j) {
        const SwitchIndex s = members[i], t = members[j];
        const bool wanted = kind == DragonflyKind::Dragonfly || role[s] != role[t];
        if (wanted && !adjacent(nb, s, t)) ++shape.missingLocalLinks;
      }
  return shape;
}

Result<DragonflyShape> recognisePlus(const Fabric& f, const SwitchGraph& g,
                                     const std::vector<std::vector<SwitchIndex>>& nb) {
  const std::size_t n = g.size();
  std::vector<DragonflyRole> role(n);
  for (SwitchIndex s = 0; s < n; ++s)
    role[s] = g.caCount(s) > 0 ? DragonflyRole::Leaf : DragonflyRole::Spine;
  Groups dsu(n);
  for (SwitchIndex s = 0; s < n; ++s) {
    if (role[s] != DragonflyRole::Leaf) continue;
    for (const SwitchIndex t : nb[s]) {
      if (role[t] == DragonflyRole::Leaf)
        return fail(fmt::format("leaf {} is cabled to leaf {}", name(f, g, s), name(f, g, t)));
      dsu.unite(s, t);
    }
  }
  std::vector<bool> hasLeaf(n, false);
  for (SwitchIndex s = 0; s < n; ++s)
    if (role[s] == DragonflyRole::Leaf) hasLeaf[dsu.find(s)] = true;
  for (SwitchIndex s = 0; s < n; ++s)
    if (!hasLeaf[dsu.find(s)])
      return fail(fmt::format("spine {} is cabled to no leaf", name(f, g, s)));
  std::vector<std::uint32_t> group(n, kNoGroup);
  const std::uint32_t groups = numberGroups(dsu, std::vector<bool>(n, true), group);
  for (SwitchIndex s = 0; s < n; ++s)
    for (const SwitchIndex t : nb[s])
      if (role[s] == DragonflyRole::Spine && role[t] == DragonflyRole::Spine &&
          group[s] == group[t])
        return fail(fmt::format("spines {} and {} of one group are cabled to each other",
                                name(f, g, s), name(f, g, t)));
  return summarise(f, g, nb, group, groups, DragonflyKind::DragonflyPlus, role);
}

Result<DragonflyShape> recogniseMesh(const Fabric& f, const SwitchGraph& g,
                                     const std::vector<std::vector<SwitchIndex>>& nb) {
  const std::size_t n = g.size();
  Groups dsu(n);
  for (SwitchIndex s = 0; s < n; ++s) {
    const auto& near = nb[s];
    if (near.size() > 64)
      return fail(fmt::format("switch {} has {} switch neighbours, more than 64", name(f, g, s),
                              near.size()));
    std::vector<std::uint64_t> adj(near.size(), 0);
    for (std::size_t i = 0; i < near.size(); ++i)
      for (std::size_t j = 0; j < near.size(); ++j)
        if (i != j && adjacent(nb, near[i], near[j])) adj[i] |= 1ull << j;
    const std::uint64_t clique = CliqueSearch(std::move(adj)).largest();
    if (std::popcount(clique) < 2) continue;  // with s, fewer than 3 routers: no group
    for (std::uint64_t m = clique; m; m &= m - 1) dsu.unite(s, near[std::countr_zero(m)]);
  }
  std::vector<std::uint32_t> group(n, kNoGroup);
  const std::uint32_t groups = numberGroups(dsu, std::vector<bool>(n, true), group);
  std::vector<std::uint32_t> size(groups, 0);
  for (SwitchIndex s = 0; s < n; ++s) ++size[group[s]];
  for (SwitchIndex s = 0; s < n; ++s)
    if (size[group[s]] < 3)
      return fail(fmt::format("switch {} is in no group of 3 or more fully cabled switches",
                              name(f, g, s)));
  auto shape = summarise(f, g, nb, group, groups, DragonflyKind::Dragonfly,
                         std::vector<DragonflyRole>(n, DragonflyRole::Router));
  if (!shape) return shape;
  const std::uint64_t a = shape->switchesPerGroup;
  if (shape->missingLocalLinks * 4 > std::uint64_t{groups} * a * (a - 1) / 2)
    return fail(fmt::format("a quarter or more of the local links are missing ({})",
                            shape->missingLocalLinks));
  return shape;
}

}  // namespace

Result<DragonflyShape> recogniseDragonfly(const Fabric& fabric) {
  const SwitchGraph g(fabric);
  if (g.size() < 6) return fail("fewer than 6 switches");
  const auto nb = neighbours(g);
  bool withHosts = false, withoutHosts = false;
  for (SwitchIndex s = 0; s < g.size(); ++s) (g.caCount(s) > 0 ? withHosts : withoutHosts) = true;
  if (!withHosts) return fail("no switch has hosts");
  if (!withoutHosts) return recogniseMesh(fabric, g, nb);
  auto plus = recognisePlus(fabric, g, nb);
  if (plus) return plus;
  auto mesh = recogniseMesh(fabric, g, nb);
  if (mesh) return mesh;
  return fail(fmt::format("not a dragonfly+ ({}) nor a dragonfly ({})", plus.error().message,
                          mesh.error().message));
}

std::string describe(const DragonflyShape& s) {
  const auto range = [](MinMax m) {
    return m.min == m.max ? fmt::format("{}", m.min) : fmt::format("{}-{}", m.min, m.max);
  };
  const std::string layout =
      s.kind == DragonflyKind::Dragonfly
          ? fmt::format(
                "dragonfly: {} groups of {} routers, {} hosts and {} global links per "
                "router",
                s.groups, s.switchesPerGroup, range(s.hostsPerSwitch), range(s.globalsPerSwitch))
          : fmt::format(
                "dragonfly+: {} groups of {} leaves and {} spines, {} hosts per leaf, {} "
                "global links per spine",
                s.groups, s.leavesPerGroup, s.switchesPerGroup - s.leavesPerGroup,
                range(s.hostsPerSwitch), range(s.globalsPerSwitch));
  return fmt::format(
      "{}, {} global links per group pair, {} local links missing, {} group pairs "
      "unlinked",
      layout, range(s.globalsPerGroupPair), s.missingLocalLinks, s.unlinkedGroupPairs);
}

}  // namespace ibsm
