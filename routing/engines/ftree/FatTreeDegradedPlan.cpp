#include "routing/engines/ftree/FatTreeDegradedPlan.h"

#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace ibsm::routing::ftree {
namespace {

// A climb among the hub's ancestors descends in the hub order (they come
// lowest first), so no chain may descend into them after one. Holds when
// every switch above `leaf` that one of them climbs to descends out of them.
bool leavesConeClimbing(const DegradedTree& tree, SwitchIndex leaf,
                        const std::vector<std::uint16_t>& dist) {
  const FatTreeLayout& layout = tree.layout;
  const auto cone = [&](SwitchIndex s) { return tree.reach.under(s, tree.hub.hub); };
  const auto nearer = [&](SwitchIndex s, CableId c) { return dist[layout.to[c]] + 1 == dist[s]; };
  for (SwitchIndex q = 0; q < layout.switches(); ++q) {
    if (q == leaf || !cone(q) || tree.reach.under(q, leaf) || dist[q] == kFar) continue;
    for (const CableId c : layout.upCables(q)) {
      if (!nearer(q, c)) continue;
      const SwitchIndex p = layout.to[c];
      if (!tree.reach.under(p, leaf)) continue;  // climbs on, checked as q
      for (const CableId e : layout.downCables(p))
        if (nearer(p, e) && cone(layout.to[e])) return false;
    }
  }
  return true;
}

// Lengths::count of the columns that follow `out.dist` from every switch:
// the CA->CA routes toward `leaf`, and those longer than the fewest switch
// hops. The search over every cable stops short of the farthest leaf's
// legal distance: a leaf it does not reach is not nearer by any path.
void countLengths(const FatTreeLayout& layout, SwitchIndex leaf, Toward& out) {
  std::uint16_t farthest = 0;
  for (const SwitchIndex l : layout.leaves) farthest = std::max(farthest, out.dist[l]);
  std::vector<std::uint16_t> hops(layout.switches(), kFar);
  std::vector<SwitchIndex> queue{leaf};
  hops[leaf] = 0;
  for (std::size_t k = 0; k < queue.size() && hops[queue[k]] + 2 <= farthest; ++k)
    for (CableId c = layout.cableBegin(queue[k]); c < layout.cableEnd(queue[k]); ++c)
      if (hops[layout.to[c]] == kFar) {
        hops[layout.to[c]] = static_cast<std::uint16_t>(hops[queue[k]] + 1);
        queue.push_back(layout.to[c]);
      }
  for (const SwitchIndex l : layout.leaves) {
    const std::uint64_t sources = layout.computeCas[l] - (l == leaf ? 1 : 0);
    out.caRoutes += sources;
    if (hops[l] != kFar && out.dist[l] > hops[l]) out.longer += sources;
  }
}

}  // namespace

Toward towardLeaf(const DegradedTree& tree, SwitchIndex leaf) {
  const FatTreeLayout& layout = tree.layout;
  Toward out;
  legalDistances(layout, tree.reach, leaf, out.dist);
  const auto nearer = [&](SwitchIndex s, CableId c) {
    return out.dist[layout.to[c]] + 1 == out.dist[s];
  };
  for (SwitchIndex s = 0; s < layout.switches(); ++s) {
    if (s == leaf) continue;
    if (out.dist[s] == kFar) {
      out.far = true;
      continue;
    }
    // Above the leaf D-mod-K descends on down paths: one hop nearer each.
    if (tree.degraded.isShort(s) || tree.reach.under(s, leaf)) continue;
    const auto ups = layout.upCables(s);
    if (ups.empty() || !std::ranges::all_of(ups, [&](CableId c) { return nearer(s, c); }))
      out.uneven.push_back(s);
  }
  out.check = out.far || !leavesConeClimbing(tree, leaf, out.dist);
  if (!out.check) countLengths(layout, leaf, out);
  return out;
}

