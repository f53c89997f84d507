#include "routing/graph/PreviousChains.h"

#include <algorithm>

namespace ibsm::routing {

PreviousChains::PreviousChains(const SwitchGraph& graph, std::span<const Lft> previous)
    : previous_(previous),
      table_(graph.size(), nullptr),
      tableSize_(graph.size(), 0),
      state_(graph.size(), 0),
      port_(graph.size(), kNoRoute),
      next_(graph.size(), kNoSwitch),
      length_(graph.size(), kUnreachable) {
  if (previous.empty()) return;
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    graph.forEachCable(s, [&](SwitchIndex, const Cable& cable) {
      stride_ = std::max<std::size_t>(stride_, cable.port + 1u);
    });
  peer_.assign(graph.size() * stride_, kNoSwitch);
  path_.reserve(graph.size());
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const NodeId id = graph.nodeId(s);
    if (id < previous.size() && !previous[id].port.empty()) {
      table_[s] = previous[id].port.data();
      tableSize_[s] = previous[id].port.size();
    }
    graph.forEachCable(
        s, [&](SwitchIndex t, const Cable& cable) { peer_[s * stride_ + cable.port] = t; });
  }
}

std::size_t PreviousChains::judge(Lid lid, SwitchIndex target, std::uint8_t deliverPort) {
  if (previous_.empty()) return 0;
  lid_ = lid;
  std::ranges::fill(state_, 0);
  std::size_t held = 0;
  for (SwitchIndex s = 0; s < state_.size(); ++s) {
    if (state_[s] == 0) walk(s, target, deliverPort);
    held += state_[s] == kHolds;
  }
  return held;
}

// Follows the chain from s until it delivers, breaks, loops or meets a
// switch already judged; everything on the way shares the verdict.
void PreviousChains::walk(SwitchIndex s, SwitchIndex target, std::uint8_t deliverPort) {
  path_.clear();
  SwitchIndex at = s;
  bool holds = false;
  std::uint16_t tail = 0;  // hops from the end of path_ to the target
  for (;;) {
    if (state_[at] != 0) {  // kWalking: a loop
      holds = state_[at] == kHolds;
      tail = holds ? static_cast<std::uint16_t>(length_[at] + 1) : 0;
      break;
    }
    state_[at] = kWalking;
    path_.push_back(at);
    // Every switch is walked once a judge: its entry and next hop are read here.
    const std::uint8_t p = lid_.value < tableSize_[at] ? table_[at][lid_.value] : kNoRoute;
    port_[at] = p;
    next_[at] = kNoSwitch;
    if (at == target) {  // the target must deliver, whatever its entry leads to
      holds = p == deliverPort;
      break;
    }
    if (p == kNoRoute || p >= stride_) break;
    const SwitchIndex peer = peer_[at * stride_ + p];
    if (peer == kNoSwitch) break;
    next_[at] = peer;
    at = peer;
  }
  for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
    state_[*it] = holds ? kHolds : kBroken;
    length_[*it] = holds ? tail++ : kUnreachable;
  }
}

}  // namespace ibsm::routing
