#include "routing/engines/ftree/FatTreeHint.h"

namespace ibsm::routing::ftree {
namespace {

constexpr std::uint8_t kWalking = 1, kHolds = 2, kBroken = 3;

}  // namespace

HintColumns::HintColumns(const SwitchGraph& graph, const FatTreeLayout& layout,
                         std::span<const Lft> previous)
    : layout_(layout),
      previous_(previous),
      bySwitch_(layout.switches(), nullptr),
      portCable_(layout.switches()),
      stamp_(layout.switches(), 0),
      state_(layout.switches(), 0),
      hop_(layout.switches(), kNoCable) {
  if (previous.empty()) return;
  for (SwitchIndex s = 0; s < layout.switches(); ++s) {
    const NodeId id = graph.nodeId(s);
    if (id < previous.size() && !previous[id].port.empty()) bySwitch_[s] = &previous[id];
    for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c) {
      auto& ports = portCable_[s];
      if (ports.size() <= layout.port[c]) ports.resize(layout.port[c] + 1u, kNoCable);
      ports[layout.port[c]] = c;
    }
  }
}

CableId HintColumns::previousHop(SwitchIndex s, Lid lid, SwitchIndex target,
                                 std::uint8_t deliverPort) const {
  if (!bySwitch_[s]) return kNoCable;
  const std::uint8_t p = bySwitch_[s]->at(lid);
  if (p == kNoRoute) return kNoCable;
  if (s == target) return p == deliverPort ? kDeliver : kNoCable;
  return p < portCable_[s].size() ? portCable_[s][p] : kNoCable;
}

std::size_t HintColumns::apply(Lid lid, SwitchIndex target, std::uint8_t deliverPort,
                               std::vector<CableId>& next) {
  if (previous_.empty()) return 0;
  ++generation_;
  std::size_t kept = 0;
  for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
    // Walk the previous chain from s until it delivers, breaks, loops or
    // meets a switch already judged; everything on the way shares the verdict.
    path_.clear();
    SwitchIndex at = s;
    bool holds = false;
    for (;;) {
      if (stamp_[at] == generation_) {
        holds = state_[at] == kHolds;
        break;
      }
      stamp_[at] = generation_;
      state_[at] = kWalking;
      path_.push_back(at);
      hop_[at] = previousHop(at, lid, target, deliverPort);
      if (hop_[at] == kDeliver) {
        holds = true;
        break;
      }
      if (hop_[at] == kNoCable) break;
      at = layout_.to[hop_[at]];
    }
    for (const SwitchIndex n : path_) state_[n] = holds ? kHolds : kBroken;
  }
  for (SwitchIndex s = 0; s < layout_.switches(); ++s)
    if (state_[s] == kHolds) {
      next[s] = hop_[s];
      ++kept;
    }
  return kept;
}

}  // namespace ibsm::routing::ftree