std::vector<Toward> towardLeaves(const DegradedTree& tree, const std::vector<bool>& wanted,
                                 unsigned threads) {
  const FatTreeLayout& layout = tree.layout;
  const std::size_t n = layout.leaves.size();
  // Per wanted leaf, the first wanted leaf with its parents (itself when
  // it is the first, the hub, or stands above height 0).
  std::vector<std::size_t> first(n);
  std::map<std::vector<SwitchIndex>, std::size_t> byParents;
  std::vector<SwitchIndex> parents;
  for (std::size_t b = 0; b < n; ++b) {
    first[b] = b;
    const SwitchIndex leaf = layout.leaves[b];
    if (!wanted[b] || leaf == tree.hub.hub || layout.height[leaf] != 0) continue;
    parents.clear();
    for (const CableId c : layout.upCables(leaf)) parents.push_back(layout.to[c]);
    std::ranges::sort(parents);
    first[b] = byParents.try_emplace(parents, b).first->second;
  }
  std::vector<Toward> out(n);
  parallelFor(threads, n, 8, [&](std::size_t b, std::size_t e, unsigned) {
    for (; b < e; ++b)
      if (wanted[b] && first[b] == b) out[b] = towardLeaf(tree, layout.leaves[b]);
  });
  parallelFor(threads, n, 32, [&](std::size_t b, std::size_t e, unsigned) {
    for (; b < e; ++b) {
      if (!wanted[b] || first[b] == b) continue;
      out[b] = out[first[b]];
      std::swap(out[b].dist[layout.leaves[b]], out[b].dist[layout.leaves[first[b]]]);
    }
  });
  return out;
}

bool keepsDmodk(const DegradedTree& tree, const Toward& t, std::size_t i) {
  if (!tree.degraded.avoidsShort(i)) return false;
  const FatTreeLayout& layout = tree.layout;
  return std::ranges::all_of(t.uneven, [&](SwitchIndex s) {
    const CableId c = tree.degraded.dmodk().hop(i, s);
    return c != kNoCable && c != kDeliver && t.dist[layout.to[c]] + 1 == t.dist[s];
  });
}

bool shortClimbs(const DegradedTree& tree, const Toward& t, std::size_t i) {
  const FatTreeLayout& layout = tree.layout;
  const SwitchIndex leaf = tree.destinations[i].leaf;
  const auto nearer = [&](SwitchIndex s, CableId c) {
    return t.dist[layout.to[c]] + 1 == t.dist[s];
  };
  for (const SwitchIndex s : tree.degraded.shortList()) {
    if (s == leaf || t.dist[s] == kFar) continue;
    const CableId c = tree.degraded.dmodk().hop(i, s);
    if (c == kNoCable || layout.height[layout.to[c]] > layout.height[s]) {
      const auto ups = layout.upCables(s);
      if (std::ranges::none_of(ups, [&](CableId u) { return nearer(s, u); })) return false;
    } else if (!nearer(s, c)) {
      return false;
    }
  }
  return true;
}

bool Planner::plain(std::size_t i) const {
  return keepsDmodk(tree_, toward(i), i);
}

// DegradedDmodk::climbShort on this planner's loads and earlier LIDs.
bool Planner::climb(std::size_t i, CableId* pick) const {
  const Destination& d = tree_.destinations[i];
  const Toward& t = toward(i);
  const FatTreeLayout& layout = tree_.layout;
  bool ok = true;
  for (std::size_t j = 0; j < shorts_.size(); ++j) {
    const SwitchIndex s = shorts_[j];
    CableId c = tree_.degraded.dmodk().hop(i, s);
    if (s != d.leaf && t.dist[s] == kFar) c = kNoCable;
    if (s != d.leaf && t.dist[s] != kFar) {
      if (c == kNoCable || layout.height[layout.to[c]] > layout.height[s]) c = lightest(s, d, t, c);
      ok = ok && c != kNoCable && t.dist[layout.to[c]] + 1 == t.dist[s];
    }
    pick[j] = c;
  }
  return ok;
}

