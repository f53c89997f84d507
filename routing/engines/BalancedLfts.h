// The half of an engine that is the same for every engine that decides per
// destination switch: which LIDs sit behind which switch, and the filling of
// every switch's LFT, spreading LIDs over the candidate ports the engine names
// (see PortBalancer). An engine only answers, per (switch s, destination
// switch d): how many hops its route from s to d takes, and which out ports of
// s lead one hop nearer on a route it allows. Its work grows with switches
// squared, not with switches times LIDs.
//
//   auto tables = fillBalancedLfts(fabric, graph, PathChoices{
//       .length = [&](SwitchIndex s, SwitchIndex d) { return hops[d][s]; },
//       .candidates = [&](SwitchIndex s, SwitchIndex d, std::vector<std::uint8_t>& out) {
//         graph.forEachCable(s, [&](SwitchIndex t, const Cable& c) {
//           if (hops[d][t] + 1 == hops[d][s]) out.push_back(c.port);
//         });
//       }});
//
// Order. Destination switches are taken in the order of their lowest LID,
// the LIDs behind one switch in LID order; for each LID the switches decide
// farthest first, so that every switch knows how many host ports route that
// LID through it (its own, plus those of the switches that chose it) and
// balances that traffic, not table entries. Without it, switches that see
// the LIDs in the same order make the same choices and pile the traffic of a
// whole fat-tree pod onto one core link.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "routing/engines/PortBalancer.h"
#include "routing/graph/SwitchGraph.h"

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

// What an engine allows. Contract: every candidate port of s toward d leads
// to a switch whose length toward d is length(s, d) - 1, and a switch with a
// finite length (other than d) has at least one candidate. The questions come
// destination by destination (every s for one d, then the next d), so an
// engine may work out one destination at a time and keep only that.
struct PathChoices {
  // Switch hops of the route from s to d; kUnreachable when s has none.
  std::function<std::uint16_t(SwitchIndex s, SwitchIndex d)> length;
  // Appends the allowed out ports of s toward d (s != d) to `out`.
  std::function<void(SwitchIndex s, SwitchIndex d, std::vector<std::uint8_t>& out)> candidates;
  // Optional, for an engine that takes the previous tables as its hint
  // (RoutingOptions::previous), whose routes then differ LID by LID: called
  // before each LID of d with the port d delivers it on; length and
  // candidates are asked again after it and answer for that LID.
  std::function<void(Lid lid, SwitchIndex d, std::uint8_t deliverPort)> forLid{};
};

struct BalancedLfts {
  std::vector<Lft> lfts;           // index = NodeId; empty for non-switches
  std::size_t unroutedEntries{0};  // (switch, owned LID) entries left at kNoRoute
  std::size_t unreachableLids{0};  // owned LIDs that at least one switch cannot route
};

BalancedLfts fillBalancedLfts(const Fabric& fabric, const SwitchGraph& graph,
                              const PathChoices& choices);

// The note an engine adds to its result when something stayed unrouted.
std::optional<std::string> unroutedNote(const BalancedLfts& tables);

}  // namespace ibsm::routing
