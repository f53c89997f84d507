// Fewest inter-switch hops from every switch to each switch that delivers
// CA LIDs: what the report's stretch measures routes against. One BFS per
// such switch costs a pass over every channel (a fat tree of radix 48:
// 1,152 leaves x 110,592 channels); instead 64 destinations share one
// bit-parallel BFS (routing/graph/BitParallelBfs.h), so a level costs one
// pass for all 64. The batches run in parallel, each writing its own rows.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/analysis/ForwardingView.h"
#include "routing/graph/BitParallelBfs.h"

namespace ibsm::analysis {

class ShortestHops {
 public:
  // For every switch that delivers a CA LID of view.destinations().
  ShortestHops(const ForwardingView& view, unsigned threads);

  // Hops from every switch to `to` over the channels (kUnreachable where
  // none); `to` delivers a CA LID.
  std::span<const std::uint16_t> to(SwitchIndex to) const {
    return {hops_.data() + std::size_t{rowOf_[to]} * n_, n_};
  }

 private:
  using Search = routing::BitParallelBfs<1>;  // 64 targets a search: a word per switch
  void searchBatch(const ForwardingView& view, Search& search, std::span<const SwitchIndex> targets,
                   std::size_t firstRow);

  std::size_t n_;
  std::vector<std::uint32_t> rowOf_;  // per switch: its row in hops_
  std::vector<std::uint16_t> hops_;   // row per target switch, n_ wide
};

}  // namespace ibsm::analysis
