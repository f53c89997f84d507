#include "routing/engines/ftree/FatTreeHub.h"

#include <functional>
#include <queue>
#include <tuple>

namespace ibsm::routing::ftree {
namespace {

SwitchIndex chooseHub(const FatTreeLayout& layout, const FatTreeReach& reach,
                      std::size_t& topsAbove) {
  const auto& tops = layout.byHeight[layout.top];
  SwitchIndex best = layout.leaves.front();
  std::tuple<std::size_t, std::size_t> bestScore{0, 0};
  for (const SwitchIndex leaf : layout.leaves) {
    std::size_t above = 0, ancestors = 0;
    for (const SwitchIndex t : tops) above += reach.under(t, leaf);
    for (SwitchIndex a = 0; a < layout.switches(); ++a) ancestors += reach.under(a, leaf);
    const auto score = std::tuple(above, ancestors);
    if (score > bestScore) {
      bestScore = score;
      best = leaf;
    }
  }
  topsAbove = std::get<0>(bestScore);
  return best;
}

// Tops above a leaf; 0 when it is no compute leaf.
std::size_t topsAbove(const FatTreeLayout& layout, const FatTreeReach& reach, SwitchIndex leaf) {
  if (leaf >= layout.switches() || layout.leafIndex[leaf] == kNotLeaf) return 0;
  std::size_t above = 0;
  for (const SwitchIndex t : layout.byHeight[layout.top]) above += reach.under(t, leaf);
  return above;
}

}  // namespace

HubOrder hubOrder(const FatTreeLayout& layout, const FatTreeReach& reach,
                  std::optional<SwitchIndex> keep) {
  HubOrder out;
  if (keep && topsAbove(layout, reach, *keep) > 0) {
    out.hub = *keep;
    out.topsAboveHub = topsAbove(layout, reach, *keep);
  } else {
    out.hub = chooseHub(layout, reach, out.topsAboveHub);
  }
  const auto n = layout.switches();
  // Grown like Prim's tree from the hub, always taking the waiting switch of
  // least key, so each switch joins next to one already placed (its earlier
  // neighbour) and the key order holds wherever the cabling allows.
  using Key = std::tuple<int, int, std::uint32_t, SwitchIndex>;
  const auto key = [&](SwitchIndex s) {
    const bool cone = reach.under(s, out.hub);
    const int level = cone ? layout.height[s] : layout.top - layout.height[s];
    return Key{cone ? 0 : 1, level, layout.canon[s], s};
  };
  std::priority_queue<Key, std::vector<Key>, std::greater<>> waiting;
  std::vector<bool> queued(n, false);
  out.position.assign(n, 0);
  waiting.push(key(out.hub));
  queued[out.hub] = true;
  while (!waiting.empty()) {
    const SwitchIndex s = std::get<3>(waiting.top());
    waiting.pop();
    out.position[s] = static_cast<std::uint32_t>(out.order.size());
    out.order.push_back(s);
    for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c) {
      const SwitchIndex t = layout.to[c];
      if (queued[t]) continue;
      queued[t] = true;
      waiting.push(key(t));
    }
  }
  return out;
}

}  // namespace ibsm::routing::ftree
