// The switch graph seen as a fat tree: a level per switch, the cables sorted
// into up and down in one canonical order, and the leaves in the order ftree
// indexes destinations. Everything the ftree engine and recogniseFatTree
// share; a fabric that has no such reading is refused here, with the reason.
//
//   auto layout = layoutFatTree(fabric, graph, options.rootGuids);
//   if (!layout) return std::unexpected(layout.error());
//   for (const CableId c : layout->upCables(s)) ...  // canonical order
//
// Levels. Without root GUIDs switches are ranked from the compute leaves up
// (FatTreeRanking.h: hosts on spines and director chips beside top-of-rack
// switches rank too); with root GUIDs the roots are the top and height counts
// down from them. Either way every cable must join two adjacent levels.
//
// Endpoints (FatTreeEndpoints.h). A compute leaf is a switch with hosts and
// no switch below it, at any height (a director's line-card chip taking hosts
// sits one above the top-of-rack switches). Hosts on a switch that has
// switches below it are upper CAs (I/O, storage, management); aggregation
// nodes are neither. Only compute CAs weigh in the balance.
//
// Canonical order. Tops by GUID; a lower switch after the first (in that
// order) of its parents, then by GUID, so that the i-th up cable of every
// switch of a level leads into the same column of the level above. Leaves are
// ordered so that every subtree is contiguous: by the connected part of the
// levels up to 1, 2, ... they belong to (its smallest leaf GUID), then GUID;
// the compute leaves (`leaves`) in that order too, whatever their height.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "routing/engines/ftree/FatTreeEndpoints.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::ftree {

using CableId = std::uint32_t;
inline constexpr CableId kNoCable = ~CableId{0};
// Next hop of the switch that delivers a destination itself.
inline constexpr CableId kDeliver = kNoCable - 1;

inline constexpr std::uint32_t kNotLeaf = ~std::uint32_t{0};

struct FatTreeLayout {
  explicit FatTreeLayout(CaRoles r) : roles(std::move(r)) {}

  std::uint16_t top{0};                            // height of the top level
  bool fromRoots{false};                           // levels counted down from root GUIDs
  std::vector<std::uint16_t> height;               // per switch; 0 = leaves
  std::vector<std::uint32_t> canon;                // per switch: position in byHeight[height]
  std::vector<std::vector<SwitchIndex>> byHeight;  // canonical order; [0] = leaves
  std::vector<std::uint32_t> computeCas;           // per switch: compute CA ports (0 unless a leaf)
  std::vector<std::uint32_t> upperCas;             // per switch: hosts above the leaf level
  std::vector<SwitchIndex> leaves;                 // compute leaves, in destination order
  std::vector<std::uint32_t> leafIndex;            // per switch: position in leaves, or kNotLeaf
  bool unevenLeaves{false};                        // some compute leaf above height 0
  CaRoles roles;                                   // per switch and CA endpoint

  // Every cable twice (once per direction), grouped by source switch.
  std::vector<std::uint32_t> firstCable;  // per switch, plus one
  std::vector<SwitchIndex> to;
  std::vector<std::uint8_t> port;        // out port on the source switch
  std::vector<std::uint8_t> remotePort;  // port it lands on
  std::vector<CableId> reverse;          // the same cable in the other direction

  std::vector<std::uint32_t> firstUp;  // per switch, plus one
  std::vector<CableId> up;             // canonical order
  std::vector<std::uint32_t> firstDown;
  std::vector<CableId> down;

  std::size_t switches() const { return height.size(); }
  std::size_t cables() const { return to.size(); }
  std::span<const CableId> upCables(SwitchIndex s) const {
    return {up.data() + firstUp[s], up.data() + firstUp[s + 1]};
  }
  std::span<const CableId> downCables(SwitchIndex s) const {
    return {down.data() + firstDown[s], down.data() + firstDown[s + 1]};
  }
  CableId cableBegin(SwitchIndex s) const { return firstCable[s]; }
  CableId cableEnd(SwitchIndex s) const { return firstCable[s + 1]; }
};

// Fails, saying why, when the switches are not connected, when a root GUID
// is not a switch, when a cable joins two switches of one level (or closes an
// odd cycle), or when no switch is a compute leaf.
[[nodiscard]] Result<FatTreeLayout> layoutFatTree(const Fabric& fabric, const SwitchGraph& graph,
                                                  const std::vector<Guid>& rootGuids);

// "name" (0xguid), for messages.
std::string switchName(const Fabric& fabric, const SwitchGraph& graph, SwitchIndex s);

}  // namespace ibsm::routing::ftree
