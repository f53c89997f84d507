// The flows of every source leaf along one destination's column, counted on
// the cable loads as BalancedRoutes::take counts them (the same sums), but
// pushed switch by switch: up from the leaves through the switches not above
// the destination, then down through those above it, highest first. Only the
// switches a flow reaches are visited.
//
// A D-mod-K column sends every leaf that lost no cable up its cable of one
// index (the destination's digit): what those leaves send up is summed once
// per digit (LeafFlows), and the loads of their own up cables once for all
// destinations (LeafFlows::addLeafLoads), so a column costs only the few
// switches above the leaves that its flows reach.
//
//   Flows flows(layout);
//   flows.seed(d, leafHop, load);                // every source leaf, or
//   leafFlows.seed(flows, d, digit, shortLeaves);  // the same from the sums
//   flows.finish(reach, d, hop, load);
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "routing/engines/ftree/FatTreeBalanced.h"
#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeReach.h"

namespace ibsm::routing::ftree {

class Flows {
 public:
  using Load = BalancedRoutes::Load;

  explicit Flows(const FatTreeLayout& layout)
      : layout_(layout),
        flow_(layout.switches(), 0),
        listed_(layout.switches(), 0),
        reached_(layout.top + 1u) {}

  // Every source leaf's flow up its hop (`leafHop`; kNoCable: none).
  template <typename LeafHop>
  void seed(const Destination& d, LeafHop&& leafHop, Load* load) {
    for (const SwitchIndex leaf : layout_.leaves) {
      const Load flow = layout_.computeCas[leaf];
      if (leaf == d.leaf || flow == 0) continue;
      const CableId c = leafHop(leaf);
      if (c == kNoCable) continue;
      load[c] += flow;
      add(layout_.to[c], flow);
    }
  }

  // `flow` more (or, with `less`, fewer) reaching s.
  void add(SwitchIndex s, Load flow, bool less = false) {
    if (!listed_[s]) {
      listed_[s] = 1;
      reached_[layout_.height[s]].push_back(s);
    }
    flow_[s] = less ? flow_[s] - flow : flow_[s] + flow;
  }

  // The flows above the leaves, along `hop`; then ready for another column.
  template <typename Hop>
  void finish(const FatTreeReach& reach, const Destination& d, Hop&& hop, Load* load) {
    const std::uint64_t* above = reach.above(d.leaf);
    for (auto& level : reached_)
      for (std::size_t k = 0; k < level.size(); ++k)
        if (flow_[level[k]] != 0 && !BitRows::test(above, level[k]))
          push(level[k], hop(level[k]), load);
    for (std::size_t h = layout_.top; h > 0; --h)
      for (std::size_t k = 0; k < reached_[h].size(); ++k)
        if (const SwitchIndex s = reached_[h][k]; flow_[s] != 0 && BitRows::test(above, s))
          push(s, hop(s), load);
    for (auto& level : reached_) {
      for (const SwitchIndex s : level) flow_[s] = listed_[s] = 0;
      level.clear();
    }
  }

 private:
  void push(SwitchIndex s, CableId c, Load* load) {
    load[c] += flow_[s];
    add(layout_.to[c], flow_[s]);
  }

  const FatTreeLayout& layout_;
  std::vector<Load> flow_;
  std::vector<std::uint8_t> listed_;
  std::vector<std::vector<SwitchIndex>> reached_;  // per height: switches listed
};

// Per digit, what the compute leaves that lost no cable send up when each
// climbs on its up cable of that index (modulo its up cables).
class LeafFlows {
 public:
  using Load = BalancedRoutes::Load;

  LeafFlows(const FatTreeLayout& layout, const std::vector<bool>& isShort) : layout_(layout) {
    std::size_t digits = 0;
    for (const SwitchIndex leaf : layout.leaves)
      digits = std::max(digits, layout.upCables(leaf).size());
    into_.resize(digits);
    std::vector<Load> sum(layout.switches(), 0);
    for (std::size_t v = 0; v < digits; ++v) {
      for (const SwitchIndex leaf : layout.leaves)
        if (const CableId c = climb(leaf, v, isShort); c != kNoCable)
          sum[layout.to[c]] += layout.computeCas[leaf];
      for (SwitchIndex s = 0; s < layout.switches(); ++s)
        if (sum[s] != 0) into_[v].emplace_back(s, std::exchange(sum[s], 0));
    }
  }

  std::size_t digits() const { return into_.size(); }

  // The loads of those leaves' own up cables for columns of one layer:
  // `columns[v]` of them climb by digit v, `onLeaf[leaf * digits() + v]` of
  // those toward that leaf's own CAs (no flow of its own).
  void addLeafLoads(const std::vector<std::uint32_t>& columns,
                    const std::vector<std::uint32_t>& onLeaf, const std::vector<bool>& isShort,
                    Load* load) const {
    for (std::size_t l = 0; l < layout_.leaves.size(); ++l)
      for (std::size_t v = 0; v < digits(); ++v) {
        const CableId c = climb(layout_.leaves[l], v, isShort);
        const std::uint32_t count = columns[v] - onLeaf[l * digits() + v];
        if (c != kNoCable) load[c] += layout_.computeCas[layout_.leaves[l]] * count;
      }
  }

  // The up cable `leaf` climbs on for `digit`; kNoCable where it lost a
  // cable (it climbs by load) or sends nothing.
  CableId climb(SwitchIndex leaf, std::size_t digit, const std::vector<bool>& isShort) const {
    const auto ups = layout_.upCables(leaf);
    if (isShort[leaf] || ups.empty() || layout_.computeCas[leaf] == 0) return kNoCable;
    return ups[digit % ups.size()];
  }

  // Flows::seed for a column that climbs from every such leaf by `digit`,
  // less d's own leaf (no source), without the leaves' own cable loads.
  void seed(Flows& flows, const Destination& d, std::uint8_t digit,
            const std::vector<bool>& isShort) const {
    for (const auto& [s, flow] : into_[digit]) flows.add(s, flow);
    if (const CableId c = climb(d.leaf, digit, isShort); c != kNoCable)
      flows.add(layout_.to[c], layout_.computeCas[d.leaf], true);
  }

 private:
  const FatTreeLayout& layout_;
  std::vector<std::vector<std::pair<SwitchIndex, Load>>> into_;  // per digit
};

}  // namespace ibsm::routing::ftree
