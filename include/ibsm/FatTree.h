// Recognising a fat tree: the auto engine asks before it picks ftree, and
// tests and tools ask for the order in which ftree deals out destinations.
//
//   auto shape = recogniseFatTree(fabric);
//   if (!shape) fmt::print("not a fat tree: {}\n", shape.error().message);
//   else for (const PortRef ca : shape->caOrder) ...
//
// A fabric is a fat tree when its switches are connected and fall into
// levels such that every cable joins two adjacent levels. Levels are counted
// up from the compute leaves (hosts on a switch with no switch below it; the
// leaves may stand at uneven heights), or down from the root GUIDs when some
// are given. SHARP aggregation nodes and hosts above the leaf level (I/O,
// storage, management) are routed but do not shape the tree.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>

#include <cstdint>
#include <vector>

namespace ibsm {

struct FatTreeShape {
  // Switches by level, bottom up: levels[0] the lowest, levels.back() the
  // tops; each level in ftree's canonical order (tops by GUID, a lower switch
  // after the first of its parents, leaves so that every subtree is
  // contiguous).
  std::vector<std::vector<NodeId>> levels;
  // Compute CA ports in the order ftree indexes destinations: compute leaves
  // in canonical order, on a leaf by server then HCA index where all its CAs
  // are named "<host> mlx5_N" or "<host> HCA-N", else by the leaf port. With
  // LMC, ftree deals out every port's base LID in this order, then every
  // base+1, and so on.
  std::vector<PortRef> caOrder;
  std::vector<NodeId> leaves;             // compute leaves, in that order
  std::vector<PortRef> aggregationNodes;  // SHARP aggregation node ports
  std::vector<PortRef> upperCas;          // hosts on switches with switches below
  std::uint32_t rails{0};                 // rails recognised (0: none)
  bool unevenLeaves{false};               // a compute leaf above levels[0]
  // Every top lies above every leaf and the switches of a level have equal
  // up and down cable counts. ftree then routes D-mod-K: every shift
  // permutation over caOrder is free of contention.
  bool completeAndRegular{false};
  bool rankedFromRoots{false};
};

// Fails with the reason when the fabric is not a fat tree, or when a root
// GUID is not a switch of it.
[[nodiscard]] Result<FatTreeShape> recogniseFatTree(const Fabric& fabric,
                                                    const std::vector<Guid>& rootGuids = {});

}  // namespace ibsm
