// sssp's VL layers (DFSSSP's idea, Domke, Hoefler and Nagel, IPDPS 2011):
// every route of a switch toward a LID is a path of channels; all start on
// layer 0. While the channel dependency graph (Dally and Seitz) of a
// layer's paths has a cycle, the dependency on that cycle that the fewest
// of the layer's paths make is broken by moving those paths to the next
// layer, where they are searched again in turn. A layer is thus acyclic on
// its own, and a route stays on one layer (one VL) from source to
// destination, so the VLs together are free of credit loops. A pair travels
// on the SL of its layer; SL k -> VL k.
//
// The cuts break cycles one at a time and leave the last layers thin; then
// every raised route, from layer 1 up, moves down to the lowest layer that
// stays acyclic with it (a layer it leaves only loses dependencies), which
// empties them where it can: on a Lassen-like tree 5 VLs where the cuts
// alone needed 7 (OpenSM's dfsssp: 6).
//
// The search is depth first over the channels, restarted after each cut
// with the channels already proven to reach no cycle left out (removing
// dependencies cannot give them one), so a layer costs about one pass over
// its dependencies plus one per cut.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "routing/engines/sssp/SsspRoutes.h"
#include "routing/multicast/McTreeBuilder.h"

namespace ibsm::routing::sssp {

// A route off layer 0: the switch it starts from and the LID it leads to.
struct RaisedRoute {
  std::uint16_t lid{0};
  SwitchIndex from{0};
  std::uint8_t layer{0};
};

struct LayerPlan {
  std::uint8_t layers{1};              // VLs needed
  std::optional<std::string> problem;  // set when more than `allowed` would be needed
  std::uint32_t cuts{0};               // dependencies broken by moving routes up a layer
  std::vector<RaisedRoute> raised;     // by LID, then switch
};

// `trees` (null: none): every turn a copy of one of the multicast trees may
// take is laid on layer 0 first and never moved, so layer 0 stays free of
// loops with them: where the layers take every VL allowed, the trees share
// VL 0 (routing/engines/SharedTreeVl.h). They close no loop among
// themselves, so every cycle the search finds holds a route's dependency
// to cut.
LayerPlan planLayers(const SwitchGraph& graph, const Channels& channels, const SsspTables& tables,
                     std::uint8_t allowed, const OneTree* trees = nullptr);

}  // namespace ibsm::routing::sssp
