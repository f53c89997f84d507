#include "routing/engines/ftree/FatTreeSwitchColumns.h"

#include <algorithm>
#include <limits>

namespace ibsm::routing::ftree {
namespace {

// The switches the hub climb leaves to the legaliser's search on a tree that
// is not complete. Below a switch that lost an up cable (fewer than its
// level's most), the earlier neighbours of a switch lead toward a target on
// paths of unequal length (the lost cable's side is nearer to some targets),
// and the hub climb, which picks by the target's index, could take the
// longer: those go to the search, which picks by distance. A tree that is no
// complete one with a few cables lost (leaves uneven, or more than one in
// twenty up cables missing, as DegradedDmodk::make) goes to the search whole.
std::vector<bool> leftToSearch(const FatTreeLayout& layout, const FatTreeReach& reach) {
  const auto n = layout.switches();
  std::vector<std::size_t> most(layout.top + 1u, 0);
  for (SwitchIndex s = 0; s < n; ++s)
    most[layout.height[s]] = std::max(most[layout.height[s]], layout.upCables(s).size());
  std::vector<std::uint64_t> below(reach.words(), 0);
  std::size_t missing = 0;
  for (SwitchIndex s = 0; s < n; ++s) {
    const std::size_t lost = most[layout.height[s]] - layout.upCables(s).size();
    missing += lost;
    if (lost > 0)
      for (std::size_t w = 0; w < below.size(); ++w) below[w] |= reach.below(s)[w];
  }
  if (layout.unevenLeaves || missing * 20 > layout.cables() / 2) return std::vector<bool>(n, true);
  std::vector<bool> out(n);
  for (SwitchIndex s = 0; s < n; ++s) out[s] = BitRows::test(below.data(), s);
  return out;
}

}  // namespace

SwitchClimbs::SwitchClimbs(const FatTreeLayout& layout, const FatTreeReach& reach,
                           const HubOrder& hub, bool complete, bool cut) {
  const auto n = layout.switches();
  const std::vector<bool> searched = complete ? std::vector<bool>(n, false)
                                     : cut    ? leftToSearch(layout, reach)
                                              : std::vector<bool>(n, true);
  // Climbs to the hub, earliest first: an earlier neighbour is settled
  // before its later ones (on a complete tree every switch but the hub has
  // one). Through none left to the search.
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> depth(n, kNone);
  for (const SwitchIndex s : hub.order) {
    if (s == hub.hub) {
      depth[s] = 0;
      continue;
    }
    if (searched[s]) continue;
    for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c)
      if (hub.isUp(s, layout.to[c]) && depth[layout.to[c]] != kNone)
        depth[s] = std::min(depth[s], depth[layout.to[c]] + 1);
  }
  first_.assign(1, 0);
  for (SwitchIndex s = 0; s < n; ++s) {
    for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c)
      if (depth[s] != kNone && hub.isUp(s, layout.to[c]) && depth[layout.to[c]] + 1 == depth[s])
        cables_.push_back(c);
    first_.push_back(static_cast<std::uint32_t>(cables_.size()));
  }
}

SwitchColumns::SwitchColumns(const FatTreeLayout& layout, const FatTreeReach& reach,
                             const SwitchClimbs& climbs)
    : layout_(layout), reach_(reach), climbs_(climbs), digit_(layout.top + 1u, 0) {}

std::size_t SwitchColumns::column(SwitchIndex target, std::vector<CableId>& next, bool bySource,
                                  std::size_t rotate) {
  bySource_ = bySource;
  rotate_ = bySource ? rotate : 0;
  setDigits(target);
  std::ranges::fill(next, kNoCable);
  next[target] = kDeliver;
  descendToward(target, next);
  setDistances(target);
  std::size_t hubRouted = 0;
  for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
    if (next[s] != kNoCable) continue;  // the target and its ancestors
    if (dist_[s] != kFar) {
      next[s] = climb(s);
      continue;
    }
    const auto toHub = climbs_.toHub(s);
    if (toHub.empty()) continue;  // left to the legaliser
    next[s] = toHub[(layout_.canon[target] + turn(s, toHub.size())) % toHub.size()];
    ++hubRouted;
  }
  return hubRouted;
}

