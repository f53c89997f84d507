#include "routing/analysis/NextHops.h"

#include <algorithm>

namespace ibsm::analysis {
namespace {

struct Step {
  SwitchIndex next{kNoSwitch};  // kNoSwitch: the walk ends here with `outcome`
  Outcome outcome{Outcome::NoEntry};
  ChannelId channel{kNoChannel};
  std::uint8_t port{kNoRoute};
};

// Called once per (switch, destination): the report's inner loop.
[[gnu::always_inline]] inline Step classify(const ForwardingView& view, SwitchIndex s,
                                            const Destination& d, std::uint8_t port) {
  const ForwardingView::Row& row = view.row(s);
  if (port > row.numPorts)
    return {kNoSwitch, port == kNoRoute ? Outcome::NoEntry : Outcome::DeadPort, kNoChannel, port};
  if (s == d.sw && port == d.port) return {kNoSwitch, Outcome::Delivered, kNoChannel, port};
  const std::uint16_t step = view.step(s, port);
  if (step < ForwardingView::kStepWrong) {
    const ChannelId c = row.firstChannel + step;
    return {view.channelTo(c), Outcome::Delivered, c, port};
  }
  return {kNoSwitch, step == ForwardingView::kStepMissing ? Outcome::DeadPort : Outcome::WrongPort,
          kNoChannel, port};
}

}  // namespace

UnreachableReason reasonOf(Outcome outcome) {
  switch (outcome) {
    case Outcome::NoEntry:
      return UnreachableReason::NoEntry;
    case Outcome::DeadPort:
      return UnreachableReason::DeadPort;
    case Outcome::Loop:
      return UnreachableReason::Loop;
    case Outcome::WrongPort:
    case Outcome::Delivered:
      break;
  }
  return UnreachableReason::WrongPort;
}

NextHops::NextHops(const ForwardingView& view)
    : view_(view),
      outcome_(view.switches(), Outcome::NoEntry),
      hops_(view.switches(), 0),
      channel_(view.switches(), kNoChannel),
      next_(view.switches(), kNoSwitch),
      colour_(view.switches(), Colour::White) {
  order_.reserve(view.switches());
}

SwitchIndex NextHops::step(SwitchIndex s, const Destination& destination) {
  const Step st = classify(view_, s, destination, entries_[s]);
  channel_[s] = st.channel;
  next_[s] = st.next;
  if (st.next == kNoSwitch) {
    outcome_[s] = st.outcome;
    hops_[s] = 0;
  }
  return st.next;
}

void NextHops::begin(const Destination& destination) {
  entries_ = view_.entries(destination.lid);
  lid_ = destination.lid;
}

void NextHops::resolve(const Destination& destination) {
  begin(destination);
  const auto n = static_cast<SwitchIndex>(colour_.size());
  // Every switch's own step first, in switch order: the port targets it
  // reads are spread over tables larger than the cache, so each is fetched
  // ahead, in two stages: a switch's step 2 * kAhead ahead, then the
  // channel it names kAhead ahead (its far end is read per channel).
  constexpr SwitchIndex kAhead = 16;
  for (SwitchIndex s = 0; s < n; ++s) {
    if (s + 2 * kAhead < n) view_.prefetchStep(s + 2 * kAhead, entries_[s + 2 * kAhead]);
    if (s + kAhead < n) view_.prefetchChannelTo(s + kAhead, entries_[s + kAhead]);
    step(s, destination);
  }
  followChains();
}

void NextHops::resolveTogether(std::span<NextHops* const> hops,
                               std::span<const Destination* const> destinations) {
  for (std::size_t i = 0; i < hops.size(); ++i) hops[i]->begin(*destinations[i]);
  const auto n = static_cast<SwitchIndex>(hops.empty() ? 0 : hops[0]->colour_.size());
  for (SwitchIndex s = 0; s < n; ++s)
    for (std::size_t i = 0; i < hops.size(); ++i) hops[i]->step(s, *destinations[i]);
  for (NextHops* h : hops) h->followChains();
}

void NextHops::followChains() {
  const auto n = static_cast<SwitchIndex>(colour_.size());
  std::ranges::fill(colour_, Colour::White);
  order_.clear();
  hasLoop_ = false;
  for (SwitchIndex s = 0; s < n; ++s) {
    if (colour_[s] != Colour::White) continue;
    // Follow the chain until it meets a resolved switch, ends, or comes back
    // to a switch of this same chain (grey): then everything on it is known.
    stack_.clear();
    Outcome end = Outcome::NoEntry;
    std::uint16_t endHops = 0;
    for (SwitchIndex x = s;;) {
      if (colour_[x] == Colour::Black) {
        end = outcome_[x];
        endHops = hops_[x];
        break;
      }
      if (colour_[x] == Colour::Grey) {
        end = Outcome::Loop;
        hasLoop_ = true;
        break;
      }
      colour_[x] = Colour::Grey;
      const SwitchIndex next = next_[x];
      if (next == kNoSwitch) {
        colour_[x] = Colour::Black;
        order_.push_back(x);
        end = outcome_[x];
        break;
      }
      stack_.push_back(x);
      x = next;
    }
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
      outcome_[*it] = end;
      hops_[*it] = end == Outcome::Delivered ? ++endHops : 0;
      colour_[*it] = Colour::Black;
      order_.push_back(*it);
    }
  }
}

Trace traceRoute(const ForwardingView& view, SwitchIndex from, const Destination& destination) {
  Trace trace;
  std::vector<bool> seen(view.switches(), false);
  for (SwitchIndex x = from;;) {
    trace.path.push_back(x);
    if (seen[x]) {
      trace.outcome = Outcome::Loop;
      return trace;
    }
    seen[x] = true;
    const Step st = classify(view, x, destination, view.entry(x, destination.lid));
    trace.lastPort = st.port;
    if (st.next == kNoSwitch) {
      trace.outcome = st.outcome;
      return trace;
    }
    x = st.next;
  }
}

}  // namespace ibsm::analysis
