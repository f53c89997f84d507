// ftree's apart pairs on shortest paths over a second VL (issue 33). When
// the ports have two data VLs or more, the columns of switch LIDs,
// aggregation nodes and upper CAs (the destinations some sources cannot
// reach by climbing then descending) are routed on the fewest switch hops:
// a source may descend below the target, turn and climb to it. Which pairs
// turn depends on the source, so each chain of every column is classed by
// its shape in the tree's levels:
//
//   climb* descend*            SL 0 (every compute route of a full tree)
//   descend+ climb+            SL 1, "valley"
//   climb descend+ climb       SL 2, "peak then valley" (one climb each side)
//
// and SL2VL keeps each SL acyclic whatever SL a packet carries, on VLs 0-1:
//   SL 0: the down->up turn dropped (VL 15), every other hop VL 0;
//   SL 1: a climb after arriving from a switch VL 1, a descent after a
//         climb dropped, every other hop VL 0;
//   SL 2: the down->up turn VL 1, a climb after a climb dropped, every
//         other hop VL 0.
//   SL 4: VL 1 at every switch hop (VL 0 into a CA), never dropped: the
//         multicast SL. SL 2 cannot
//         carry a tree rooted at the top of a three-level tree (a leaf's
//         member climbs two hops to the root: a climb after a climb), nor
//         one that climbs two hops back up to a host on a core; SL 4
//         carries any tree (FatTreeApartVlTables.h).
// VL 0 then only ever carries climbs before descents (its dependencies
// follow the levels: acyclic), VL 1 only climbs (acyclic), and a
// dependency only leads from VL 0 to VL 1, never back, for chains of every
// shape above on every SL. The pairs on SL 1 or 2 go into
// RoutingResult::pairSls. On a tree that lost cables, a compute column with
// a chain of no such shape is routed like the apart ones; where some switch
// has no such chain at all, the column stays the hub order's and its chains
// of no level shape travel on SL 3, VL 2 (dropped at a down->up turn of the
// hub order: acyclic on its own), when the ports have a third data VL; else
// the tables stay today's, on one VL.
//
//   ApartVlNote note = applyApartVls(fabric, graph, layout, result, maxVls);
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "routing/engines/ftree/FatTreeHub.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::ftree {

// A chain's shape toward one target switch, in the tree's levels.
enum class ChainShape : std::uint8_t {
  kTarget,      // the target itself
  kClimb,       // climbs only (starts below the target)
  kDescend,     // descends only
  kPeak,        // climbs, then descends
  kValleyOne,   // descends, then climbs one hop
  kValley,      // descends, then climbs two hops or more
  kPeakValley,  // climbs one hop, descends, climbs one hop
  kBroken,      // any other shape, or no route
};

// The shape of `hop` (up or down) followed by a chain of shape `rest` that
// climbs `restClimbs` hops at its end (kClimb's length).
ChainShape extendShape(bool up, ChainShape rest, bool restClimbsOne);

// The SL a source on a chain of that shape travels on; nullopt: kBroken.
std::optional<std::uint8_t> shapeSl(ChainShape shape);

struct ApartVlNote {
  bool applied{false};
  std::size_t kept{0};  // apart columns left as they were (no allowed chain)
  std::string note;     // what was done, or why not
};

// Whether the ports and `maxVls` allow the second VL at all.
bool apartVlsAllowed(const Fabric& fabric, std::uint8_t maxVls);

// With min(maxVls, declaredDataVls) >= 2: routes the apart and switch LID
// columns on shortest paths, classes every chain of every LID's column,
// fills result.sl2vl, result.pairSls and vlsUsed (2, or 3 with SL 3). When
// some chain has no place, result is left as it was.
ApartVlNote applyApartVls(const Fabric& fabric, const SwitchGraph& graph,
                          const FatTreeLayout& layout, const HubOrder& hub, RoutingResult& result,
                          std::uint8_t maxVls);

}  // namespace ibsm::routing::ftree
