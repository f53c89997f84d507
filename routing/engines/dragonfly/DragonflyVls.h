// Virtual lanes for the dragonfly routes, chosen per switch turn (in port,
// out port) so that SL2VL can carry them: a turn's level is at least the
// level of the traffic arriving on its in port, plus one when that traffic
// crossed a global link. Levels settle by repeated passes over the LIDs (they
// only grow; a pass that raises no turn an earlier tree went through ends
// it). Then every dependency along a global link climbs a level, so a credit
// loop could only stay on one level among local links: the dependencies among
// those are searched for a cycle. That is the proof, by construction plus one
// search, that the VL-extended channel dependency graph is acyclic; the route
// report re-derives it from the tables.
//
// Minimal dragonfly routes (local, global, local) need levels 0 and 1. A
// group that lost local cables is crossed by detours of two local hops,
// which can wait on each other around the group's remaining cables. Where
// the search finds such a cycle, one of its turns is made to climb a level
// too and the levels are planned again, until no cycle is left: a detour's
// second hop gets its own VL only where the dependencies need it.
#pragma once

#include <ibsm/Routing.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "routing/engines/dragonfly/DragonflyRoutes.h"

namespace ibsm::routing::dragonfly {

struct VlPlan {
  std::uint8_t levels{1};              // VLs needed
  std::optional<std::string> problem;  // why the levels do not prove freedom from deadlock
  std::uint32_t climbs{0};             // turns made to climb a level to break a local cycle
  std::vector<std::uint8_t> turn;      // [(s * stride + in) * stride + out]
};

// On up to `threads` threads (0: all cores); the same plan on any number.
VlPlan planVls(const SwitchGraph& graph, const PortMap& ports, const DragonflyTables& tables,
               unsigned threads);

// SL2VL entries for every pair of distinct cabled ports of every switch; all
// sixteen SLs map to the turn's level, so any SL a transport picks is safe.
// With QoS (qos.enabled) these are the layers: qos::planQosTables gives each
// QoS class its own block of them (QosOptions.h).
// On up to `threads` threads; the same entries, in switch order, on any number.
std::vector<Sl2VlEntry> sl2vlEntries(const Fabric& fabric, const SwitchGraph& graph,
                                     const PortMap& ports, const VlPlan& plan, unsigned threads);

}  // namespace ibsm::routing::dragonfly
