// The LFT entries toward one destination LID form a next-hop function over
// switches. Resolving it once per destination tells, for every switch at once,
// whether its traffic arrives and in how many hops, so the report never walks
// the (switch count x LID count) pairs one by one: each switch is visited once
// per destination (a memoised walk; colouring finds loops without hanging).
#pragma once

#include <ibsm/Report.h>

#include <cstdint>
#include <span>
#include <vector>

#include "routing/analysis/ForwardingView.h"

namespace ibsm::analysis {

enum class Outcome : std::uint8_t { Delivered, NoEntry, DeadPort, Loop, WrongPort };

UnreachableReason reasonOf(Outcome outcome);

class NextHops {
 public:
  explicit NextHops(const ForwardingView& view);

  void resolve(const Destination& destination);
  // hops[i]->resolve(*destinations[i]) for every i, with each switch's
  // ports and channels read once for all of them (switch by switch) rather
  // than once per destination: the tables they are read from are larger
  // than the cache.
  static void resolveTogether(std::span<NextHops* const> hops,
                              std::span<const Destination* const> destinations);

  Outcome outcome(SwitchIndex s) const { return outcome_[s]; }
  // Inter-switch hops to delivery (Delivered only).
  std::uint16_t hops(SwitchIndex s) const { return hops_[s]; }
  // The channel s forwards the destination on, or kNoChannel when its entry
  // does not lead to another switch.
  ChannelId channel(SwitchIndex s) const { return channel_[s]; }
  // The switch at the other end of channel(s), or kNoSwitch.
  SwitchIndex next(SwitchIndex s) const { return next_[s]; }
  // Switches in an order where each comes after the switch it forwards to;
  // walk it backwards to push counts along the routes. Switches on or
  // leading into a loop come in no useful order.
  std::span<const SwitchIndex> order() const { return order_; }
  bool hasLoop() const { return hasLoop_; }
  // The destination LID last resolved.
  Lid lid() const { return lid_; }

 private:
  enum class Colour : std::uint8_t { White, Grey, Black };

  // Classifies the entry of s; returns the next switch, or kNoSwitch when
  // the walk ends at s (outcome_[s] then says how).
  inline SwitchIndex step(SwitchIndex s, const Destination& destination);
  void begin(const Destination& destination);
  // Outcome and hops of every switch from the steps taken.
  void followChains();

  const ForwardingView& view_;
  std::vector<Outcome> outcome_;
  std::vector<std::uint16_t> hops_;
  std::vector<ChannelId> channel_;
  std::vector<SwitchIndex> next_;
  std::vector<Colour> colour_;
  std::vector<SwitchIndex> order_;
  std::vector<SwitchIndex> stack_;
  bool hasLoop_{false};
  Lid lid_{};
  std::span<const std::uint8_t> entries_;  // the LFT entries toward the current destination
};

// One route walked hop by hop, for the few examples a report shows.
struct Trace {
  Outcome outcome{Outcome::NoEntry};
  std::vector<SwitchIndex> path;    // switches visited, the last one where it ended
  std::uint8_t lastPort{kNoRoute};  // the entry of the last switch
};
Trace traceRoute(const ForwardingView& view, SwitchIndex from, const Destination& destination);

// Every route toward the destination follows the tree the next hops form:
// pushing each switch's source count (`pushed`, per switch) down it,
// farthest first, leaves in pushed[s] the routes that leave s (pushCounts);
// each adds to the load of the channel s forwards on (pushLoads, which
// does both). The counts are pushed first (a small array, read in route
// order), then added to the loads in switch order: a switch's channels are
// numbered together, so the large per-channel array is written in address
// order.
inline void pushCounts(const NextHops& hops, std::vector<std::uint64_t>& pushed) {
  const auto order = hops.order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const SwitchIndex s = *it;
    if (pushed[s] != 0 && hops.channel(s) != kNoChannel) pushed[hops.next(s)] += pushed[s];
  }
}

inline void pushLoads(const NextHops& hops, std::vector<std::uint64_t>& pushed,
                      std::vector<std::uint64_t>& load) {
  pushCounts(hops, pushed);
  constexpr SwitchIndex kAhead = 16;  // switches to fetch a channel's load ahead
  const auto n = static_cast<SwitchIndex>(pushed.size());
  for (SwitchIndex s = 0; s < n; ++s) {
    if (s + kAhead < n && hops.channel(s + kAhead) != kNoChannel)
      __builtin_prefetch(&load[hops.channel(s + kAhead)], 1);
    const ChannelId c = hops.channel(s);
    if (pushed[s] != 0 && c != kNoChannel) load[c] += pushed[s];
  }
}

}  // namespace ibsm::analysis
