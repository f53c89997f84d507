#include "routing/graph/SwitchGraph.h"

#include <algorithm>
#include <limits>

#include "routing/graph/BitParallelBfs.h"

namespace ibsm::routing {

SwitchGraph::SwitchGraph(const Fabric& fabric) : indexOf_(fabric.size(), kNoSwitch) {
  for (NodeId id = 0; id < fabric.size(); ++id)
    if (fabric.node(id).isSwitch()) nodeIds_.push_back(id);
  // Switches in node GUID order, not in the order they were read: a fabric
  // discovered on the wire and the same fabric read from a file then give
  // every engine the same indices, so ties break alike and the dry run
  // predicts the live tables.
  std::ranges::sort(nodeIds_, {}, [&](NodeId id) { return fabric.node(id).guid; });
  for (std::size_t i = 0; i < nodeIds_.size(); ++i)
    indexOf_[nodeIds_[i]] = static_cast<SwitchIndex>(i);

  std::vector<std::pair<SwitchIndex, SwitchIndex>> edges;
  std::vector<Cable> cables;
  endpointStart_.push_back(0);
  for (SwitchIndex s = 0; s < nodeIds_.size(); ++s) {
    const Node& sw = fabric.node(nodeIds_[s]);
    endpoints_.push_back(Endpoint{PortRef{nodeIds_[s], 0}, sw.ports[0].lid, 0, 0});
    for (std::size_t p = 1; p < sw.ports.size(); ++p) {
      const auto& remote = sw.ports[p].remote;
      if (!remote) continue;
      const Node& peer = fabric.node(remote->node);
      const auto port = static_cast<std::uint8_t>(p);
      if (peer.isSwitch()) {
        edges.emplace_back(s, indexOf_[remote->node]);
        cables.push_back(Cable{port, remote->port});
      } else {
        const Port& caPort = fabric.port(*remote);
        endpoints_.push_back(Endpoint{*remote, caPort.lid, caPort.lmc, port});
      }
    }
    endpointStart_.push_back(endpoints_.size());
  }
  // Edges were collected in source order, as the sorted-edges constructor
  // requires; within a source they stay in port order.
  graph_ = Graph(boost::edges_are_sorted, edges.begin(), edges.end(), cables.begin(),
                 static_cast<SwitchIndex>(nodeIds_.size()));
}

std::vector<std::uint16_t> SwitchGraph::hopsFrom(SwitchIndex s) const {
  std::vector<std::uint16_t> hops;
  std::vector<SwitchIndex> queue;
  queue.reserve(size());
  hopsFromOne(
      size(), s,
      [this](SwitchIndex from, auto&& f) {
        forEachCable(from, [&](SwitchIndex t, const Cable&) { f(t); });
      },
      hops, queue);
  return hops;
}

std::vector<std::uint32_t> SwitchGraph::byNodeId(std::span<const std::uint32_t> position,
                                                 std::size_t nodes) const {
  std::vector<std::uint32_t> out(nodes, std::numeric_limits<std::uint32_t>::max());
  for (SwitchIndex s = 0; s < size(); ++s) out[nodeId(s)] = position[s];
  return out;
}

}  // namespace ibsm::routing
