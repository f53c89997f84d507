#include "routing/engines/updn/UpDownRoutes.h"

#include <algorithm>

namespace ibsm::routing::updn {

UpDownRoutes::UpDownRoutes(const SwitchGraph& graph, const UpDownOrder& order)
    : graph_(graph),
      order_(order),
      length_(graph.size()),
      mode_(graph.size()),
      offer_(graph.size(), 0),
      keptPort_(graph.size(), kNoRoute),
      committed_(graph.size()) {}

void UpDownRoutes::toward(SwitchIndex d) {
  start(d);
  grow();
  relaxUncommitted(d);
}

void UpDownRoutes::toward(SwitchIndex d, const PreviousChains& chains) {
  start(d);
  keepLegal(d, chains);
  grow();
  relaxUncommitted(d);
}

void UpDownRoutes::candidates(SwitchIndex s, std::vector<std::uint8_t>& out) const {
  if (keptPort_[s] != kNoRoute) {
    out.push_back(keptPort_[s]);
    return;
  }
  const Mode mode = mode_[s];
  if (mode == Mode::None) return;
  const auto nearer = static_cast<std::uint16_t>(length_[s] - 1);
  const bool down = mode == Mode::Down || mode == Mode::Either;
  const bool up = mode == Mode::Up || mode == Mode::Either;
  graph_.forEachCable(s, [&](SwitchIndex t, const Cable& cable) {
    const Mode next = mode_[t];
    if (t == s || next == Mode::None || length_[t] != nearer) return;
    // A down hop must land on a switch that forwards down in turn.
    const bool allowed = order_.isUp(s, t) ? up : (down && next == Mode::Down);
    if (allowed) out.push_back(cable.port);
  });
}

void UpDownRoutes::start(SwitchIndex d) {
  std::ranges::fill(mode_, Mode::None);
  std::ranges::fill(length_, 0);
  std::ranges::fill(keptPort_, kNoRoute);
  for (auto& b : buckets_) b.clear();
  kept_ = 0;
  settle(d, Mode::Down, 0);
}

void UpDownRoutes::settle(SwitchIndex s, Mode mode, std::uint16_t length) {
  mode_[s] = mode;
  length_[s] = length;
  bucket(length).push_back(s);
}

std::vector<SwitchIndex>& UpDownRoutes::bucket(std::size_t length) {
  if (buckets_.size() <= length) buckets_.resize(length + 1);
  return buckets_[length];
}

// Nearest first, so that the switch a chain goes on to is judged already: a
// chain is legal when it climbs into a legal chain or descends into one that
// only descends. A chain that the current order makes illegal is dropped,
// and with it every chain that runs into it; those switches are routed anew.
void UpDownRoutes::keepLegal(SwitchIndex d, const PreviousChains& chains) {
  byLength_.clear();
  for (SwitchIndex s = 0; s < mode_.size(); ++s)
    if (s != d && chains.holds(s)) byLength_.push_back(s);
  std::ranges::stable_sort(byLength_, {}, [&](SwitchIndex s) { return chains.length(s); });
  for (const SwitchIndex s : byLength_) {
    const SwitchIndex t = chains.next(s);
    if (t == kNoSwitch || mode_[t] == Mode::None) continue;
    const bool up = order_.isUp(s, t);
    if (!up && mode_[t] != Mode::Down) continue;
    settle(s, up ? Mode::Up : Mode::Down, chains.length(s));
    keptPort_[s] = chains.port(s);
    ++kept_;
  }
}

// Outward from the settled switches, one length at a time: a switch offered
// a route of this length takes it, a down route over an up one.
void UpDownRoutes::grow() {
  for (std::size_t len = 0; len < buckets_.size(); ++len) {
    for (std::size_t i = 0; i < buckets_[len].size(); ++i) {
      const SwitchIndex u = buckets_[len][i];
      if (mode_[u] == Mode::None) {
        mode_[u] = (offer_[u] & 1) ? Mode::Down : Mode::Up;
        length_[u] = static_cast<std::uint16_t>(len);
        offer_[u] = 0;
      }
    }
    for (std::size_t i = 0; i < buckets_[len].size(); ++i) {
      const SwitchIndex u = buckets_[len][i];
      graph_.forEachCable(u, [&](SwitchIndex x, const Cable&) {
        if (x == u || mode_[x] != Mode::None) return;
        // From x the hop to u goes up when u comes first in the order.
        const std::uint8_t bit = order_.isUp(x, u) ? 2 : (mode_[u] == Mode::Down ? 1 : 0);
        if (bit == 0) return;
        if (offer_[x] == 0) bucket(len + 1).push_back(x);
        offer_[x] |= bit;
      });
    }
  }
}

// A down switch that no down switch feeds on a down hop may also climb. A
// kept switch feeds only the switch its previous entry leads to.
void UpDownRoutes::relaxUncommitted(SwitchIndex d) {
  committed_.assign(committed_.size(), false);
  for (SwitchIndex s = 0; s < mode_.size(); ++s) {
    if (mode_[s] != Mode::Down || s == d) continue;
    const bool kept = keptPort_[s] != kNoRoute;
    graph_.forEachCable(s, [&](SwitchIndex t, const Cable& cable) {
      if (kept ? cable.port == keptPort_[s]
               : !order_.isUp(s, t) && t != s && mode_[t] == Mode::Down &&
                     length_[t] + 1 == length_[s])
        committed_[t] = true;
    });
  }
  for (SwitchIndex s = 0; s < mode_.size(); ++s) {
    if (mode_[s] != Mode::Down || s == d || committed_[s] || keptPort_[s] != kNoRoute) continue;
    bool climbs = false;
    graph_.forEachCable(s, [&](SwitchIndex t, const Cable&) {
      climbs =
          climbs || (order_.isUp(s, t) && mode_[t] != Mode::None && length_[t] + 1 == length_[s]);
    });
    if (climbs) mode_[s] = Mode::Either;
  }
}

}  // namespace ibsm::routing::updn
