#include "routing/engines/ftree/FatTreeDmodk.h"

#include <ibsm/Routing.h>

namespace ibsm::routing::ftree {

DmodkRoutes::DmodkRoutes(const FatTreeLayout& layout, const FatTreeReach& reach,
                         std::span<const Destination> destinations,
                         const std::vector<bool>* uncounted)
    : layout_(layout),
      reach_(reach),
      destinations_(destinations),
      levels_(layout.top + 1u),
      chain_(destinations.size() * levels_, kNoSwitch),
      downCable_(destinations.size() * levels_, kNoCable),
      digit_(destinations.size() * levels_, 0) {
  std::vector<std::uint32_t> used(layout.cables(), 0);
  for (std::size_t i = 0; i < destinations.size(); ++i) {
    SwitchIndex c = destinations[i].leaf;
    chain_[at(i, 0)] = c;
    bool counted = !uncounted || !(*uncounted)[c];
    for (std::size_t h = 0; h + 1 < levels_; ++h) {
      const auto ups = layout.upCables(c);
      if (ups.empty()) break;
      const std::size_t start = destinations[i].layer % ups.size();
      std::size_t best = start;
      for (std::size_t k = 1; k < ups.size(); ++k) {
        const std::size_t j = (start + k) % ups.size();
        if (used[ups[j]] < used[ups[best]]) best = j;
      }
      const CableId climb = ups[best];
      used[climb] += counted;
      digit_[at(i, h)] = static_cast<std::uint8_t>(best);
      c = layout.to[climb];
      counted = counted && (!uncounted || !(*uncounted)[c]);
      chain_[at(i, h + 1)] = c;
      downCable_[at(i, h + 1)] = layout.reverse[climb];
    }
  }

  // Down cables for switches above a leaf but off its down paths: only
  // traffic a switch originates uses them, so the first one serves.
  const auto& leaves = layout.leaves;
  toward_.assign(layout.switches() * leaves.size(), kNoCable);
  for (SwitchIndex s = 0; s < layout.switches(); ++s)
    for (std::size_t l = 0; l < leaves.size(); ++l) {
      if (!reach.under(s, leaves[l])) continue;
      for (const CableId c : layout.downCables(s))
        if (reach.under(layout.to[c], leaves[l])) {
          toward_[s * leaves.size() + l] = c;
          break;
        }
    }
  const auto portOf = [&](CableId c) { return c == kNoCable ? kNoRoute : layout.port[c]; };
  for (const CableId c : downCable_) downPort_.push_back(portOf(c));
  for (const CableId c : toward_) towardPort_.push_back(portOf(c));
  for (const CableId c : layout.up) upPort_.push_back(portOf(c));
}

template <typename Emit>
void DmodkRoutes::fill(std::size_t i, Emit&& emit) const {
  const SwitchIndex leaf = destinations_[i].leaf;
  // toward_ is switch-major: this leaf's entry of switch s is toward[s * leaves].
  const CableId* toward = toward_.data() + layout_.leafIndex[leaf];
  const std::size_t leaves = layout_.leaves.size();
  const std::uint64_t* above = reach_.above(leaf);
  const SwitchIndex* chain = chain_.data() + at(i, 0);
  const std::uint8_t* digit = digit_.data() + at(i, 0);
  for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
    const std::size_t h = layout_.height[s];
    if (chain[h] == s) {
      emit(s, h == 0 ? kDeliver : downCable_[at(i, h)]);
    } else if (BitRows::test(above, s)) {
      emit(s, toward[s * leaves]);
    } else {
      // On a complete tree every up cable leads on to the leaf; anything
      // else would be caught by the legaliser.
      const auto ups = layout_.upCables(s);
      emit(s, ups.empty() ? kNoCable : ups[digit[h] % ups.size()]);
    }
  }
}

void DmodkRoutes::column(std::size_t i, std::vector<CableId>& next) const {
  fill(i, [&](SwitchIndex s, CableId c) { next[s] = c; });
}

// Asked switch by switch for one destination (a column's flows, its
// checks): the leaf's row of switches above it, not a row per switch, and no
// division where the digit is below the up cables (every switch that lost none).
CableId DmodkRoutes::hop(std::size_t i, SwitchIndex s) const {
  const SwitchIndex leaf = destinations_[i].leaf;
  const std::size_t h = layout_.height[s];
  if (chain_[at(i, h)] == s) return h == 0 ? kDeliver : downCable_[at(i, h)];
  if (BitRows::test(reach_.above(leaf), s))
    return toward_[s * layout_.leaves.size() + layout_.leafIndex[leaf]];
  const auto ups = layout_.upCables(s);
  const std::size_t digit = digit_[at(i, h)];
  return ups.empty() ? kNoCable : ups[digit < ups.size() ? digit : digit % ups.size()];
}

// fill() again, on port tables: this loop runs once per (switch, CA LID).
void DmodkRoutes::ports(std::size_t i, std::uint8_t* out) const {
  const SwitchIndex leaf = destinations_[i].leaf;
  const std::uint8_t* toward = towardPort_.data() + layout_.leafIndex[leaf];
  const std::size_t leaves = layout_.leaves.size();
  const std::uint64_t* above = reach_.above(leaf);
  const SwitchIndex* chain = chain_.data() + at(i, 0);
  const std::uint8_t* down = downPort_.data() + at(i, 0);
  const std::uint8_t* digit = digit_.data() + at(i, 0);
  const std::uint16_t* height = layout_.height.data();
  const std::uint32_t* firstUp = layout_.firstUp.data();
  for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
    const std::size_t h = height[s];
    if (chain[h] == s) {
      out[s] = h == 0 ? destinations_[i].port : down[h];
    } else if (BitRows::test(above, s)) {
      out[s] = toward[s * leaves];
    } else {
      const std::uint32_t ups = firstUp[s + 1] - firstUp[s];
      out[s] = ups == 0 ? kNoRoute : upPort_[firstUp[s] + digit[h] % ups];
    }
  }
}

}  // namespace ibsm::routing::ftree
