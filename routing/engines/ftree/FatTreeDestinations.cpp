#include "routing/engines/ftree/FatTreeDestinations.h"

#include <algorithm>

namespace ibsm::routing::ftree {

std::vector<Destination> caDestinations(const FatTreeLayout& layout, const SwitchGraph& graph) {
  std::uint8_t lmc = 0;
  for (const SwitchIndex leaf : layout.byHeight[0])
    for (const Endpoint& e : graph.endpoints(leaf).subspan(1)) lmc = std::max(lmc, e.lmc);
  std::vector<Destination> out;
  for (unsigned layer = 0; layer < (1u << lmc); ++layer)
    for (const SwitchIndex leaf : layout.byHeight[0])
      for (const Endpoint& e : graph.endpoints(leaf).subspan(1)) {
        if (e.base.value == 0 || layer >= (1u << e.lmc)) continue;
        out.push_back(Destination{Lid{static_cast<std::uint16_t>(e.base.value + layer)}, leaf,
                                  e.switchPort, static_cast<std::uint8_t>(layer)});
      }
  return out;
}

}  // namespace ibsm::routing::ftree
