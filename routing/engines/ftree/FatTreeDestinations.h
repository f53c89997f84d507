// The CA LIDs ftree routes, in the order it deals them out: LMC layer by
// layer (every CA's base LID first, then every CA's base+1, ...), within a
// layer the compute leaves in canonical order, on a leaf its compute CAs by
// server then HCA index where every one of them is named so (a rail-optimised
// tree: FatTreeRails.h), else by the leaf port they hang off. On a complete
// fat tree, shift permutations over this order (layer 0), and within a rail
// over the rail's part of it, are contention-free.
//
// Aggregation nodes and upper CAs (FatTreeEndpoints.h) are listed apart:
// they are routed by shortest legal paths after the compute LIDs, on cable
// counters of their own, so they never shift the compute balance.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Ids.h>

#include <cstdint>
#include <vector>

#include "routing/engines/ftree/FatTreeEndpoints.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::ftree {

struct Destination {
  Lid lid;
  SwitchIndex leaf{0};    // the switch the CA hangs off
  std::uint8_t port{0};   // that switch's port toward the CA
  std::uint8_t layer{0};  // LID - base LID
  CaRole role{CaRole::Compute};
};

std::vector<Destination> caDestinations(const FatTreeLayout& layout, const SwitchGraph& graph,
                                        const Fabric& fabric);

// Every LID of every aggregation node and upper CA, by switch then port.
std::vector<Destination> otherDestinations(const FatTreeLayout& layout, const SwitchGraph& graph);

// The endpoints of a leaf's compute CAs in destination order.
std::vector<Endpoint> computeOrder(const FatTreeLayout& layout, const SwitchGraph& graph,
                                   const Fabric& fabric, SwitchIndex leaf);

}  // namespace ibsm::routing::ftree
