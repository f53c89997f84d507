#include "routing/engines/dragonfly/DragonflyGroupIndex.h"

namespace ibsm::routing::dragonfly {

GroupIndex indexGroups(const SwitchGraph& graph, const DragonflyShape& shape,
                       const PortMap& ports) {
  GroupIndex gi;
  const std::size_t n = graph.size();
  gi.groups = shape.groups;
  gi.size = shape.switchesPerGroup;
  gi.group.resize(n);
  gi.rank.resize(n);
  gi.members.resize(gi.groups);
  for (SwitchIndex s = 0; s < n; ++s) {
    gi.group[s] = shape.groupOf[graph.nodeId(s)];
    gi.rank[s] = static_cast<std::uint32_t>(gi.members[gi.group[s]].size());
    gi.members[gi.group[s]].push_back(s);
  }
  gi.localPort.assign(std::size_t{gi.groups} * gi.size * gi.size, 0);
  std::vector<std::vector<GroupIndex::GlobalCable>> perPair(std::size_t{gi.groups} * gi.groups);
  for (SwitchIndex s = 0; s < n; ++s) {
    for (std::size_t p = 1; p < ports.stride; ++p) {
      const SwitchIndex t = ports.peer[ports.at(s, static_cast<std::uint8_t>(p))];
      if (t == kNoSwitch) continue;
      if (gi.group[t] == gi.group[s]) {
        auto& slot =
            gi.localPort[(std::size_t{gi.group[s]} * gi.size + gi.rank[s]) * gi.size + gi.rank[t]];
        if (slot == 0) slot = static_cast<std::uint8_t>(p);
      } else {
        perPair[std::size_t{gi.group[s]} * gi.groups + gi.group[t]].push_back(
            {s, static_cast<std::uint8_t>(p)});
      }
    }
  }
  gi.pairStart.push_back(0);
  for (auto& list : perPair) {
    gi.cables.insert(gi.cables.end(), list.begin(), list.end());
    gi.pairStart.push_back(static_cast<std::uint32_t>(gi.cables.size()));
  }
  return gi;
}

}  // namespace ibsm::routing::dragonfly
