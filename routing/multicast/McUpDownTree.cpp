#include "routing/multicast/McUpDownTree.h"

#include <limits>

namespace ibsm::routing {
namespace {

std::vector<std::uint32_t> bySwitch(const SwitchGraph& graph,
                                    const std::vector<std::uint32_t>& positions) {
  std::vector<std::uint32_t> out(graph.size(), std::numeric_limits<std::uint32_t>::max());
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    if (graph.nodeId(s) < positions.size()) out[s] = positions[graph.nodeId(s)];
  return out;
}

}  // namespace

std::optional<UpDownTree> upDownTree(const SwitchGraph& graph, const McRoots& roots,
                                     const std::vector<std::uint32_t>& positions) {
  const std::vector<std::uint32_t> pos = bySwitch(graph, positions);
  constexpr auto kNone = std::numeric_limits<std::uint16_t>::max();
  UpDownTree out;
  out.tree.up.resize(graph.size());
  out.depth.assign(graph.size(), kNone);
  out.rootOf.assign(roots.components(), kNoSwitch);
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    SwitchIndex& first = out.rootOf[roots.component(s)];
    if (first == kNoSwitch || pos[s] < pos[first]) first = s;
  }
  // Breadth first from each root along cables that descend (toward later
  // switches): a switch's parent is the earlier neighbour that reached it
  // first, so its depth is its shortest descending distance.
  std::vector<SwitchIndex> queue(out.rootOf.begin(), out.rootOf.end());
  for (const SwitchIndex r : queue) out.depth[r] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const SwitchIndex v = queue[head];
    graph.forEachCable(v, [&](SwitchIndex t, const Cable& c) {
      if (pos[t] <= pos[v] || out.depth[t] != kNone) return;
      out.depth[t] = static_cast<std::uint16_t>(out.depth[v] + 1);
      out.tree.up[t] = UpCable{v, c.remotePort, c.port};
      queue.push_back(t);
    });
  }
  if (queue.size() != graph.size()) return std::nullopt;
  if (!out.rootOf.empty()) out.tree.firstRoot = out.rootOf.front();
  return out;
}

bool descendsThenClimbs(const SwitchGraph& graph, const std::vector<SwitchMft>& mfts,
                        const std::vector<std::uint32_t>& positions) {
  const std::vector<std::uint32_t> pos = bySwitch(graph, positions);
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const NodeId id = graph.nodeId(s);
    if (id >= mfts.size() || mfts[id].entries.empty()) continue;
    McPortMask earlier;
    graph.forEachCable(s, [&](SwitchIndex t, const Cable& c) {
      if (pos[t] < pos[s]) earlier.set(c.port);
    });
    for (const auto& [mlid, mask] : mfts[id].entries)
      if ((mask & earlier).count() > 1) return true;
  }
  return false;
}

}  // namespace ibsm::routing
