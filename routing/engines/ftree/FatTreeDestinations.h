// The CA LIDs ftree routes, in the order it deals them out: LMC layer by
// layer (every CA's base LID first, then every CA's base+1, ...), within a
// layer leaves in canonical order, on a leaf the CA ports by the leaf port
// they hang off. On a complete fat tree, shift permutations over this order
// (layer 0) are contention-free.
#pragma once

#include <ibsm/Ids.h>

#include <cstdint>
#include <vector>

#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::ftree {

struct Destination {
  Lid lid;
  SwitchIndex leaf{0};
  std::uint8_t port{0};   // the leaf's port toward the CA
  std::uint8_t layer{0};  // LID - base LID
};

std::vector<Destination> caDestinations(const FatTreeLayout& layout, const SwitchGraph& graph);

}  // namespace ibsm::routing::ftree
