// The route tables around the planner: the port map it reads and the LFTs
// its LID-major rows become.
#include <ibsm/ParallelFor.h>

#include <algorithm>
#include <array>
#include <cstring>

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

namespace {

constexpr std::size_t kBlock = 64;

// The entries of switches first..first+count (count <= kBlock) toward every
// LID into their tables `into`, a square of kBlock LIDs at a time: its rows
// read in runs, turned in a local square, each table written a run at a time.
void turnBlock(const std::uint8_t* out, std::size_t n, std::size_t lids, std::size_t first,
               std::size_t count, std::uint8_t* const* into) {
  std::array<std::array<std::uint8_t, kBlock>, kBlock> tile;
  for (std::size_t lid0 = 0; lid0 < lids; lid0 += kBlock) {
    const std::size_t rows = std::min(lids - lid0, kBlock);
    for (std::size_t l = 0; l < rows; ++l) {
      const std::uint8_t* row = out + (lid0 + l) * n + first;
      if (count == kBlock)
        std::memcpy(tile[l].data(), row, kBlock);  // a fixed size: no library call
      else
        std::copy_n(row, count, tile[l].data());
    }
    for (std::size_t i = 0; i < count; ++i) {
      std::uint8_t* to = into[i] + lid0;
      if (rows == kBlock)
        for (std::size_t l = 0; l < kBlock; ++l) to[l] = tile[l][i];
      else
        for (std::size_t l = 0; l < rows; ++l) to[l] = tile[l][i];
    }
  }
}

}  // namespace

std::vector<Lft> toLfts(const Fabric& fabric, const SwitchGraph& graph,
                        const DragonflyTables& tables, unsigned threads) {
  std::vector<Lft> lfts(fabric.size());
  const std::size_t n = graph.size();
  const std::size_t lids = tables.targets.size();
  // A block of switches at a time, so the LID-major rows are read in runs;
  // blocks on threads, each writing its own switches' tables.
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
                  turnBlock(tables.out.data(), n, lids, first, count, into.data());
                }
              });
  return lfts;
}

}  // namespace ibsm::routing::dragonfly
