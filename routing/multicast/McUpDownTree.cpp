#include "routing/multicast/McUpDownTree.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace ibsm::routing {
namespace {

std::vector<std::uint32_t> bySwitch(const SwitchGraph& graph,
                                    const std::vector<std::uint32_t>& positions) {
  std::vector<std::uint32_t> out(graph.size(), std::numeric_limits<std::uint32_t>::max());
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    if (graph.nodeId(s) < positions.size()) out[s] = positions[graph.nodeId(s)];
  return out;
}

// `pos` by switch.
std::optional<UpDownTree> upDownTree(const SwitchGraph& graph, const McRoots& roots,
                                     const std::vector<std::uint32_t>& pos) {
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

}  // namespace

OrderCheck::OrderCheck(const SwitchGraph& graph, const std::vector<std::uint32_t>& positions)
    : graph_(graph), pos_(bySwitch(graph, positions)) {}

bool OrderCheck::keeps(SwitchIndex root, std::uint32_t rotation,
                       const std::vector<std::uint16_t>& hops,
                       const std::vector<PlacedMember>& members) {
  std::vector<SwitchIndex> extra;
  for (const PlacedMember& m : members)
    if (m.switchPort == 0 && graph_.caCount(m.sw) == 0) extra.push_back(m.sw);
  if (!extra.empty()) return keepsFrom(root, rotation, hops, extra);
  const std::uint32_t p = period(root, hops);
  const auto key = std::pair{root, p == 0 ? rotation : rotation % p};
  if (const auto it = known_.find(key); it != known_.end()) return it->second;
  const bool keeps = keepsFrom(root, rotation, hops, extra);
  known_.emplace(key, keeps);
  return keeps;
}

const UpDownTree* OrderCheck::alongTree(const McRoots& roots) {
  if (!along_) along_.emplace(upDownTree(graph_, roots, pos_));
  return *along_ ? &**along_ : nullptr;
}

// The union of the climbs toward `root` from every switch with a CA and from
// `extra`: each tree cable counts toward its later end, and a second cable
// toward earlier switches at one switch is a copy's way down and back up.
bool OrderCheck::keepsFrom(SwitchIndex root, std::uint32_t rotation,
                           const std::vector<std::uint16_t>& hops,
                           const std::vector<SwitchIndex>& extra) const {
  std::vector<bool> in(graph_.size(), false);
  std::vector<std::uint8_t> earlier(graph_.size(), 0);
  const auto climbFrom = [&](SwitchIndex from) {
    if (hops[from] == kUnreachable) return true;  // another component
    for (SwitchIndex v = from; !in[v] && v != root;) {
      in[v] = true;
      const SwitchIndex p = upCable(graph_, v, rotation, hops).parent;
      if (++earlier[pos_[p] < pos_[v] ? v : p] > 1) return false;
      v = p;
    }
    return true;
  };
  for (SwitchIndex s = 0; s < graph_.size(); ++s)
    if (graph_.caCount(s) > 0 && !climbFrom(s)) return false;
  return std::ranges::all_of(extra, climbFrom);
}

// The choice among equal parents turns with (rotation + switch) modulo the
// number of choices, so it repeats after their least common multiple.
std::uint32_t OrderCheck::period(SwitchIndex root, const std::vector<std::uint16_t>& hops) {
  constexpr std::uint64_t kCap = 1U << 16;
  const auto [it, fresh] = periods_.try_emplace(root, 1);
  if (!fresh) return it->second;
  std::uint64_t lcm = 1;
  for (SwitchIndex v = 0; v < graph_.size() && lcm != 0; ++v) {
    if (v == root || hops[v] == kUnreachable) continue;
    std::uint64_t choices = 0;
    graph_.forEachCable(v, [&](SwitchIndex t, const Cable&) { choices += hops[t] + 1 == hops[v]; });
    lcm = std::lcm(lcm, std::max<std::uint64_t>(choices, 1));
    if (lcm > kCap) lcm = 0;
  }
  it->second = static_cast<std::uint32_t>(lcm);
  return it->second;
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
