#include "routing/engines/ftree/FatTreeHeldColumns.h"

#include <algorithm>

#include "routing/engines/ftree/FatTreeHint.h"

namespace ibsm::routing::ftree {

HeldColumns::HeldColumns(const SwitchGraph& graph, const HubOrder& hub,
                         std::span<const Lft> previous)
    : order_(hub.order),
      table_(graph.size(), nullptr),
      tableSize_(graph.size(), 0),
      nowhere_(static_cast<std::uint32_t>(graph.size()) << 2) {
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const NodeId id = graph.nodeId(s);
    if (id < previous.size() && !previous[id].port.empty()) {
      table_[s] = previous[id].port.data();
      tableSize_[s] = previous[id].port.size();
    }
    graph.forEachCable(s, [&](SwitchIndex, const Cable& cable) {
      stride_ = std::max<std::size_t>(stride_, cable.port + 1u);
    });
  }
  hop_.assign(graph.size() * stride_, nowhere_);
  descends_.assign(graph.size(), 0);
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    graph.forEachCable(s, [&](SwitchIndex t, const Cable& cable) {
      if (t == s) return;
      const bool climbs = hub.isUp(s, t);
      hop_[s * stride_ + cable.port] = (t << 2) | (climbs ? 2u : 1u);
      descends_[s] |= !climbs;
    });
}

std::uint64_t HeldColumns::wholeLanes(std::span<const HeldLane> lanes, Scratch& scratch) const {
  const std::size_t n = table_.size(), count = std::min<std::size_t>(lanes.size(), 64);
  if (count == 0) return 0;
  auto& down = scratch.down;
  auto& up = scratch.up;
  auto& targetOf = scratch.targetOf;
  down.assign(n + 1, 0);
  up.assign(n + 1, 0);
  targetOf.assign(n, 0);
  // Consecutive LIDs (the common tile): each table's entries read in a run.
  bool contiguous = true;
  for (std::size_t i = 1; i < count; ++i)
    contiguous = contiguous && lanes[i].lid.value == lanes[0].lid.value + i;
  std::uint64_t delivered = 0;  // lanes whose target's entry is the owner's port
  for (std::size_t i = 0; i < count; ++i) {
    const HeldLane& l = lanes[i];
    if (l.sw >= n || table_[l.sw] == nullptr) continue;
    targetOf[l.sw] |= std::uint64_t{1} << i;
    if (entry(l.sw, l.lid) == l.port) delivered |= std::uint64_t{1} << i;
  }
  // Only descending, latest first: a later switch's D is final.
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const SwitchIndex s = *it;
    if (table_[s] == nullptr) continue;
    std::uint64_t bits = 0;
    if (!descends_[s]) {
      // A leaf away from the hub: every cable climbs.
    } else if (contiguous && lanes[0].lid.value + count <= tableSize_[s]) {
      const std::uint8_t* entries = table_[s] + lanes[0].lid.value;
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t h = hop(s, entries[i]);
        bits |= (std::uint64_t{h & 1u} & (down[h >> 2] >> i)) << i;
      }
    } else {
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t h = hop(s, entry(s, lanes[i].lid));
        bits |= (std::uint64_t{h & 1u} & (down[h >> 2] >> i)) << i;
      }
    }
    // The target delivers, whatever its entry leads to.
    down[s] = (bits & ~targetOf[s]) | (delivered & targetOf[s]);
  }
  // Climbing into a chain that holds, earliest first.
  std::uint64_t whole = count == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1;
  for (const SwitchIndex s : order_) {
    if (table_[s] == nullptr) return 0;  // no chain holds from s
    std::uint64_t bits = down[s];
    const std::uint64_t open = ~bits & ~targetOf[s] & whole;
    for (std::uint64_t rest = open; rest != 0; rest &= rest - 1) {
      const unsigned i = static_cast<unsigned>(__builtin_ctzll(rest));
      const std::uint32_t h = hop(s, entry(s, lanes[i].lid));
      bits |= (std::uint64_t{(h >> 1) & 1u} & (up[h >> 2] >> i)) << i;
    }
    up[s] = bits;
    whole &= bits;
    if (whole == 0) return 0;
  }
  return whole;
}

std::shared_ptr<const FatTreeFrame> fatTreeFrame(const Fabric& fabric, const SwitchGraph& graph,
                                                 std::span<const Lft> previous,
                                                 const std::vector<Guid>& rootGuids) {
  if (previous.empty()) return nullptr;
  auto layout = layoutFatTree(fabric, graph, rootGuids);
  if (!layout) return nullptr;
  auto frame = std::make_shared<FatTreeFrame>(&fabric, rootGuids, std::move(*layout));
  HintColumns hint(graph, frame->layout, previous);
  frame->hub = hubOrder(frame->layout, frame->reach, hint.previousHub(graph));
  if (frame->hub.order.size() != graph.size()) return nullptr;
  return frame;
}

std::optional<HeldColumns> heldColumns(const Fabric& fabric, const SwitchGraph& graph,
                                       std::span<const Lft> previous,
                                       const std::vector<Guid>& rootGuids) {
  const auto frame = fatTreeFrame(fabric, graph, previous, rootGuids);
  if (!frame) return std::nullopt;
  return HeldColumns(graph, frame->hub, previous);
}

}  // namespace ibsm::routing::ftree