// BalancedRoutes::lightestClimb: least used by the CA's earlier LIDs, then
// the least loaded in d's layer, then D-mod-K's own cable.
CableId Planner::lightest(SwitchIndex s, const Destination& d, const Toward& t, CableId tie) const {
  const FatTreeLayout& layout = tree_.layout;
  const std::vector<Load>& load = loads_[d.layer];
  const bool siblings = lastCa == std::pair(d.leaf, d.port);
  const std::size_t j = shortIndex_[s], n = shorts_.size();
  CableId best = kNoCable;
  std::size_t bestTaken = 0;
  for (const CableId c : layout.upCables(s)) {
    if (t.dist[layout.to[c]] + 1 != t.dist[s]) continue;
    std::size_t used = 0;
    if (siblings)
      for (std::size_t k = lastRun; k < taken.size(); ++k) used += picks_[k * n + j] == c;
    const bool better = best == kNoCable || std::tuple(used, load[c], c != tie) <
                                                std::tuple(bestTaken, load[best], best != tie);
    if (better) {
      best = c;
      bestTaken = used;
    }
  }
  return best;
}

// The flows toward i that reach s climbing: from the subtree below it.
Planner::Load Planner::flowInto(std::size_t i, const CableId* pick, SwitchIndex s) const {
  const FatTreeLayout& layout = tree_.layout;
  const Toward& t = toward(i);
  Load flow = layout.leafIndex[s] != kNotLeaf ? layout.computeCas[s] : 0;
  for (const CableId c : layout.downCables(s)) {
    const SwitchIndex x = layout.to[c];
    if (t.dist[x] != kFar && hop(i, pick, x) == layout.reverse[c]) flow += flowInto(i, pick, x);
  }
  return flow;
}

void Planner::addFlows(std::size_t i, const CableId* pick) {
  const FatTreeLayout& layout = tree_.layout;
  const Destination& d = tree_.destinations[i];
  for (std::size_t j = 0; j < shorts_.size(); ++j) {
    const SwitchIndex s = shorts_[j];
    const CableId c = pick[j];
    if (s == d.leaf || c == kNoCable || layout.height[layout.to[c]] < layout.height[s]) continue;
    loads_[d.layer][c] += flowInto(i, pick, s);
  }
}

void Planner::run(const std::vector<std::size_t>& order) {
  const auto& dests = tree_.destinations;
  const std::size_t n = shorts_.size();
  std::vector<CableId> pick(n);
  const auto caOf = [&](std::size_t i) { return std::pair(dests[i].leaf, dests[i].port); };
  for (std::size_t first = 0, end = 0; first < order.size(); first = end) {
    end = first + 1;
    while (end < order.size() && caOf(order[first]) == caOf(order[end])) ++end;
    bool takes = true;
    for (std::size_t k = first; k < end && takes; ++k) takes = plain(order[k]);
    for (std::size_t k = first; k < end; ++k) {
      const std::size_t i = order[k];
      if (!takes || !climb(i, pick.data())) {
        left.push_back(i);
        continue;
      }
      if (lastCa != caOf(i) || dests[i].layer == 0) {
        lastCa = caOf(i);
        lastRun = taken.size();
      }
      taken.push_back(i);
      picks_.insert(picks_.end(), pick.begin(), pick.end());
      addFlows(i, pick.data());
    }
  }
}

void Planner::column(std::size_t k, std::vector<CableId>& next) const {
  const std::size_t i = taken[k];
  const SwitchIndex leaf = tree_.destinations[i].leaf;
  tree_.degraded.dmodk().column(i, next);
  const Toward& t = toward(i);
  if (t.far)
    for (SwitchIndex s = 0; s < next.size(); ++s)
      if (s != leaf && t.dist[s] == kFar) next[s] = kNoCable;
  for (std::size_t j = 0; j < shorts_.size(); ++j)
    next[shorts_[j]] = picks_[k * shorts_.size() + j];
}

}  // namespace ibsm::routing::ftree
