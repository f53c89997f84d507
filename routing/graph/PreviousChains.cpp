#include "routing/graph/PreviousChains.h"

#include <algorithm>

namespace ibsm::routing {

PreviousChains::PreviousChains(const SwitchGraph& graph, std::span<const Lft> previous)
    : previous_(previous),
      bySwitch_(graph.size(), nullptr),
      peerStart_(graph.size() + 1, 0),
      state_(graph.size(), 0),
      port_(graph.size(), kNoRoute),
      next_(graph.size(), kNoSwitch),
      length_(graph.size(), kUnreachable) {
  if (previous.empty()) return;
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const NodeId id = graph.nodeId(s);
    if (id < previous.size() && !previous[id].port.empty()) bySwitch_[s] = &previous[id];
    std::size_t ports = 0;
    graph.forEachCable(s, [&](SwitchIndex, const Cable& cable) {
      ports = std::max<std::size_t>(ports, cable.port + 1u);
    });
    peerStart_[s + 1] = peerStart_[s] + ports;
  }
  peer_.assign(peerStart_.back(), kNoSwitch);
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    graph.forEachCable(
        s, [&](SwitchIndex t, const Cable& cable) { peer_[peerStart_[s] + cable.port] = t; });
  blocks_.assign(kCachedBlocks * kBlock * graph.size(), kNoRoute);
  blockHeld_.assign(kCachedBlocks, ~std::uint32_t{0});
}

const std::uint8_t* PreviousChains::entries(Lid lid) {
  const std::size_t n = bySwitch_.size();
  const std::uint32_t block = lid.value / kBlock;
  const std::size_t slot = block % kCachedBlocks;
  std::uint8_t* held = blocks_.data() + slot * kBlock * n;
  if (blockHeld_[slot] != block) {
    const std::size_t first = std::size_t{block} * kBlock;
    for (SwitchIndex s = 0; s < n; ++s) {
      const Lft* t = bySwitch_[s];
      const std::size_t have = t && t->port.size() > first ? t->port.size() - first : 0;
      for (std::size_t i = 0; i < kBlock; ++i)
        held[i * n + s] = i < have ? t->port[first + i] : kNoRoute;
    }
    blockHeld_[slot] = block;
  }
  return held + (lid.value % kBlock) * n;
}

std::size_t PreviousChains::judge(Lid lid, SwitchIndex target, std::uint8_t deliverPort) {
  if (previous_.empty()) return 0;
  lid_ = lid;
  std::ranges::fill(state_, 0);
  const std::uint8_t* column = entries(lid);
  std::copy(column, column + port_.size(), port_.begin());
  std::ranges::fill(next_, kNoSwitch);
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
    if (p == kNoRoute || p >= peerStart_[at + 1] - peerStart_[at]) break;
    const SwitchIndex peer = peer_[peerStart_[at] + p];
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
