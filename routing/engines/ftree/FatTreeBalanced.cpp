#include "routing/engines/ftree/FatTreeBalanced.h"

#include <algorithm>
#include <tuple>

namespace ibsm::routing::ftree {

BalancedRoutes::BalancedRoutes(const FatTreeLayout& layout, const FatTreeReach& reach)
    : layout_(layout), reach_(reach) {}

// The worst cable a flow entering s would meet on its way to the leaf. A
// switch asked for the first time during this destination chooses its next
// hop then, on the loads as they stand: its pod is being routed, so its
// choice sees every flow of earlier pods toward this destination.
BalancedRoutes::Load BalancedRoutes::rest(SwitchIndex s, SwitchIndex leaf, std::size_t sequence,
                                          std::vector<CableId>& next) {
  Load worst = 0;
  while (!under(s)) {
    const CableId c = hop(s, leaf, sequence, next);
    worst = std::max(worst, load_[c]);
    s = layout_.to[c];
  }
  return std::max(worst, bottleneck(s, leaf, next));
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
    if (!under(child)) continue;
    const Load l = std::max(load_[c], bottleneck(child, leaf, next));
    if (best == kNoCable || l < bestLoad) {
      best = c;
      bestLoad = l;
    }
  }
  next[s] = best;
}

// Least used by the CA's earlier LIDs, then the least loaded route onward,
// then the least loaded cable, then turns by `sequence`.
CableId BalancedRoutes::climb(SwitchIndex s, SwitchIndex leaf, std::size_t sequence,
                              std::vector<CableId>& next) {
  const auto ups = layout_.upCables(s);
  const std::size_t turn = sequence % ups.size();
  CableId best = kNoCable;
  std::size_t bestTaken = 0, bestTurn = 0;
  Load bestRest = 0;
  for (std::size_t k = 0; k < ups.size(); ++k) {
    const CableId c = ups[k];
    const SwitchIndex p = layout_.to[c];
    if (dist_[p] + 1 != dist_[s]) continue;
    std::size_t taken = 0;
    for (std::size_t k = 0; k < siblingCount_; ++k) taken += siblings_[k][s] == c;
    const Load onward = std::max(load_[c], rest(p, leaf, sequence, next));
    const std::size_t turnOf = k >= turn ? k - turn : k + ups.size() - turn;
    const bool better =
        best == kNoCable || std::tie(taken, onward, load_[c], turnOf) <
                                std::tie(bestTaken, bestRest, load_[best], bestTurn);
    if (better) {
      best = c;
      bestTaken = taken;
      bestRest = onward;
      bestTurn = turnOf;
    }
  }
  return best;
}

// The next hop of s, chosen when the first flow (or none) needs it.
CableId BalancedRoutes::hop(SwitchIndex s, SwitchIndex leaf, std::size_t sequence,
                            std::vector<CableId>& next) {
  if (next[s] == kNoCable) {
    if (under(s))
      fixDown(s, leaf, next);
    else
      next[s] = climb(s, leaf, sequence, next);
  }
  return next[s];
}

std::vector<BalancedRoutes::Load>& BalancedRoutes::loadsOf(std::uint8_t layer) {
  if (loads_.size() <= layer) loads_.resize(layer + 1u, std::vector<Load>(layout_.cables(), 0));
  return loads_[layer];
}

// A CA's LIDs come one after the other, but the columns of one CA may be
// routed by two ways (take and column), so the CA is named, not the layer.
void BalancedRoutes::startSiblings(const Destination& d) {
  if (siblingsOf_ == std::pair(d.leaf, d.port) && d.layer != 0) return;
  siblingCount_ = 0;
  siblingsOf_ = {d.leaf, d.port};
}

// Columns are copied into storage kept from earlier CAs: one allocation
// per destination would cost more than its D-mod-K column.
void BalancedRoutes::rememberSibling(const std::vector<CableId>& next) {
  if (siblingCount_ == siblings_.size())
    siblings_.push_back(next);
  else
    siblings_[siblingCount_] = next;
  ++siblingCount_;
}

