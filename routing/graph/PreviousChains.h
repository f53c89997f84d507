// The one walk over previous tables (RoutingOptions::previous) that every
// taker of the hint shares: toward one LID, whether each switch's previous
// chain of next hops still reaches the port that owns the LID over cables
// that exist now, and how many switch hops it takes. What an engine adds to
// "still valid" (up*/down* legality, shortest paths, a dragonfly's minimal
// routes) it checks on these verdicts; they are closed under the chain: when
// a switch's chain holds, so does that of every switch on it.
//
//   PreviousChains chains(graph, options.previous);
//   chains.judge(lid, target, deliverPort);
//   if (chains.holds(s)) keep(s, chains.port(s), chains.next(s), chains.length(s));
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <span>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing {

class PreviousChains {
 public:
  // `previous` is indexed by NodeId of the fabric `graph` was built from; an
  // empty Lft where a switch had none.
  PreviousChains(const SwitchGraph& graph, std::span<const Lft> previous);

  bool empty() const { return previous_.empty(); }

  // Judges every switch's previous chain toward `lid`, which `target`
  // delivers on `deliverPort` (0: the switch's own LID). Returns how many
  // switches' chains hold.
  std::size_t judge(Lid lid, SwitchIndex target, std::uint8_t deliverPort);

  // After judge():
  bool holds(SwitchIndex s) const { return state_[s] == kHolds; }
  bool hadRoute(SwitchIndex s) const { return port_[s] != kNoRoute; }
  std::uint8_t port(SwitchIndex s) const { return port_[s]; }       // the previous entry
  SwitchIndex next(SwitchIndex s) const { return next_[s]; }        // kNoSwitch: delivers
  std::uint16_t length(SwitchIndex s) const { return length_[s]; }  // switch hops, when it holds

 private:
  static constexpr std::uint8_t kWalking = 1, kHolds = 2, kBroken = 3;

  void walk(SwitchIndex s, SwitchIndex target, std::uint8_t deliverPort);

  std::span<const Lft> previous_;
  // Per switch: its previous table's entries (none: null) and how many.
  std::vector<const std::uint8_t*> table_;
  std::vector<std::size_t> tableSize_;
  // Per switch, `stride_` ports from s * stride_: the switch behind each, or
  // kNoSwitch (one flat table: the walk reads it once a hop).
  std::size_t stride_{0};
  std::vector<SwitchIndex> peer_;
  Lid lid_{};
  std::vector<std::uint8_t> state_;
  std::vector<std::uint8_t> port_;
  std::vector<SwitchIndex> next_;
  std::vector<std::uint16_t> length_;
  std::vector<SwitchIndex> path_;
};

}  // namespace ibsm::routing
