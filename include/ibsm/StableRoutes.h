// Routing under change: the tables the switches hold (or a previous dry
// run's) as a hint, so that a lost cable moves only the routes that used it.
//
//   StableRoutesStats stats;
//   auto tables = routeUnderChange(now, registry, {"auto"}, options, held,
//                                  classifyChange(before, now), stats);
//
// For every destination LID of `fabric`, a switch keeps its previous entry
// when the previous tables still lead from it to the destination over cables
// that exist (its path is still valid); every other switch takes the fresh
// engine's entry. The fresh chain from such a switch runs until it meets a
// switch whose previous path is intact and follows that one on: no loop can
// form, every destination is still delivered.
//
// "Still valid" starts the same for every engine: the previous path exists
// hop by hop and delivers to the port that owns the LID (one walker,
// routing/graph/PreviousChains.h). Each built-in engine takes the hint itself
// and adds its own rule: ftree and updn keep a chain only while it climbs
// then descends in their current order (the rest routed around the kept
// chains, so no credit loop by construction); minhop only while it is a
// shortest path; dragonfly only while it is no longer than its own route and
// the VLs planned on the result need no more than the fresh routes'. For an
// engine that does not take the hint, the mix above is made here. Either
// way the result must pass the report's channel dependency check on its
// SL2VL (ftree's tables pass it by construction: every chain of the mix is
// legalised in one hub order, and the check is not walked), leave no more
// pairs unreachable than the fresh tables, and its busiest link may carry at
// most 1.1x the routes of the fresh tables' busiest, or the fresh tables are
// taken and the stats say why.
// Credit-loop freedom is never traded for stability, nor balance beyond that.
//
// The fresh tables are computed only when the result could fail one of
// those bounds: every pair routed, no credit loop and a busiest link within
// 1.1x of the floor no tables can go below (a switch's CA routes spread over
// all its cables: TablesVerdict::busiestFloor in routing/plan) pass them
// whatever the fresh tables are. Otherwise (a dragonfly's busiest link is a
// global one, far above that floor) the fresh tables are routed and weighed
// as well. Either way routing under change costs one routing and one walk
// of the result's tables, plus a fresh routing and walk only when needed;
// the previous chains are judged once, and an engine that takes the hint
// reads those verdicts (RoutingOptions::previousHolds).
//
// What changed decides whether the hint counts (classifyChange):
// - inter-switch capacity came back (a cable or a switch the previous fabric
//   lacked): the fresh tables, so a flap ends where it started;
// - capacity was lost: the mix above;
// - only hosts came or went: the previous entries stay for every path that
//   holds, entries toward LIDs that are gone included, so a host that
//   reboots writes no block (OpenSM needs its --ucast_cache for this).
// Without the previous fabric (Unknown), a broken previous path means a
// loss, and none means capacity may have come back: fresh tables.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ibsm {

// The busiest link routes under change may have, against fresh tables' (the
// 1.1x above); auto keeps an engine's held routes within it too.
inline constexpr double kMaxBusiestOverFresh = 1.1;

struct StableRoutesStats {
  bool stabilised{false};   // the result mixes previous and fresh entries
  std::uint64_t broken{0};  // (switch, LID) whose previous path no longer holds
  // 64-LID LFT blocks holding such an entry: the blocks a change can need
  // to write (a lost cable: those whose entries' paths crossed it).
  std::uint64_t brokenBlocks{0};
  // LIDs whose previous chains all held and climbed then descended in
  // ftree's hub order, found 64 at a time without walking them.
  std::uint64_t wholeLids{0};
  std::uint64_t kept{0};       // (switch, LID) kept from the previous tables
  std::uint64_t fromFresh{0};  // (switch, LID) taken from the fresh tables
  double busiest{0};           // busiest link of the result (CA->CA routes)
  double freshBusiest{0};      // that of the fresh tables; 0 when they were not computed
  // The floor under any tables' busiest link on this fabric: the result
  // within 1.1x of it needs no fresh tables to compare with.
  double busiestFloor{0};
  bool freshComputed{false};  // the fresh tables were routed (and weighed)
  std::string why;            // why the fresh tables were taken, when they were
};

enum class FabricChange : std::uint8_t { Unknown, CapacityLost, CapacityGained, HostsOnly };

// Inter-switch cables (by node GUID and port at both ends) and switches of
// the two fabrics compared. Gained wins over lost: capacity that came back
// is a reason to recompute whatever else was lost meanwhile.
[[nodiscard]] FabricChange classifyChange(const Fabric& before, const Fabric& now);

// Routes `fabric` with `engines` and `options`, taking `previous` (indexed
// by NodeId of `fabric`; an empty Lft where a switch had none) as the hint
// where `change` calls for it: through RoutingOptions::previous for an engine
// that takes it (every built-in one), else by the mix above. Falls back to the fresh
// tables, saying why in `stats`, when the candidate leaves more pairs
// unreachable than they do, closes a credit loop the fresh tables do not, or loads its busiest link
// with more than 1.1x the fresh tables' busiest.
[[nodiscard]] Result<RoutingResult> routeUnderChange(const Fabric& fabric,
                                                     const EngineRegistry& registry,
                                                     const std::vector<std::string>& engines,
                                                     RoutingOptions options,
                                                     const std::vector<Lft>& previous,
                                                     FabricChange change, StableRoutesStats& stats);

}  // namespace ibsm
