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
// come with their levels and take SLs kLaterSl.. (as many as the VLs above
// the base plan's hold, two each): a source is named on the SL its route
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
  // kLaterSl + i: its level 0 on VL 0 with the base routes' level 0 (on VL 0
  // every route, of any SL, only turns from a local channel onto a global
  // one, and nothing comes back down to it), its levels 1 and 2 on two VLs
  // of its own above the base plan's.
  std::vector<VlPlan> valiant;
  [[nodiscard]] std::uint8_t levels() const {
    std::size_t vls = base.levels + (valiant.empty() ? later.levels : 0);
    for (const VlPlan& v : valiant) vls += v.levels - 1u;
    return static_cast<std::uint8_t>(vls);
  }
};

// The two plans, each on up to `threads` threads.
SplitVls splitVls(const SwitchGraph& graph, const PortMap& ports, const DragonflyTables& tables,
                  unsigned threads);

// SL2VL for every pair of distinct cabled ports of every switch: kLaterSl to
// base.levels + the later plan's level (or each Valiant SL as SplitVls says),
// every other SL to the base level.
std::vector<Sl2VlEntry> splitSl2Vl(const Fabric& fabric, const SwitchGraph& graph,
                                   const PortMap& ports, const SplitVls& plan, unsigned threads);

// Every source (CA ports, switches' port 0) toward every later LID, on
// kLaterSl, or on the SL DragonflyTables::laterSl gives its switch (none on
// SL 0: unnamed); sorted by (dlid, source).
std::vector<PairSl> laterPairSls(const SwitchGraph& graph, const DragonflyTables& tables);

}  // namespace ibsm::routing::dragonfly
