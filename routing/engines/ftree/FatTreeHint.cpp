#include "routing/engines/ftree/FatTreeHint.h"

#include <algorithm>
#include <bit>

namespace ibsm::routing::ftree {

HintColumns::HintColumns(const SwitchGraph& graph, const FatTreeLayout& layout,
                         std::span<const Lft> previous, const PreviousHolds* holds)
    : layout_(layout),
      holds_(previous.empty() ? nullptr : holds),
      tables_(layout.switches(), nullptr),
      chains_(graph, previous) {
  if (previous.empty()) return;
  for (SwitchIndex s = 0; s < layout.switches(); ++s) {
    const NodeId id = graph.nodeId(s);
    if (id < previous.size() && !previous[id].port.empty()) tables_[s] = previous[id].port.data();
  }
  for (SwitchIndex s = 0; s < layout.switches(); ++s)
    for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c)
      stride_ = std::max<std::size_t>(stride_, layout.port[c] + 1u);
  portCable_.assign(layout.switches() * stride_, kNoCable);
  for (SwitchIndex s = 0; s < layout.switches(); ++s)
    for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c)
      portCable_[s * stride_ + layout.port[c]] = c;
}

std::size_t HintColumns::apply(Lid lid, SwitchIndex target, std::uint8_t deliverPort,
                               std::vector<CableId>& next) {
  if (chains_.empty()) return 0;
  if (holds_) return applyJudged(lid, target, next);
  const std::size_t kept = chains_.judge(lid, target, deliverPort);
  for (SwitchIndex s = 0; s < layout_.switches(); ++s) {
    if (!chains_.holds(s)) continue;
    next[s] = s == target ? kDeliver : portCable_[s * stride_ + chains_.port(s)];
  }
  return kept;
}

// A switch whose chain holds has a previous table and, unless it is the
// target, an entry on a cable of the layout (the chain went on over it).
std::size_t HintColumns::applyJudged(Lid lid, SwitchIndex target,
                                     std::vector<CableId>& next) const {
  if (lid.value >= holds_->lids) return 0;
  const std::uint64_t* row = holds_->bits.data() + lid.value * holds_->words;
  std::size_t kept = 0;
  for (std::size_t w = 0; w < holds_->words; ++w)
    for (std::uint64_t bits = row[w]; bits != 0; bits &= bits - 1) {
      const auto s =
          static_cast<SwitchIndex>(w * 64 + static_cast<unsigned>(std::countr_zero(bits)));
      next[s] = s == target ? kDeliver : portCable_[s * stride_ + tables_[s][lid.value]];
      ++kept;
    }
  return kept;
}

std::size_t HintColumns::keptWhole(Lid lid) const {
  if (chains_.empty() || lid.value >= holds_->lids) return 0;
  const std::uint64_t* row = holds_->bits.data() + lid.value * holds_->words;
  std::size_t kept = 0;
  for (std::size_t w = 0; w < holds_->words; ++w) kept += std::popcount(row[w]);
  return kept;
}

std::optional<SwitchIndex> HintColumns::previousHub(const SwitchGraph& graph) {
  if (chains_.empty()) return std::nullopt;
  std::vector<std::uint32_t> through(layout_.switches(), 0);
  const auto& tops = layout_.byHeight[layout_.top];
  for (const SwitchIndex t : tops) {
    const Lid lid = graph.endpoints(t).front().base;
    if (lid.value == 0) continue;
    chains_.judge(lid, t, 0);
    for (const SwitchIndex s : tops) {
      if (s == t || !chains_.holds(s)) continue;
      for (SwitchIndex at = chains_.next(s); at != t && at != kNoSwitch; at = chains_.next(at))
        through[at] += layout_.leafIndex[at] != kNotLeaf;
    }
  }
  const auto best = std::ranges::max_element(through);
  if (*best == 0) return std::nullopt;
  return static_cast<SwitchIndex>(best - through.begin());
}

}  // namespace ibsm::routing::ftree
