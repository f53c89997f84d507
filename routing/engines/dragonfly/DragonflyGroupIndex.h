// The recognised groups as flat arrays for the route planner: members, each
// switch's rank in its group, the port from one member to another, and the
// global cables from group to group, so that a route choice is an index and
// not a search.
#pragma once

#include <ibsm/Dragonfly.h>

#include <cstdint>
#include <span>
#include <vector>

#include "routing/engines/dragonfly/DragonflyRoutes.h"

namespace ibsm::routing::dragonfly {

struct GroupIndex {
  struct GlobalCable {
    SwitchIndex from{kNoSwitch};
    std::uint8_t port{0};
  };
  std::uint32_t groups{0};
  std::uint32_t size{0};  // switches per group
  std::vector<std::uint32_t> group, rank;
  std::vector<std::vector<SwitchIndex>> members;
  std::vector<std::uint8_t> localPort;   // [(g * size + rank a) * size + rank b]; 0 = none
  std::vector<std::uint32_t> pairStart;  // CSR over gs * groups + gd
  std::vector<GlobalCable> cables;

  std::uint8_t local(SwitchIndex a, SwitchIndex b) const {
    return localPort[(std::size_t{group[a]} * size + rank[a]) * size + rank[b]];
  }
  std::span<const GlobalCable> between(std::uint32_t gs, std::uint32_t gd) const {
    const std::size_t k = std::size_t{gs} * groups + gd;
    return {cables.data() + pairStart[k], cables.data() + pairStart[k + 1]};
  }
};

GroupIndex indexGroups(const SwitchGraph& graph, const DragonflyShape& shape, const PortMap& ports);

}  // namespace ibsm::routing::dragonfly
