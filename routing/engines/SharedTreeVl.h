// The multicast trees on a VL the unicast routes use, where an engine's
// layers took every VL allowed (issue 33). A tree's copies hold buffers as
// unicast packets do, and on their groups' SLs they take whatever VL each
// turn maps those SLs to: on a layered engine's SL2VL a copy can drop from
// a higher layer to a lower one at a turn no route takes, and its turns
// closed credit loops with the unicast routes' (a degraded dragonfly on 3
// VLs, and sssp's layers on the same fabric, `ibsm route --check`).
//
// So every tree is put on one VL at every turn, and made part of one tree:
// rooted at the most central switch, each switch climbing the same cable
// for every group (MulticastOptions::oneTree; routing/multicast/
// McTreeBuilder.h OneTree). Whoever joins, a copy enters a switch from a
// child and leaves toward its parent or another child, or enters from the
// parent and leaves toward a child: those turns close no loop (a copy
// climbs, then descends), and the trees none among themselves. The layer v
// whose unicast dependencies together with all those turns close no loop,
// the highest first (the fewest routes: the layers above 0 hold what was
// moved up), takes the trees: SL 15 (routing/multicast/McSl.h kTreeSl) maps
// to v at every turn, every group travels on SL 15 (RoutingResult::
// treesShareVl). sssp plans its layer 0 with those turns in it where its
// layers take every VL (routing/engines/sssp/SsspLayers.h), so VL 0 passes
// there.
//
// Where no layer passes, the trees stay on their groups' SLs and a note says
// their turns may close a credit loop with the unicast routes; the report's
// judge then walks the trees the groups have, and auto prefers a plan whose
// trees are safe (treesSafe).
//
//   shareATreeVl(fabric, result, threads);  // a layered engine, last
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <optional>

namespace ibsm::routing {

// The layer whose dependencies, with every turn of the one tree (OneTree),
// close no credit loop, the highest first; nullopt when none does or when
// the result has no layers. `result` is read as the engine left it.
std::optional<std::uint8_t> treeVlClosingNoLoop(const Fabric& fabric, const RoutingResult& result,
                                                unsigned threads);

// Where `result` has layers and no VL of the trees' own: the layer above,
// taken (SL 15 mapped to it at every switch's turn, treesShareVl, a note),
// or the note that none closes no loop.
void shareATreeVl(const Fabric& fabric, RoutingResult& result, unsigned threads);

// Whether the engine proved that no membership of the multicast trees closes
// a credit loop with `result`'s routes through a turn of theirs on a unicast
// VL: a VL of their own (McSl.h) or a layer shared as above. One VL for
// everything (no SL2VL) proves nothing: the report's judge walks the trees.
bool treesSafe(const Fabric& fabric, const RoutingResult& result);

}  // namespace ibsm::routing
