// LMC multipath on an SL of its own (issue 33): the later LIDs of every LMC
// range (rangeOffset > 0) travel on SL kLaterSl, whose VLs are the ones above
// the base routes'. SL2VL is keyed by SL too: on SL 0 (and every SL but
// kLaterSl) a turn takes the base routes' level, on kLaterSl the base plan's
// VL count plus the later routes' own level. A packet keeps its SL from end
// to end, so no dependency runs between the two VL sets: each set is proven
// free of credit loops by its own plan (planVls over its own LIDs), and a
// detour's turn gets its own VL without moving the base routes'. The SA
// answers kLaterSl in PathRecords for those DLIDs (RoutingResult::pairSls,
// every source: CA ports and the switches' port 0). The engine takes it only
// where both plans fit the VLs allowed, the SA is named at most a million
// pairs, and the later routes then share fewer cables with their port's
// earlier LIDs' than on one SL (DragonflyTables::laterConflicts); else the
// later LIDs share SL 0 with the base routes as before, and a note says why.
// Planned through intermediate groups (DragonflyValiant.h), the later routes
// come with their levels and take SLs kLaterSl.., all on three VLs with the
// base routes (SplitVls::valiantVl): a source is named on the SL its route
// was planned for, and not at all (SL 0) where it is its base LID's route.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <vector>

#include "routing/engines/dragonfly/DragonflyRoutes.h"
#include "routing/engines/dragonfly/DragonflyVls.h"

namespace ibsm::routing::dragonfly {

inline constexpr std::uint8_t kLaterSl = 1;

struct SplitVls {
  VlPlan base;   // the LIDs but the ranges' later ones
  VlPlan later;  // the ranges' later LIDs (planVls)
  // Or, planned with the routes (DragonflyValiant.h), one plan per later SL
  // kLaterSl + i, whose levels share three VLs with the base routes and
  // each other (validVl()).
  std::vector<VlPlan> valiant;
  // The base plan's top level only ends routes (minimal routes, no turn
  // climbed): the later routes' last hop (level 2) shares its VL.
  bool lastOnBaseTop{false};

  [[nodiscard]] std::uint8_t levels() const {
    if (valiant.empty()) return static_cast<std::uint8_t>(base.levels + later.levels);
    return static_cast<std::uint8_t>(base.levels + (lastOnBaseTop ? 1 : 2));
  }

  // The VL of level `level` of a later SL planned through intermediate
  // groups. Level 0 (a route's turns up to its first global link, onto a
  // local channel or from one onto a global one) shares VL 0 with the base
  // routes' level 0: on VL 0 every route of any SL turns only from a local
  // channel onto a global one. Level 1 (from the first global link up to
  // the second: a local hop, onto the second) takes the VL above the base
  // plan's, one for every later SL: there too every turn is from a local
  // channel onto a global one, or from VL 0. Level 2 (the hop into the
  // destination switch) ends routes, as the base plan's top level does
  // where lastOnBaseTop: they share it. Every dependency then stays on its
  // VL only from a local channel to a global one, or climbs from VL 0 to
  // the level-1 VL to the last, and no cycle can close.
  [[nodiscard]] std::uint8_t valiantVl(std::uint8_t level) const {
    if (level == 0) return 0;
    if (level == 1) return base.levels;
    return static_cast<std::uint8_t>(lastOnBaseTop ? base.levels - 1 : base.levels + 1);
  }
};

// The two plans, each on up to `threads` threads.
SplitVls splitVls(const SwitchGraph& graph, const PortMap& ports, const DragonflyTables& tables,
                  unsigned threads);

// SL2VL for every pair of distinct cabled ports of every switch: kLaterSl to
// base.levels + the later plan's level (or each Valiant SL: valiantVl()),
// every other SL to the base level.
std::vector<Sl2VlEntry> splitSl2Vl(const Fabric& fabric, const SwitchGraph& graph,
                                   const PortMap& ports, const SplitVls& plan, unsigned threads);

// Every source (CA ports, switches' port 0) toward every later LID, on
// kLaterSl, or on the SL DragonflyTables::laterSl gives its switch (none on
// SL 0: unnamed); sorted by (dlid, source).
std::vector<PairSl> laterPairSls(const SwitchGraph& graph, const DragonflyTables& tables);

}  // namespace ibsm::routing::dragonfly
