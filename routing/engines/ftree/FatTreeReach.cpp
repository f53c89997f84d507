#include "routing/engines/ftree/FatTreeReach.h"

#include <algorithm>
#include <numeric>

namespace ibsm::routing::ftree {

FatTreeReach::FatTreeReach(const FatTreeLayout& layout)
    : below_(layout.switches(), layout.switches()),
      above_(layout.switches(), layout.switches()),
      reach_(layout.switches(), layout.switches()) {
  // What lies below a switch: itself and what lies below its children, so
  // levels bottom up. What it reaches legally: what lies below it or below
  // anything it can climb to, so levels top down.
  for (const auto& level : layout.byHeight)
    for (const SwitchIndex s : level) {
      below_.set(s, s);
      for (const CableId c : layout.downCables(s)) below_.orRow(s, below_, layout.to[c]);
    }
  for (auto level = layout.byHeight.rbegin(); level != layout.byHeight.rend(); ++level)
    for (const SwitchIndex s : *level) {
      reach_.orRow(s, below_, s);
      for (const CableId c : layout.upCables(s)) reach_.orRow(s, reach_, layout.to[c]);
    }
  for (SwitchIndex a = 0; a < layout.switches(); ++a)
    for (SwitchIndex d = 0; d < layout.switches(); ++d)
      if (below_.test(a, d)) above_.set(d, a);
}

void legalDistances(const FatTreeLayout& layout, const FatTreeReach& reach, SwitchIndex target,
                    std::vector<std::uint16_t>& dist) {
  dist.assign(layout.switches(), kFar);
  const auto base = layout.height[target];
  const std::uint64_t* legal = reach.legalWith(target);
  const std::uint64_t* above = reach.above(target);
  for (auto level = layout.byHeight.rbegin(); level != layout.byHeight.rend(); ++level)
    for (const SwitchIndex s : *level) {
      if (!BitRows::test(legal, s)) continue;
      if (BitRows::test(above, s)) {
        dist[s] = static_cast<std::uint16_t>(layout.height[s] - base);
        continue;
      }
      std::uint16_t best = kFar;
      for (const CableId c : layout.upCables(s)) best = std::min(best, dist[layout.to[c]]);
      if (best != kFar) dist[s] = static_cast<std::uint16_t>(best + 1);
    }
}

bool completeAndRegular(const FatTreeLayout& layout, const FatTreeReach& reach) {
  for (const auto& level : layout.byHeight) {
    const SwitchIndex first = level.front();
    for (const SwitchIndex s : level)
      if (layout.upCables(s).size() != layout.upCables(first).size() ||
          layout.downCables(s).size() != layout.downCables(first).size())
        return false;
  }
  if (layout.unevenLeaves) return false;
  for (const SwitchIndex t : layout.byHeight[layout.top])
    for (const SwitchIndex leaf : layout.leaves)
      if (!reach.under(t, leaf)) return false;
  return true;
}

bool nestedLevels(const FatTreeLayout& layout, const FatTreeReach& reach) {
  const auto n = layout.switches();
  std::vector<SwitchIndex> part(n);
  std::vector<std::size_t> leavesIn(n);
  const auto find = [&](SwitchIndex x) {
    while (part[x] != x) x = part[x] = part[part[x]];
    return x;
  };
  for (std::size_t h = 1; h <= layout.top; ++h) {
    std::iota(part.begin(), part.end(), SwitchIndex{0});
    for (SwitchIndex s = 0; s < n; ++s)
      for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c)
        if (layout.height[s] <= h && layout.height[layout.to[c]] <= h)
          part[find(s)] = find(layout.to[c]);
    std::ranges::fill(leavesIn, 0);
    for (const SwitchIndex leaf : layout.leaves) ++leavesIn[find(leaf)];
    for (const SwitchIndex a : layout.byHeight[h]) {
      std::size_t below = 0;
      for (const SwitchIndex leaf : layout.leaves) below += reach.under(a, leaf);
      if (below != leavesIn[find(a)]) return false;
    }
  }
  return true;
}

}  // namespace ibsm::routing::ftree
