#include "routing/engines/ftree/FatTreeDmodk.h"

#include <ibsm/Routing.h>

#include <algorithm>
#include <limits>

namespace ibsm::routing::ftree {
namespace {

// A switch of a leaf's level with switches below it that shares the leaf's
// parents, cable for cable in canonical order; kNoSwitch when none does.
SwitchIndex columnSibling(const FatTreeLayout& layout, SwitchIndex leaf) {
  const auto ups = layout.upCables(leaf);
  if (ups.empty()) return kNoSwitch;
  const auto sameParents = [&](SwitchIndex s) {
    const auto theirs = layout.upCables(s);
    return std::ranges::equal(ups, theirs,
                              [&](CableId a, CableId b) { return layout.to[a] == layout.to[b]; });
  };
  for (const CableId c : layout.downCables(layout.to[ups.front()])) {
    const SwitchIndex s = layout.to[c];
    if (!layout.downCables(s).empty() && sameParents(s)) return s;
  }
  return kNoSwitch;
}

// The up cable index by which a switch of each height below `leaf` climbs
// into its column: those of its sibling's down path by first down cables,
// and how many cables in a row (a trunk) lead to the same switch there.
// False when the leaf has no such sibling.
bool columnDigits(const FatTreeLayout& layout, SwitchIndex leaf, std::uint8_t* digits,
                  std::uint8_t* widths) {
  SwitchIndex at = columnSibling(layout, leaf);
  if (at == kNoSwitch) return false;
  for (std::size_t h = layout.height[leaf]; h-- > 0;) {
    const auto downs = layout.downCables(at);
    if (downs.empty()) return false;
    const SwitchIndex child = layout.to[downs.front()];
    const auto ups = layout.upCables(child);
    auto first = std::ranges::find(ups, layout.reverse[downs.front()]);
    while (first != ups.begin() && layout.to[*(first - 1)] == at) --first;
    auto end = first;
    while (end != ups.end() && layout.to[*end] == at) ++end;
    digits[h] = static_cast<std::uint8_t>(first - ups.begin());
    widths[h] = static_cast<std::uint8_t>(end - first);
    at = child;
  }
  return true;
}

bool highLeaf(const FatTreeLayout& layout, SwitchIndex s) {
  return layout.height[s] > 0 && layout.leafIndex[s] != kNotLeaf;
}

}  // namespace

bool dmodkOnUnevenLeaves(const FatTreeLayout& layout, const FatTreeReach& reach) {
  if (!layout.unevenLeaves) return false;
  constexpr std::size_t kUnset = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> ups(layout.top + 1u, kUnset), downs(layout.top + 1u, kUnset);
  const auto same = [&](std::size_t& want, std::size_t n) {
    if (want == kUnset) want = n;
    return want == n;
  };
  std::vector<std::uint8_t> digits(layout.top + 1u, 0), widths(layout.top + 1u, 1);
  for (SwitchIndex s = 0; s < layout.switches(); ++s) {
    const auto h = layout.height[s];
    if (!same(ups[h], layout.upCables(s).size())) return false;
    // One down path per CA LID: a leaf whose CAs do not fill its up cables
    // evenly would put two LIDs' routes on one where the placement by load
    // splits them.
    if (layout.leafIndex[s] != kNotLeaf && layout.computeCas[s] % ups[h] != 0) return false;
    if (highLeaf(layout, s)) {
      if (!columnDigits(layout, s, digits.data(), widths.data())) return false;
    } else if (!same(downs[h], layout.downCables(s).size())) {
      return false;
    }
  }
  for (const SwitchIndex t : layout.byHeight[layout.top])
    for (const SwitchIndex leaf : layout.leaves)
      if (layout.height[leaf] == 0 && !reach.under(t, leaf)) return false;
  return true;
}

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
  // Per leaf above level 0, its column's up cable indices below it, and the
  // cables of a trunk into the column there, which its CA LIDs take in turn.
  std::vector<std::uint8_t> column(layout.leaves.size() * levels_, 0);
  std::vector<std::uint8_t> width(layout.leaves.size() * levels_, 1);
  std::vector<std::uint32_t> dealt(layout.leaves.size(), 0);
  if (layout.unevenLeaves)
    for (std::size_t l = 0; l < layout.leaves.size(); ++l)
      if (highLeaf(layout, layout.leaves[l]))
        columnDigits(layout, layout.leaves[l], column.data() + l * levels_,
                     width.data() + l * levels_);
  std::vector<std::uint32_t> used(layout.cables(), 0);
  for (std::size_t i = 0; i < destinations.size(); ++i) {
    SwitchIndex c = destinations[i].leaf;
    const std::size_t base = layout.height[c], l = layout.leafIndex[c];
    for (std::size_t h = 0; h < base; ++h)
      digit_[at(i, h)] =
          static_cast<std::uint8_t>(column[l * levels_ + h] + dealt[l] % width[l * levels_ + h]);
    dealt[l] += base > 0;
    chain_[at(i, base)] = c;
    bool counted = !uncounted || !(*uncounted)[c];
    for (std::size_t h = base; h + 1 < levels_; ++h) {
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

  // Down cables for switches above a leaf but off its down paths: on a
  // complete tree only traffic a switch originates uses them, so the first
  // one serves. With leaves of uneven height the CAs of a director chip
  // descend this way toward LIDs whose down path is in another column, so
  // each LID takes its turn among the cables of a trunk (trunk_, towardAt_).
  const auto& leaves = layout.leaves;
  toward_.assign(layout.switches() * leaves.size(), kNoCable);
  if (layout.unevenLeaves) {
    trunk_.assign(toward_.size(), 1);
    towardAt_.assign(toward_.size(), 0);
  }
  for (SwitchIndex s = 0; s < layout.switches(); ++s)
    for (std::size_t l = 0; l < leaves.size(); ++l) {
      if (!reach.under(s, leaves[l])) continue;
      const auto downs = layout.downCables(s);
      for (std::size_t k = 0; k < downs.size(); ++k) {
        if (!reach.under(layout.to[downs[k]], leaves[l])) continue;
        const std::size_t at = s * leaves.size() + l;
        toward_[at] = downs[k];
        if (!trunk_.empty()) {
          towardAt_[at] = static_cast<std::uint32_t>(layout.firstDown[s] + k);
          while (k + trunk_[at] < downs.size() &&
                 layout.to[downs[k + trunk_[at]]] == layout.to[downs[k]])
            ++trunk_[at];
        }
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
      emit(s, s == leaf ? kDeliver : downCable_[at(i, h)]);
    } else if (BitRows::test(above, s)) {
      emit(s, trunk_.empty() ? toward[s * leaves] : towardCable(i, s));
    } else {
      // On a complete tree every up cable leads on to the leaf; anything
      // else would be caught by the legaliser.
      const auto ups = layout_.upCables(s);
      emit(s, ups.empty() ? kNoCable : ups[digit[h] % ups.size()]);
    }
  }
}

// Above destinations[i]'s leaf, off its down path, on a tree with leaves of
// uneven height: the cable of the trunk toward the leaf that the LID's own
// digit at its leaf picks, so that a leaf's LIDs take the trunk in turn.
CableId DmodkRoutes::towardCable(std::size_t i, SwitchIndex s) const {
  const SwitchIndex leaf = destinations_[i].leaf;
  const std::size_t k = s * layout_.leaves.size() + layout_.leafIndex[leaf];
  if (trunk_[k] < 2) return toward_[k];
  return layout_.down[towardAt_[k] + digit_[at(i, layout_.height[leaf])] % trunk_[k]];
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
  if (chain_[at(i, h)] == s) return s == leaf ? kDeliver : downCable_[at(i, h)];
  if (BitRows::test(reach_.above(leaf), s))
    return trunk_.empty() ? toward_[s * layout_.leaves.size() + layout_.leafIndex[leaf]]
                          : towardCable(i, s);
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
      out[s] = s == leaf ? destinations_[i].port : down[h];
    } else if (BitRows::test(above, s)) {
      out[s] = trunk_.empty() ? toward[s * leaves] : layout_.port[towardCable(i, s)];
    } else {
      const std::uint32_t ups = firstUp[s + 1] - firstUp[s];
      out[s] = ups == 0 ? kNoRoute : upPort_[firstUp[s] + digit[h] % ups];
    }
  }
}

}  // namespace ibsm::routing::ftree
