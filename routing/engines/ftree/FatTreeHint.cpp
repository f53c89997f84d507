#include "routing/engines/ftree/FatTreeHint.h"

namespace ibsm::routing::ftree {

HintColumns::HintColumns(const SwitchGraph& graph, const FatTreeLayout& layout,
                         std::span<const Lft> previous)
    : layout_(layout), chains_(graph, previous), portCable_(layout.switches()) {
  if (previous.empty()) return;
  for (SwitchIndex s = 0; s < layout.switches(); ++s)
    for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c) {
      auto& ports = portCable_[s];
      if (ports.size() <= layout.port[c]) ports.resize(layout.port[c] + 1u, kNoCable);
      ports[layout.port[c]] = c;
    }
}

std::size_t HintColumns::apply(Lid lid, SwitchIndex target, std::uint8_t deliverPort,
                               std::vector<CableId>& next) {
  if (chains_.empty()) return 0;
  const std::size_t kept = chains_.judge(lid, target, deliverPort);
  for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
    if (!chains_.holds(s)) continue;
    next[s] = s == target ? kDeliver : portCable_[s][chains_.port(s)];
  }
  return kept;
}

}  // namespace ibsm::routing::ftree