void BalancedRoutes::take(const Destination& d, const std::vector<CableId>& next) {
  startSiblings(d);
  Load* load = loadsOf(d.layer).data();
  for (const SwitchIndex source : layout_.leaves) {
    const Load flow = layout_.computeCas[source];
    if (source == d.leaf || flow == 0 || next[source] == kNoCable) continue;
    for (SwitchIndex s = source; s != d.leaf; s = layout_.to[next[s]]) load[next[s]] += flow;
  }
  rememberSibling(next);
}

void BalancedRoutes::addLoads(std::uint8_t layer, const std::vector<Load>& flows) {
  auto& loads = loadsOf(layer);
  for (std::size_t c = 0; c < loads.size(); ++c) loads[c] += flows[c];
}

void BalancedRoutes::remember(const Destination& d, const std::vector<CableId>& next) {
  startSiblings(d);
  rememberSibling(next);
}

CableId BalancedRoutes::lightestClimb(SwitchIndex s, const Destination& d,
                                      const std::vector<std::uint16_t>& dist, CableId tie) const {
  const auto loadOf = [&](CableId c) { return d.layer < loads_.size() ? loads_[d.layer][c] : 0; };
  CableId best = kNoCable;
  std::size_t bestTaken = 0;
  for (const CableId c : layout_.upCables(s)) {
    if (dist[layout_.to[c]] + 1 != dist[s]) continue;
    std::size_t taken = 0;
    if (siblingsOf_ == std::pair(d.leaf, d.port))
      for (std::size_t k = 0; k < siblingCount_; ++k) taken += siblings_[k][s] == c;
    const bool better = best == kNoCable || std::tuple(taken, loadOf(c), c != tie) <
                                                std::tuple(bestTaken, loadOf(best), best != tie);
    if (better) {
      best = c;
      bestTaken = taken;
    }
  }
  return best;
}

void BalancedRoutes::preload(const Destination& d, HintColumns& kept, std::vector<CableId>& next) {
  Load* load = loadsOf(d.layer).data();
  std::ranges::fill(next, kNoCable);
  next[d.leaf] = kDeliver;
  kept.apply(d.lid, d.leaf, d.port, next);
  for (const SwitchIndex source : layout_.leaves) {
    const Load flow = layout_.computeCas[source];
    if (source == d.leaf || flow == 0 || next[source] == kNoCable) continue;
    for (SwitchIndex s = source; s != d.leaf; s = layout_.to[next[s]]) load[next[s]] += flow;
  }
}

void BalancedRoutes::column(const Destination& d, std::size_t sequence, std::vector<CableId>& next,
                            HintColumns* kept, std::size_t* keptCount) {
  const SwitchIndex leaf = d.leaf;
  startSiblings(d);
  // Each LMC layer balanced on its own: the base LIDs, which most traffic
  // uses, spread as if there were no others.
  load_ = loadsOf(d.layer).data();
  above_ = reach_.above(leaf);
  if (distOf_ != leaf) legalDistances(layout_, reach_, leaf, dist_);  // a leaf's LIDs come together
  distOf_ = leaf;
  std::ranges::fill(next, kNoCable);
  next[leaf] = kDeliver;
  if (kept) *keptCount += kept->apply(d.lid, leaf, d.port, next);
  // Leaf by leaf, each flow all the way, so that every choice sees where
  // this destination's earlier flows went; the first leaf taken turns.
  const auto& leaves = layout_.leaves;
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const SwitchIndex source = leaves[(k + sequence) % leaves.size()];
    const Load flow = layout_.computeCas[source];
    if (source == leaf || flow == 0 || dist_[source] == kFar) continue;
    if (kept && next[source] != kNoCable) continue;  // a kept chain: preloaded
    for (SwitchIndex s = source; s != leaf;) {
      const CableId c = hop(s, leaf, sequence, next);
      load_[c] += flow;
      s = layout_.to[c];
    }
  }
  for (const auto& level : layout_.byHeight)
    for (const SwitchIndex s : level)
      if (dist_[s] != kFar && s != leaf) hop(s, leaf, sequence, next);
  rememberSibling(next);
}

}  // namespace ibsm::routing::ftree
