#include "routing/engines/ftree/FatTreeDegraded.h"

#include <algorithm>

namespace ibsm::routing::ftree {
namespace {

// Per level, the most up and the most down cables any of its switches has.
struct LevelMost {
  std::vector<std::size_t> up, down;
  explicit LevelMost(const FatTreeLayout& layout)
      : up(layout.top + 1u, 0), down(layout.top + 1u, 0) {
    for (SwitchIndex s = 0; s < layout.switches(); ++s) {
      const auto h = layout.height[s];
      up[h] = std::max(up[h], layout.upCables(s).size());
      down[h] = std::max(down[h], layout.downCables(s).size());
    }
  }
  // Cables s misses against its level's most, up and down.
  std::size_t missing(const FatTreeLayout& layout, SwitchIndex s) const {
    const auto h = layout.height[s];
    return up[h] - layout.upCables(s).size() + down[h] - layout.downCables(s).size();
  }
};

// Switches with fewer up or down cables than the most of their level.
std::vector<SwitchIndex> shortSwitchesOf(const FatTreeLayout& layout, const LevelMost& most) {
  std::vector<SwitchIndex> out;
  for (SwitchIndex s = 0; s < layout.switches(); ++s)
    if (most.missing(layout, s) > 0) out.push_back(s);
  return out;
}

// Each lost cable leaves one up and one down cable missing.
std::size_t missingCables(const FatTreeLayout& layout, const LevelMost& most) {
  std::size_t ends = 0;
  for (SwitchIndex s = 0; s < layout.switches(); ++s) ends += most.missing(layout, s);
  return ends / 2;
}

std::vector<bool> markShort(const FatTreeLayout& layout,
                            const std::vector<SwitchIndex>& shortOnes) {
  std::vector<bool> out(layout.switches(), false);
  for (const SwitchIndex s : shortOnes) out[s] = true;
  return out;
}

}  // namespace

std::optional<DegradedDmodk> DegradedDmodk::make(const FatTreeLayout& layout,
                                                 const FatTreeReach& reach,
                                                 std::span<const Destination> destinations) {
  if (layout.unevenLeaves || layout.leaves.empty() || destinations.empty()) return std::nullopt;
  const std::uint32_t cas = layout.computeCas[layout.leaves.front()];
  for (const SwitchIndex leaf : layout.leaves)
    if (layout.height[leaf] != 0 || layout.computeCas[leaf] != cas) return std::nullopt;
  const LevelMost most(layout);
  if (missingCables(layout, most) * 20 > layout.cables() / 2) return std::nullopt;
  auto shortOnes = shortSwitchesOf(layout, most);
  return DegradedDmodk(layout, reach, destinations, std::move(shortOnes));
}

DegradedDmodk::DegradedDmodk(const FatTreeLayout& layout, const FatTreeReach& reach,
                             std::span<const Destination> destinations,
                             std::vector<SwitchIndex> shortSwitches)
    : layout_(layout),
      destinations_(destinations),
      short_(std::move(shortSwitches)),
      isShort_(markShort(layout, short_)),
      dmodk_(layout, reach, destinations, &isShort_) {}

bool DegradedDmodk::avoidsShort(std::size_t i) const {
  return std::ranges::none_of(dmodk_.chain(i),
                              [&](SwitchIndex s) { return s != kNoSwitch && isShort_[s]; });
}

bool DegradedDmodk::plainColumn(std::size_t i, const std::vector<std::uint16_t>& dist,
                                std::vector<CableId>& next) const {
  if (!avoidsShort(i)) return false;
  next.resize(layout_.switches());
  dmodk_.column(i, next);
  const SwitchIndex leaf = destinations_[i].leaf;
  for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
    if (s == leaf) continue;
    if (dist[s] == kFar) {
      next[s] = kNoCable;
      continue;
    }
    if (isShort_[s]) continue;
    const CableId c = next[s];
    if (c == kNoCable || c == kDeliver || dist[layout_.to[c]] + 1 != dist[s]) return false;
  }
  return true;
}

bool DegradedDmodk::climbShort(std::size_t i, const std::vector<std::uint16_t>& dist,
                               const BalancedRoutes& balanced, std::vector<CableId>& next) const {
  const Destination& d = destinations_[i];
  for (const SwitchIndex s : short_) {
    if (dist[s] == kFar || s == d.leaf) continue;
    CableId c = next[s];
    // Climbing (its D-mod-K hop goes up): by load. Above the leaf it keeps
    // its one down cable toward it.
    if (c == kNoCable || layout_.height[layout_.to[c]] > layout_.height[s])
      c = next[s] = balanced.lightestClimb(s, d, dist, c);
    if (c == kNoCable || dist[layout_.to[c]] + 1 != dist[s]) return false;
  }
  return true;
}

}  // namespace ibsm::routing::ftree
