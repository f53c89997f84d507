// The half of an engine that is the same for every engine that decides per
// destination switch: which LIDs sit behind which switch, and the filling of
// each switch's LFT in LID order, spreading LIDs over the candidate ports the
// engine names (see PortBalancer). An engine only answers "which out ports of
// switch s lead on a path it allows toward switch d", once per (s, d) pair, so
// its work grows with switches squared, not with switches times LIDs.
//
//   auto tables = fillBalancedLfts(fabric, graph, [&](SwitchIndex s, SwitchIndex d, auto& out) {
//     graph.forEachCable(s, [&](SwitchIndex t, const Cable& c) {
//       if (onShortestPath(t, d)) out.push_back(c.port);
//     });
//   });
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "PortBalancer.h"
#include "SwitchGraph.h"

namespace ibsm::routing {

// Where one LID lives, seen from the switches.
struct LidTarget {
  SwitchIndex sw{kNoSwitch};    // the switch that delivers it; kNoSwitch when none does
  std::uint8_t switchPort{0};   // out port of that switch: 0 for its own LID, else the CA's cable
  std::uint8_t rangeOffset{0};  // position in the owner's LMC range
  LidKind kind{LidKind::Ca};
  bool owned{false};  // some port holds this LID
};

// index = LID, sized maxLid + 1.
std::vector<LidTarget> lidTargets(const Fabric& fabric, const SwitchGraph& graph);

// Appends to `out` the out ports of s that the engine allows toward switch d
// (s != d); leaves it empty when s cannot reach d.
using CandidatePorts =
    std::function<void(SwitchIndex s, SwitchIndex d, std::vector<std::uint8_t>& out)>;

struct BalancedLfts {
  std::vector<Lft> lfts;           // index = NodeId; empty for non-switches
  std::size_t unroutedEntries{0};  // (switch, owned LID) entries left at kNoRoute
  std::size_t unreachableLids{0};  // owned LIDs that at least one switch cannot route
};

BalancedLfts fillBalancedLfts(const Fabric& fabric, const SwitchGraph& graph,
                              const CandidatePorts& candidates);

// The note an engine adds to its result when something stayed unrouted.
std::optional<std::string> unroutedNote(const BalancedLfts& tables);

}  // namespace ibsm::routing
