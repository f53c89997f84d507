#include "FatTreeBalanced.h"

#include <algorithm>
#include <tuple>

namespace ibsm::routing::ftree {

BalancedRoutes::BalancedRoutes(const FatTreeLayout& layout, const FatTreeReach& reach)
    : layout_(layout), reach_(reach), load_(layout.cables(), 0) {}

// The worst cable a flow entering s would meet on its way to the leaf. A
// switch asked for the first time during this destination chooses its next
// hop then, on the loads as they stand: its pod is being routed, so its
// choice sees every flow of earlier pods toward this destination.
BalancedRoutes::Load BalancedRoutes::rest(SwitchIndex s, SwitchIndex leaf, std::size_t sequence,
                                          std::vector<CableId>& next) {
  if (reach_.under(s, leaf)) return bottleneck(s, leaf, next);
  const CableId c = hop(s, leaf, sequence, next);
  return std::max(load_[c], rest(layout_.to[c], leaf, sequence, next));
}

BalancedRoutes::Load BalancedRoutes::bottleneck(SwitchIndex s, SwitchIndex leaf,
                                                std::vector<CableId>& next) {
  Load worst = 0;
  while (s != leaf) {
    if (next[s] == kNoCable) fixDown(s, leaf, next);
    worst = std::max(worst, load_[next[s]]);
    s = layout_.to[next[s]];
  }
  return worst;
}

void BalancedRoutes::fixDown(SwitchIndex s, SwitchIndex leaf, std::vector<CableId>& next) {
  CableId best = kNoCable;
  Load bestLoad = 0;
  for (const CableId c : layout_.downCables(s)) {
    const SwitchIndex child = layout_.to[c];
    if (!reach_.under(child, leaf)) continue;
    const Load l = std::max(load_[c], bottleneck(child, leaf, next));
    if (best == kNoCable || l < bestLoad) {
      best = c;
      bestLoad = l;
    }
  }
  next[s] = best;
}

CableId BalancedRoutes::climb(SwitchIndex s, SwitchIndex leaf, std::size_t sequence,
                              std::vector<CableId>& next) {
  const auto ups = layout_.upCables(s);
  CableId best = kNoCable;
  std::tuple<Load, Load, std::size_t> bestKey{};
  for (std::size_t k = 0; k < ups.size(); ++k) {
    const CableId c = ups[k];
    const SwitchIndex p = layout_.to[c];
    if (dist_[p] + 1 != dist_[s]) continue;
    const auto key = std::tuple(std::max(load_[c], rest(p, leaf, sequence, next)), load_[c],
                                (k + ups.size() - sequence % ups.size()) % ups.size());
    if (best == kNoCable || key < bestKey) {
      best = c;
      bestKey = key;
    }
  }
  return best;
}

// The next hop of s, chosen when the first flow (or none) needs it.
CableId BalancedRoutes::hop(SwitchIndex s, SwitchIndex leaf, std::size_t sequence,
                            std::vector<CableId>& next) {
  if (next[s] == kNoCable) {
    if (reach_.under(s, leaf))
      fixDown(s, leaf, next);
    else
      next[s] = climb(s, leaf, sequence, next);
  }
  return next[s];
}

void BalancedRoutes::column(const Destination& d, std::size_t sequence,
                            std::vector<CableId>& next) {
  const SwitchIndex leaf = d.leaf;
  legalDistances(layout_, reach_, leaf, dist_);
  std::ranges::fill(next, kNoCable);
  next[leaf] = kDeliver;
  // Leaf by leaf, each flow all the way, so that every choice sees where
  // this destination's earlier flows went; the first leaf taken turns.
  const auto& leaves = layout_.byHeight[0];
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const SwitchIndex source = leaves[(k + sequence) % leaves.size()];
    const Load flow = layout_.caCount[source];
    if (source == leaf || flow == 0 || dist_[source] == kFar) continue;
    for (SwitchIndex s = source; s != leaf;) {
      const CableId c = hop(s, leaf, sequence, next);
      load_[c] += flow;
      s = layout_.to[c];
    }
  }
  for (const auto& level : layout_.byHeight)
    for (const SwitchIndex s : level)
      if (dist_[s] != kFar && s != leaf) hop(s, leaf, sequence, next);
}

}  // namespace ibsm::routing::ftree
