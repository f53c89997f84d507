#include "routing/engines/ftree/FatTreeLegalise.h"

#include <algorithm>

namespace ibsm::routing::ftree {

Legaliser::Legaliser(const FatTreeLayout& layout, const HubOrder& hub)
    : layout_(layout),
      hub_(hub),
      climbs_(layout.cables()),
      state_(layout.switches(), kUnknown),
      dist_(layout.switches(), 0),
      spread_(layout.cables(), 0) {
  firstEarlier_.push_back(0);
  firstLater_.push_back(0);
  for (SwitchIndex s = 0; s < layout.switches(); ++s) {
    for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c) {
      climbs_[c] = hub.isUp(s, layout.to[c]);
      (climbs_[c] ? earlier_ : later_).push_back(c);
    }
    firstEarlier_.push_back(static_cast<std::uint32_t>(earlier_.size()));
    firstLater_.push_back(static_cast<std::uint32_t>(later_.size()));
  }
  pending_.assign(layout.switches(), 0);
}

// A chain is legal when it climbs, then only descends. One pass latest
// first finds the chains that only descend (their next switch comes later,
// so it is judged already); one pass earliest first the chains that climb
// into a legal one (their next switch comes earlier). The rest are broken,
// loops included: a loop can neither only descend nor only climb.
void Legaliser::evaluate(const std::vector<CableId>& next) {
  const auto& order = hub_.order;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const SwitchIndex s = *it;
    const CableId c = next[s];
    state_[s] = kBroken;
    if (c == kDeliver) {
      state_[s] = kDescending;
      dist_[s] = 0;
    } else if (c != kNoCable && !climbs_[c] && state_[layout_.to[c]] == kDescending) {
      state_[s] = kDescending;
      dist_[s] = static_cast<std::uint16_t>(dist_[layout_.to[c]] + 1);
    }
  }
  for (const SwitchIndex s : order) {
    const CableId c = next[s];
    if (state_[s] == kDescending || c == kNoCable || !climbs_[c]) continue;
    const SwitchIndex t = layout_.to[c];
    if (state_[t] == kBroken) continue;
    state_[s] = kClimbing;
    dist_[s] = static_cast<std::uint16_t>(dist_[t] + 1);
  }
}

// Shortest resulting chain wins, then the least used cable.
template <typename Usable>
bool Legaliser::pick(SwitchIndex s, std::span<const CableId> cables, Usable&& usable,
                     std::vector<CableId>& next) {
  CableId best = kNoCable;
  std::uint16_t bestDist = 0;
  for (const CableId c : cables) {
    const SwitchIndex t = layout_.to[c];
    if (!usable(t)) continue;
    if (best == kNoCable || dist_[t] < bestDist ||
        (dist_[t] == bestDist && spread_[c] < spread_[best])) {
      best = c;
      bestDist = dist_[t];
    }
  }
  if (best == kNoCable) return false;
  next[s] = best;
  dist_[s] = static_cast<std::uint16_t>(bestDist + 1);
  ++spread_[best];
  return true;
}

// Hub-order Up*/Down* for the pending switches, around the fixed chains of
// all others: first every pending switch that can descend to a descending
// neighbour does (latest first, so its later neighbours are settled), then
// the rest climb to an earlier neighbour with a legal chain (earliest first).
bool Legaliser::reroute(std::vector<CableId>& next) {
  const auto& order = hub_.order;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const SwitchIndex s = *it;
    if (!pending_[s]) continue;
    next[s] = kNoCable;
    state_[s] = kUnknown;
    const std::span<const CableId> later(later_.data() + firstLater_[s],
                                         later_.data() + firstLater_[s + 1]);
    if (pick(
            s, later, [&](SwitchIndex t) { return state_[t] == kDescending; }, next))
      state_[s] = kDescending;
  }
  for (const SwitchIndex s : order) {
    if (!pending_[s] || state_[s] == kDescending) continue;
    const std::span<const CableId> earlier(earlier_.data() + firstEarlier_[s],
                                           earlier_.data() + firstEarlier_[s + 1]);
    if (!pick(
            s, earlier,
            [&](SwitchIndex t) { return state_[t] == kDescending || state_[t] == kClimbing; },
            next))
      return false;
    state_[s] = kClimbing;
  }
  return true;
}

std::size_t Legaliser::legalise(std::vector<CableId>& next, SwitchIndex target) {
  evaluate(next);
  std::size_t broken = 0;
  for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
    pending_[s] = state_[s] == kBroken;
    broken += pending_[s];
  }
  if (broken == 0 || reroute(next)) return broken;
  // The tree's chains left some switch no legal way out: route this
  // destination by the hub order alone, which always succeeds on a
  // connected fabric (every switch but the hub has an earlier neighbour).
  for (SwitchIndex s = 0; s < layout_.switches(); ++s) pending_[s] = s != target;
  reroute(next);
  return layout_.switches() - 1;
}

}  // namespace ibsm::routing::ftree
