// The dragonfly engine's forwarding decisions, one destination LID at a time
// over flat per-switch arrays (no per-pair search): every switch of the
// destination's group goes there over its local link (dragonfly+: a leaf up
// to a spine cabled to the destination leaf); in every other group the
// switches holding a global link to the destination's group take one, the
// others go one local hop to such a holder. Choices between parallel global
// links and between the holders feeding them go to the least loaded, loads
// counted in source switches' routes. Where a missing cable breaks that
// pattern, the switches left without a route get the shortest extension of
// what is already routed (breadth first from it), and are marked as detours.
// Each group's choices read only its own loads, so groups are planned apart,
// then LIDs extended apart, on threads (DragonflyPlan.h).
#pragma once

#include <ibsm/Dragonfly.h>
#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "routing/engines/BalancedLfts.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::dragonfly {

// Ports of every switch in one table: what each cabled port leads to.
struct PortMap {
  explicit PortMap(const Fabric& fabric, const SwitchGraph& graph,
                   const std::vector<std::uint32_t>& groupOf);
  std::size_t stride{0};               // ports per switch row (max ports + 1)
  std::vector<SwitchIndex> peer;       // [s * stride + port]; kNoSwitch unless a switch
  std::vector<std::uint8_t> peerPort;  // port it lands on
  std::vector<std::uint8_t> global;    // 1 when it leads to another group
  std::size_t at(SwitchIndex s, std::uint8_t port) const { return s * stride + port; }
};

// Routes toward every LID, LID-major: out[lid * n + s] is the LFT entry of
// switch s, len[lid * n + s] its switch hops (0xFF where unrouted).
struct DragonflyTables {
  std::size_t switches{0};
  std::vector<LidTarget> targets;
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> len;
  std::uint64_t detourRoutes{0};  // (CA source, LID) routes longer than the pattern's
  std::uint64_t caRoutes{0};      // (CA source, LID) routes in all
  std::vector<std::pair<SwitchIndex, Lid>> detourExamples;
  bool multipathSkipped{false};  // LMC ranges too many to plan apart (DragonflyLmc.h)
  bool laterOwnSl{false};        // later LIDs planned apart for an SL of their own
  // Per later LID and source switch, its CAs times the earlier LIDs of the
  // port whose route shares a cable with it, summed (DragonflyLmc.h).
  std::uint64_t laterConflicts{0};
  // Set by planValiant (DragonflyValiant.h): per (lid * switches + s), the
  // later SL a switch's route toward a later LID takes, counted from
  // kLaterSl (1, 2), or 0 where it is its base LID's route, channel for
  // channel (that source stays on SL 0); and per later SL its level per turn
  // [(s * stride + in) * stride + out]. Empty when planVls plans them.
  std::vector<std::uint8_t> laterSl;
  std::vector<std::vector<std::uint8_t>> laterTurns;
};

// On up to `threads` threads (0: all cores); the same tables on any number.
// With `multipath`, an LMC range's later LIDs apart from its base LID
// (DragonflyLmc.h); without, they take the base LID's routes. With
// `ownSl` too, apart for an SL of their own (planAlternates), or through
// intermediate groups on up to `laterSls` SLs of their own (planValiant).
DragonflyTables routeDragonfly(const Fabric& fabric, const SwitchGraph& graph,
                               const DragonflyShape& shape, const PortMap& ports, unsigned threads,
                               bool multipath = true, bool ownSl = false,
                               std::uint8_t laterSls = 1);

// Writes the tables into per-switch LFTs (index = NodeId, like RoutingResult),
// on up to `threads` threads.
// The LMC ranges of CA ports that hold more than one LID, by base LID:
// (base LID, LIDs in the range).
std::vector<std::pair<std::size_t, std::size_t>> lmcRanges(const std::vector<LidTarget>& targets);

std::vector<Lft> toLfts(const Fabric& fabric, const SwitchGraph& graph,
                        const DragonflyTables& tables, unsigned threads);

}  // namespace ibsm::routing::dragonfly
