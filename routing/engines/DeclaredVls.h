// The data VLs a fabric's ports allow an engine to spread its routes over:
// every engine that layers routes on VLs (dragonfly, sssp, ftree-vl) stays
// within the fewest any cabled port declares.
#pragma once

#include <ibsm/Fabric.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ibsm::routing {

// Data VLs every cabled port declares (PortInfo:VLCap: 1 VL0, 2 VL0-1,
// 3 VL0-3, 4 VL0-7, 5 VL0-14), the fewest of them.
inline std::uint8_t declaredDataVls(const Fabric& fabric) {
  static constexpr std::uint8_t kByCap[] = {1, 1, 2, 4, 8, 15};
  std::uint8_t vls = 15;
  for (const Node& node : fabric.nodes())
    for (std::size_t p = 1; p < node.ports.size(); ++p)
      if (node.ports[p].remote)
        vls = std::min(vls, kByCap[std::min<std::uint8_t>(node.ports[p].vlCap, 5)]);
  return vls;
}

}  // namespace ibsm::routing
