#include "routing/multicast/McTreeBuilder.h"

#include <algorithm>

namespace ibsm::routing {

McTreeBuilder::McTreeBuilder(const SwitchGraph& graph)
    : graph_(graph),
      parent_(graph.size(), kNoSwitch),
      upPort_(graph.size(), 0),
      downPort_(graph.size(), 0),
      below_(graph.size(), 0),
      here_(graph.size(), 0),
      children_(graph.size(), 0),
      inTree_(graph.size(), false) {}

UpCable upCable(const SwitchGraph& graph, SwitchIndex v, std::uint32_t rotation,
                const std::vector<std::uint16_t>& hops) {
  std::uint32_t choices = 0;
  graph.forEachCable(v, [&](SwitchIndex t, const Cable&) { choices += hops[t] + 1 == hops[v]; });
  UpCable out;
  if (choices == 0) return out;
  std::uint32_t pick = (rotation + v) % choices;
  graph.forEachCable(v, [&](SwitchIndex t, const Cable& c) {
    if (hops[t] + 1 != hops[v] || pick-- != 0) return;
    out = UpCable{t, c.port, c.remotePort};
  });
  return out;
}

OneTree oneTree(McRoots& roots, const SwitchGraph& graph) {
  OneTree out{std::vector<UpCable>(graph.size()), 0};
  std::vector<SwitchIndex> root(roots.components(), kNoSwitch);
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const std::uint32_t c = roots.component(s);
    if (root[c] == kNoSwitch) root[c] = roots.candidates(c).front();
    if (s != root[c]) out.up[s] = upCable(graph, s, 0, roots.hopsFrom(root[c]));
  }
  if (roots.components() > 0) out.firstRoot = root[0];
  return out;
}

// Marks the path from `from` up to the first switch already in the tree.
// Among the cables to switches one hop nearer the root (several parents,
// parallel cables) the choice is rotated by switch and MLID.
void McTreeBuilder::climb(SwitchIndex from, SwitchIndex root, std::uint32_t rotation,
                          const std::vector<std::uint16_t>& hops) {
  SwitchIndex v = from;
  while (!inTree_[v]) {
    inTree_[v] = true;
    touched_.push_back(v);
    if (v == root) return;
    const UpCable up = fixed_ != nullptr ? fixed_->up[v] : upCable(graph_, v, rotation, hops);
    parent_[v] = up.parent;
    upPort_[v] = up.port;
    downPort_[v] = up.remotePort;
    ++children_[parent_[v]];
    v = parent_[v];
  }
}

// The first switch below the root where branches meet or members hang: the
// switches above it would only pass packets down and up one cable.
SwitchIndex McTreeBuilder::cutTop(SwitchIndex root) const {
  SwitchIndex top = root;
  while (here_[top] == 0 && children_[top] == 1) {
    const auto child = std::ranges::find_if(
        touched_, [&](SwitchIndex v) { return v != top && parent_[v] == top; });
    top = *child;
  }
  return top;
}

std::size_t McTreeBuilder::build(Lid mlid, SwitchIndex root, std::uint32_t rotation,
                                 const std::vector<std::uint16_t>& hops,
                                 const std::vector<PlacedMember>& members,
                                 std::vector<SwitchMft>& mfts) {
  std::uint32_t receivers = 0;
  for (const PlacedMember& m : members) {
    climb(m.sw, root, rotation, hops);
    ++here_[m.sw];
    if (m.receives) {
      ++below_[m.sw];
      ++receivers;
    }
  }
  // Subtree receiver counts, deepest switches first.
  std::vector<SwitchIndex> order = touched_;
  std::ranges::sort(order, [&](SwitchIndex a, SwitchIndex b) { return hops[a] > hops[b]; });
  for (const SwitchIndex v : order)
    if (v != root) below_[parent_[v]] += below_[v];

  const SwitchIndex top = cutTop(root);
  std::size_t switches = 0;
  auto mask = [&](SwitchIndex v) -> McPortMask& {
    return mfts[graph_.nodeId(v)].entries[mlid.value];
  };
  for (const SwitchIndex v : order) {
    if (hops[v] < hops[top]) continue;  // the chain above the cut
    ++switches;
    if (v == top) continue;
    // Down only toward receivers, up only when receivers are elsewhere.
    if (below_[v] > 0) mask(parent_[v]).set(downPort_[v]);
    if (receivers > below_[v]) mask(v).set(upPort_[v]);
  }
  for (const PlacedMember& m : members)
    if (m.receives) mask(m.sw).set(m.switchPort);
  reset();
  return switches;
}

void McTreeBuilder::reset() {
  for (const SwitchIndex v : touched_) {
    parent_[v] = kNoSwitch;
    below_[v] = here_[v] = children_[v] = 0;
    inTree_[v] = false;
  }
  touched_.clear();
}

}  // namespace ibsm::routing
