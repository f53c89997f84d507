// Where multicast trees are rooted: per connected component of the switch
// graph, the switches of minimum eccentricity toward the switches that have
// CAs (the most central ones), ordered so that consecutive ones share few
// neighbours (trees on them then cross different switches). Computed from
// the topology alone, never from membership, so a join never moves a tree.
#pragma once

#include <cstdint>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing {

class McRoots {
 public:
  explicit McRoots(const SwitchGraph& graph);

  std::uint32_t component(SwitchIndex s) const { return component_[s]; }
  std::size_t components() const { return candidates_.size(); }
  // The most central switches of component c in spread order, never empty.
  const std::vector<SwitchIndex>& candidates(std::uint32_t c) const { return candidates_[c]; }
  // Switch hops from a candidate root to every switch (BFS, cached).
  const std::vector<std::uint16_t>& hopsFrom(SwitchIndex root);

 private:
  const SwitchGraph& graph_;
  std::vector<std::uint32_t> component_;
  std::vector<std::vector<SwitchIndex>> candidates_;
  std::vector<std::vector<std::uint16_t>> hops_;  // by switch; empty until asked
};

}  // namespace ibsm::routing
