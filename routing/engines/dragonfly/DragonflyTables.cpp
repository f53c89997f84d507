// The route tables around the planner: the port map it reads and the LFTs
// its LID-major rows become.
#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <array>

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
                        const DragonflyTables& tables, unsigned threads) {
  std::vector<Lft> lfts(fabric.size());
  const std::size_t n = graph.size();
  const std::size_t lids = tables.targets.size();
  // A block of switches at a time, so the LID-major rows are read in runs;
  // blocks on threads, each writing its own switches' tables.
  constexpr std::size_t kBlock = 64;
  parallelFor(threads, (n + kBlock - 1) / kBlock, 1,
              [&](std::size_t begin, std::size_t end, unsigned) {
                for (std::size_t block = begin; block < end; ++block) {
                  const std::size_t first = block * kBlock, count = std::min(n - first, kBlock);
                  // Each table's storage once, in a local array: stores of bytes through
                  // the vectors would make the compiler read them again on every entry.
                  std::array<std::uint8_t*, kBlock> into{};
                  for (std::size_t i = 0; i < count; ++i) {
                    auto& port = lfts[graph.nodeId(static_cast<SwitchIndex>(first + i))].port;
                    port.resize(lids);
                    into[i] = port.data();
                  }
                  for (std::size_t lid = 0; lid < lids; ++lid) {
                    const std::uint8_t* row = tables.out.data() + lid * n + first;
                    for (std::size_t i = 0; i < count; ++i) into[i][lid] = row[i];
                  }
                }
              });
  return lfts;
}

}  // namespace ibsm::routing::dragonfly
