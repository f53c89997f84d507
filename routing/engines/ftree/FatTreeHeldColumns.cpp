#include "routing/engines/ftree/FatTreeHeldColumns.h"

#include <algorithm>

#include "routing/engines/ftree/FatTreeHint.h"

namespace ibsm::routing::ftree {

HeldColumns::HeldColumns(const SwitchGraph& graph, const HubOrder& hub,
                         std::span<const Lft> previous)
    : order_(hub.order), table_(graph.size(), nullptr), tableSize_(graph.size(), 0) {
  std::size_t stride = 0;
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const NodeId id = graph.nodeId(s);
    if (id < previous.size() && !previous[id].port.empty()) {
      table_[s] = previous[id].port.data();
      tableSize_[s] = previous[id].port.size();
    }
    graph.forEachCable(s, [&](SwitchIndex, const Cable& cable) {
      stride = std::max<std::size_t>(stride, cable.port + 1u);
    });
  }
  hops_ = HubOrderedLanes(graph.size(), stride);
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    graph.forEachCable(s, [&](SwitchIndex t, const Cable& cable) {
      if (t != s) hops_.add(s, cable.port, t, hub.isUp(s, t));
    });
}

std::uint64_t HeldColumns::wholeLanes(std::span<const HeldLane> lanes, Scratch& scratch) const {
  const std::size_t n = table_.size(), count = std::min<std::size_t>(lanes.size(), 64);
  if (count == 0) return 0;
  scratch.start(n);
  // Consecutive LIDs (the common tile): each table's entries read in a run.
  bool contiguous = true;
  for (std::size_t i = 1; i < count; ++i)
    contiguous = contiguous && lanes[i].lid.value == lanes[0].lid.value + i;
  std::uint64_t delivered = 0;  // lanes whose target's entry is the owner's port
  for (std::size_t i = 0; i < count; ++i) {
    const HeldLane& l = lanes[i];
    if (l.sw >= n || table_[l.sw] == nullptr) continue;
    scratch.targetOf[l.sw] |= std::uint64_t{1} << i;
    if (entry(l.sw, l.lid) == l.port) delivered |= std::uint64_t{1} << i;
  }
  // The tile's rows, once, in the order the D sweep reads them (latest
  // first), the tables a few switches ahead asked for: the U sweep then
  // reads its entries from there too.
  scratch.rows.resize(n * 64);
  constexpr std::size_t kAhead = 8;
  const std::size_t first = lanes[0].lid.value, last = lanes[count - 1].lid.value;
  for (std::size_t k = order_.size(); k-- > 0;) {
    if (k >= kAhead) {
      const SwitchIndex a = order_[k - kAhead];
      if (table_[a] != nullptr && last < tableSize_[a]) {
        __builtin_prefetch(table_[a] + first);
        __builtin_prefetch(table_[a] + last);
      }
    }
    const SwitchIndex s = order_[k];
    if (table_[s] == nullptr) continue;
    std::uint8_t* row = scratch.rows.data() + s * 64;
    if (contiguous && first + count <= tableSize_[s])
      std::copy_n(table_[s] + first, count, row);
    else
      for (std::size_t i = 0; i < count; ++i) row[i] = entry(s, lanes[i].lid);
  }
  const auto rowOf = [&](SwitchIndex s, std::uint8_t* ports) {
    std::copy_n(scratch.rows.data() + s * 64, count, ports);
  };
  const std::uint64_t all = count == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1;
  return hops_.whole(
      order_, count, all, delivered, scratch, rowOf,
      [&](SwitchIndex s, unsigned i) { return scratch.rows[s * 64 + i]; },
      [&](SwitchIndex s) { return table_[s] != nullptr; });
}

std::shared_ptr<FatTreeFrame> fatTreeFrame(const Fabric& fabric, const SwitchGraph& graph,
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
