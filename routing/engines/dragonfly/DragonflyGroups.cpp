#include "routing/engines/dragonfly/DragonflyGroups.h"

#include <fmt/format.h>
#include <ibsm/Dragonfly.h>

#include <bit>
#include <map>
#include <set>
#include <tuple>

namespace ibsm::routing::dragonfly {
namespace {

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

// Parts of the fabric being joined into groups, with their sizes by root.
struct Parts {
  explicit Parts(std::size_t n) : uf(n), size(n, 1) {}
  UnionFind uf;
  std::vector<std::uint32_t> size;  // valid at roots
  void join(SwitchIndex a, SwitchIndex b) {
    const std::uint32_t ra = uf.find(a), rb = uf.find(b);
    if (ra == rb) return;
    uf.unite(ra, rb);
    size[uf.find(ra)] = size[ra] + size[rb];
  }
  std::uint32_t sizeOf(SwitchIndex s) { return size[uf.find(s)]; }
};

Result<void> seedByCliques(const Fabric& f, const SwitchGraph& g, const Neighbours& nb,
                           Parts& parts) {
  for (SwitchIndex s = 0; s < g.size(); ++s) {
    const auto& near = nb[s];
    if (near.size() > 64)
      return fail(fmt::format("switch {} has {} switch neighbours, more than 64",
                              switchName(f, g, s), near.size()));
    std::vector<std::uint64_t> adj(near.size(), 0);
    for (std::size_t i = 0; i < near.size(); ++i)
      for (std::size_t j = 0; j < near.size(); ++j)
        if (i != j && adjacent(nb, near[i], near[j])) adj[i] |= 1ull << j;
    const std::uint64_t clique = CliqueSearch(std::move(adj)).largest();
    if (std::popcount(clique) < 2) continue;  // with s, fewer than 3 routers: no seed
    for (std::uint64_t m = clique; m; m &= m - 1) parts.join(s, near[std::countr_zero(m)]);
  }
  return {};
}

// How firmly a cable of the remainder ties its ends: itself, plus each
// triangle and 4-cycle of the remainder it lies on. A mesh with holes keeps
// such cycles; a global link between two short groups rarely closes one.
std::uint32_t tieStrength(const Neighbours& nb, const std::vector<bool>& rest, SwitchIndex u,
                          SwitchIndex v) {
  std::uint32_t strength = 1;
  for (const SwitchIndex x : nb[u]) {
    if (!rest[x] || x == v) continue;
    strength += adjacent(nb, x, v);
    for (const SwitchIndex y : nb[v])
      if (rest[y] && y != u && y != x && adjacent(nb, x, y)) ++strength;
  }
  return strength;
}

// Step 2: joins the parts short of a routers along the cables among them,
// strongest ties first, ties between equals to the join that fills more.
void knitRemainder(const Neighbours& nb, std::uint32_t a, Parts& parts) {
  const std::size_t n = nb.size();
  std::vector<bool> rest(n);
  for (SwitchIndex s = 0; s < n; ++s) rest[s] = parts.sizeOf(s) < a;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> strength;
  for (SwitchIndex u = 0; u < n; ++u)
    for (const SwitchIndex v : nb[u]) {
      if (v <= u || !rest[u] || !rest[v]) continue;
      const std::uint32_t ru = parts.uf.find(u), rv = parts.uf.find(v);
      if (ru != rv) strength[{std::min(ru, rv), std::max(ru, rv)}] += tieStrength(nb, rest, u, v);
    }
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> order;
  for (const auto& [pair, st] : strength)
    order.emplace_back(st, parts.size[pair.first] + parts.size[pair.second], pair.first,
                       pair.second);
  std::ranges::sort(order, [](const auto& x, const auto& y) {
    return std::tie(std::get<0>(y), std::get<1>(y), std::get<2>(x), std::get<3>(x)) <
           std::tie(std::get<0>(x), std::get<1>(x), std::get<2>(y), std::get<3>(y));
  });
  for (const auto& [st, size, ru, rv] : order)
    if (parts.uf.find(ru) != parts.uf.find(rv) && parts.sizeOf(ru) + parts.sizeOf(rv) <= a)
      parts.join(ru, rv);
}

// The parts each short part (by its index in `roots`) is cabled to, in one
// pass over the cables.
std::vector<std::set<std::uint32_t>> linkedParts(const Neighbours& nb, Parts& parts,
                                                 const std::vector<std::uint32_t>& roots) {
  std::vector<std::size_t> index(nb.size(), roots.size());
  for (std::size_t i = 0; i < roots.size(); ++i) index[roots[i]] = i;
  std::vector<std::set<std::uint32_t>> out(roots.size());
  for (SwitchIndex s = 0; s < nb.size(); ++s) {
    const std::uint32_t root = parts.uf.find(s);
    if (index[root] == roots.size()) continue;
    for (const SwitchIndex t : nb[s])
      if (parts.uf.find(t) != root) out[index[root]].insert(parts.uf.find(t));
  }
  return out;
}

// Step 3: pairs of short parts that are not cabled to each other, joined
// where their global links overlap least. Two joins can be equally good
// (two stranded routers whose global links reach the same groups): the
// first is taken, since a router with no local cable is routed through
// other groups whichever group it is counted in.
void placeStranded(const Neighbours& nb, std::uint32_t a, Parts& parts) {
  constexpr std::size_t kMaxShort = 64;  // beyond this the fabric is no degraded dragonfly
  for (;;) {
    std::vector<std::uint32_t> roots;
    for (SwitchIndex s = 0; s < nb.size(); ++s)
      if (parts.uf.find(s) == s && parts.size[s] < a) roots.push_back(s);
    if (roots.size() < 2 || roots.size() > kMaxShort) return;
    const auto linked = linkedParts(nb, parts, roots);
    // Fewest global links in common first, then the join that fills most.
    struct Join {
      std::pair<std::size_t, std::uint32_t> key;
      std::size_t i, j;
    };
    std::vector<Join> joins;
    for (std::size_t i = 0; i < roots.size(); ++i)
      for (std::size_t j = i + 1; j < roots.size(); ++j) {
        if (parts.size[roots[i]] + parts.size[roots[j]] > a || linked[i].contains(roots[j]))
          continue;
        std::size_t overlap = 0;
        for (const std::uint32_t x : linked[i]) overlap += linked[j].contains(x);
        joins.push_back({{overlap, a - parts.size[roots[i]] - parts.size[roots[j]]}, i, j});
      }
    if (joins.empty()) return;
    const Join best = *std::ranges::min_element(joins, {}, &Join::key);
    parts.join(roots[best.i], roots[best.j]);
  }
}

}  // namespace

Result<MeshGroups> findMeshGroups(const Fabric& f, const SwitchGraph& g, const Neighbours& nb) {
  const std::size_t n = g.size();
  Parts parts(n);
  if (auto ok = seedByCliques(f, g, nb, parts); !ok) return std::unexpected(ok.error());
  std::uint32_t a = 0;
  for (SwitchIndex s = 0; s < n; ++s) a = std::max(a, parts.sizeOf(s));
  if (a < 3) return fail("no switch is in a clique of 3 or more switches");
  knitRemainder(nb, a, parts);
  placeStranded(nb, a, parts);
  MeshGroups out;
  out.group.assign(n, kNoGroup);
  std::vector<std::uint32_t> id(n, kNoGroup);
  for (SwitchIndex s = 0; s < n; ++s) {
    if (parts.sizeOf(s) != a)
      return fail(fmt::format(
          "switch {} is in a group of {} switches, the largest group has {}: the cabling left "
          "does not divide into groups of one size",
          switchName(f, g, s), parts.sizeOf(s), a));
    const std::uint32_t root = parts.uf.find(s);
    if (id[root] == kNoGroup) id[root] = out.count++;
    out.group[s] = id[root];
  }
  return out;
}

}  // namespace ibsm::routing::dragonfly