// Below the target's height: the up cable indices of its first down path,
// which (canonical orders being aligned) lead every switch of that level
// into the target's column. From its height up: its canonical index in
// mixed radix.
void SwitchColumns::setDigits(SwitchIndex target) {
  SwitchIndex at = target;
  for (std::size_t h = layout_.height[target]; h-- > 0;) {
    const auto downs = layout_.downCables(at);
    digit_[h] = 0;
    if (downs.empty()) continue;
    const SwitchIndex child = layout_.to[downs.front()];
    const auto ups = layout_.upCables(child);
    digit_[h] = static_cast<std::uint32_t>(std::ranges::find(ups, layout_.reverse[downs.front()]) -
                                           ups.begin());
    at = child;
  }
  std::size_t rest = layout_.canon[target];
  for (std::size_t h = layout_.height[target]; h < layout_.top; ++h) {
    const std::size_t ups = layout_.upCables(layout_.byHeight[h].front()).size();
    digit_[h] = ups == 0 ? 0 : static_cast<std::uint32_t>(rest % ups);
    rest = ups == 0 ? rest : rest / ups;
  }
}

// Up from the target a level at a time: each ancestor takes the down cable
// by which it was first reached.
void SwitchColumns::descendToward(SwitchIndex target, std::vector<CableId>& next) {
  level_.assign(1, target);
  ancestors_.assign(1, target);
  firstAncestor_.assign(layout_.height[target] + 1u, 0);
  while (!level_.empty()) {
    firstAncestor_.push_back(ancestors_.size());
    above_.clear();
    for (const SwitchIndex u : level_)
      for (const CableId c : layout_.upCables(u)) {
        const SwitchIndex a = layout_.to[c];
        if (next[a] != kNoCable) continue;
        next[a] = layout_.reverse[c];
        above_.push_back(a);
      }
    ancestors_.insert(ancestors_.end(), above_.begin(), above_.end());
    level_.swap(above_);
  }
  firstAncestor_.resize(layout_.top + 2u, ancestors_.size());
}

// What legalDistances() gives, without a pass over every up cable: the
// shortest legal path from s climbs to the lowest height L at which s lies
// below the target or one of its ancestors, and is 2L - height(s) -
// height(target) hops long (from its ancestors: height(s) - height(target)).
// The switches below the target and its ancestors are gathered per height
// from the reach rows; at the top, every switch with a legal path meets one.
void SwitchColumns::setDistances(SwitchIndex target) {
  const std::size_t words = reach_.words(), base = layout_.height[target], top = layout_.top;
  meets_.assign((top + 1) * words, 0);
  for (std::size_t h = base; h < top; ++h)
    for (std::size_t k = firstAncestor_[h]; k < firstAncestor_[h + 1]; ++k) {
      const std::uint64_t* row = reach_.below(ancestors_[k]);
      std::uint64_t* into = meets_.data() + h * words;
      for (std::size_t w = 0; w < words; ++w) into[w] |= row[w];
    }
  const std::uint64_t* legal = reach_.legalWith(target);
  const std::uint64_t* above = reach_.above(target);
  dist_.resize(layout_.switches());
  for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
    const std::size_t hs = layout_.height[s];
    if (!BitRows::test(legal, s)) {
      dist_[s] = kFar;
    } else if (BitRows::test(above, s)) {
      dist_[s] = static_cast<std::uint16_t>(hs - base);
    } else {
      std::size_t meet = std::max(hs + 1, base);
      while (meet < top && !BitRows::test(meets_.data() + meet * words, s)) ++meet;
      dist_[s] = static_cast<std::uint16_t>(2 * meet - hs - base);
    }
  }
}

// The digit's up cable when it leads on shortest, else the next that does.
CableId SwitchColumns::climb(SwitchIndex s) const {
  const auto ups = layout_.upCables(s);
  const std::size_t n = ups.size();
  if (n == 0) return kNoCable;
  const std::size_t first = digit_[layout_.height[s]] + turn(s, n);  // below n when not bySource
  for (std::size_t k = 0, i = first < n ? first : first % n; k < n; ++k, i = i + 1 == n ? 0 : i + 1)
    if (dist_[layout_.to[ups[i]]] + 1 == dist_[s]) return ups[i];
  return kNoCable;
}

// 0 unless bySource_: the digit sum of s's canonical index in base
// `choices`, so that switches of one column in different pods (indices a
// pod's width apart) turn differently, plus the CA's rotation.
std::size_t SwitchColumns::turn(SwitchIndex s, std::size_t choices) const {
  if (!bySource_ || choices < 2) return 0;
  std::size_t sum = rotate_;
  for (std::size_t i = layout_.canon[s]; i > 0; i /= choices) sum += i % choices;
  return sum;
}

}  // namespace ibsm::routing::ftree
