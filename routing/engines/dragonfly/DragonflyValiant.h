// The later LIDs of an LMC range through intermediate groups (Valiant), on
// SLs of their own, on a dragonfly whose base routes are all minimal (issue
// 33). With one global cable per group pair the switch-by-switch planner
// (DragonflyLmc.h) left 71% of a6 p3 h3's pairs on one path: it moved a
// later LID's entries one switch at a time, and most source switches kept
// the base route's hop toward the group's cable. Here each later LID k of a
// destination port is planned as a whole, group by group:
//
// - in every group J but the destination's, one launcher t_J(k): a router
//   that is not where J's base routes leave the group and launched none of
//   the port's earlier LIDs; it sends LID k out on one of its global cables
//   to an intermediate group I, and J's other routers go one local hop to it.
//   So from any source the range's LIDs leave on different channels.
// - the router the cable lands on, x, and the routers of x's base route in
//   I relay: they keep their base entries (minimal to the destination
//   group). A relay launches nothing; its own hosts' LID k takes their base
//   route, which is the cost the choice weighs (the fewer new relays, and
//   the fewer LIDs a router relays already, the better). At most
//   kMaxPerExit groups' launches of one LID share I's cable onward.
// - the route enters the destination group at a router where none of J's
//   earlier LIDs (the base one included) enters it, or at the destination
//   switch itself: the range's routes share no cable there either.
// - in the destination group itself, the routers no route from another
//   group enters for LID k go one local hop to a relay m(k) and on to the
//   destination switch (m(k)'s base hop); the range's LIDs have different
//   relays, so those sources' LIDs share no cable. m(k)'s turn, from a local
//   channel onto a local one, is no other route's; it is taken at level 2.
//   A router some route enters keeps its base hop for that LID: its entry
//   is theirs too.
//
// A source whose route toward a later LID is its base route, channel for
// channel (relays, the destination group, groups left without a launcher),
// stays on SL 0 with the base routes: its turns are theirs. The others take
// a later SL (kLaterSl + i, `laterSls` of them): there a route takes its
// turns at level 0 up to its first global link, 1 up to its second, 2 after
// it (the hop into the destination switch), each level on a VL of its own
// (DragonflySplitVls.h: SplitVls::valiantVl, three VLs shared by the base
// routes and every later SL). SL2VL gives a turn one VL per SL, so on each
// later SL every route through a turn takes it at one level: a launch whose
// routes fit no later SL is not taken, and the group tries the next
// candidate. On a6 p3 h3 nine SLs take every launch the other rules allow.
// Choices between equal candidates go to the least loaded cables, so the
// ports of one switch spread over intermediates.
#pragma once

#include <cstdint>

#include "routing/engines/dragonfly/DragonflyGroupIndex.h"
#include "routing/engines/dragonfly/DragonflyRoutes.h"

namespace ibsm::routing::dragonfly {

// Rewrites tables.out, tables.len, tables.laterConflicts, tables.laterSl and
// tables.laterTurns (one per later SL, `laterSls` of them) for every CA LID
// with rangeOffset > 0; after extendRoutes, on a dragonfly (not dragonfly+)
// with no detour among the base routes. A later LID whose routes would not
// all reach their switch in two global links keeps the base LID's routes.
void planValiant(const SwitchGraph& graph, const PortMap& ports, const GroupIndex& groups,
                 DragonflyTables& tables, std::uint8_t laterSls);

}  // namespace ibsm::routing::dragonfly
