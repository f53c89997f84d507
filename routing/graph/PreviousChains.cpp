#include "routing/graph/PreviousChains.h"

#include <algorithm>

namespace ibsm::routing {

PreviousChains::PreviousChains(const SwitchGraph& graph, std::span<const Lft> previous)
    : previous_(previous),
      bySwitch_(graph.size(), nullptr),
      peer_(graph.size()),
      state_(graph.size(), 0),
      port_(graph.size(), kNoRoute),
      next_(graph.size(), kNoSwitch),
      length_(graph.size(), kUnreachable) {
  if (previous.empty()) return;
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const NodeId id = graph.nodeId(s);
    if (id < previous.size() && !previous[id].port.empty()) bySwitch_[s] = &previous[id];
    graph.forEachCable(s, [&](SwitchIndex t, const Cable& cable) {
      auto& peers = peer_[s];
      if (peers.size() <= cable.port) peers.resize(cable.port + 1u, kNoSwitch);
      peers[cable.port] = t;
    });
  }
}

std::size_t PreviousChains::judge(Lid lid, SwitchIndex target, std::uint8_t deliverPort) {
  if (previous_.empty()) return 0;
  lid_ = lid;
  std::ranges::fill(state_, 0);
  for (SwitchIndex s = 0; s < state_.size(); ++s) {
    port_[s] = bySwitch_[s] ? bySwitch_[s]->at(lid) : kNoRoute;
    next_[s] = kNoSwitch;
  }
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
    const std::uint8_t p = port_[at];
    if (at == target) {  // the target must deliver, whatever its entry leads to
      holds = p == deliverPort;
      break;
    }
    const auto& peers = peer_[at];
    if (p == kNoRoute || p >= peers.size() || peers[p] == kNoSwitch) break;
    next_[at] = peers[p];
    at = peers[p];
  }
  for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
    state_[*it] = holds ? kHolds : kBroken;
    length_[*it] = holds ? tail++ : kUnreachable;
  }
}

}  // namespace ibsm::routing
