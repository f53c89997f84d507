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
  const PortTarget& t = view.target(s, port);
  switch (t.kind) {
    case PortTarget::Kind::Switch:
      return {t.next, Outcome::Delivered, t.channel, port};
    case PortTarget::Kind::Missing:
      return {kNoSwitch, Outcome::DeadPort, kNoChannel, port};
    case PortTarget::Kind::Self:
    case PortTarget::Kind::Endpoint:
      break;
  }
  return {kNoSwitch, Outcome::WrongPort, kNoChannel, port};
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

void NextHops::resolve(const Destination& destination) {
  entries_ = view_.entries(destination.lid);
  std::ranges::fill(colour_, Colour::White);
  order_.clear();
  hasLoop_ = false;
  for (SwitchIndex s = 0; s < colour_.size(); ++s) {
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
      const SwitchIndex next = step(x, destination);
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
