// The route tables around the planner: the port map it reads and the LFTs
// its LID-major rows become.
#include <algorithm>

#include "routing/engines/dragonfly/DragonflyRoutes.h"

namespace ibsm::routing::dragonfly {

PortMap::PortMap(const Fabric& fabric, const SwitchGraph& graph,
                 const std::vector<std::uint32_t>& groupOf) {
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    stride = std::max<std::size_t>(stride, fabric.node(graph.nodeId(s)).ports.size());
  peer.assign(graph.size() * stride, kNoSwitch);
  peerPort.assign(graph.size() * stride, 0);
  global.assign(graph.size() * stride, 0);
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    graph.forEachCable(s, [&](SwitchIndex t, const Cable& c) {
      peer[at(s, c.port)] = t;
      peerPort[at(s, c.port)] = c.remotePort;
      global[at(s, c.port)] = groupOf[graph.nodeId(s)] != groupOf[graph.nodeId(t)];
    });
}

std::vector<Lft> toLfts(const Fabric& fabric, const SwitchGraph& graph,
                        const DragonflyTables& tables) {
  std::vector<Lft> lfts(fabric.size());
  const std::size_t n = graph.size();
  const std::size_t lids = tables.targets.size();
  for (SwitchIndex s = 0; s < n; ++s) lfts[graph.nodeId(s)].port.resize(lids);
  // A block of switches at a time, so the LID-major rows are read in runs.
  constexpr SwitchIndex kBlock = 64;
  for (SwitchIndex first = 0; first < n; first += kBlock) {
    const SwitchIndex last = std::min<SwitchIndex>(static_cast<SwitchIndex>(n), first + kBlock);
    for (std::size_t lid = 0; lid < lids; ++lid) {
      const std::uint8_t* row = tables.out.data() + lid * n;
      for (SwitchIndex s = first; s < last; ++s) lfts[graph.nodeId(s)].port[lid] = row[s];
    }
  }
  return lfts;
}

}  // namespace ibsm::routing::dragonfly
