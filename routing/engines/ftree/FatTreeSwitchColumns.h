// Switch LIDs (and the aggregation nodes and upper CAs that take their
// switch's column) in closed form, on any tree routed afresh (no previous
// tables to follow): no search per target, no cable counters, so every
// column depends on its target alone, and a tree that lost a cable keeps the
// whole tree's columns wherever its cables allow.
//
// Toward a switch X:
//  - X's ancestors descend: the down cable to X's ancestor one level lower
//    that first reached them, going up from X level by level (every such
//    path is shortest: each down cable drops one level).
//  - Any other switch with a common ancestor climbs on the up cable of X's
//    digit for its level when that one leads on shortest (else the next one
//    that does, in cable order). Below X's height the digits are X's own
//    column (the up cable indices of one down path from X), above it they are
//    X's canonical index in mixed radix over the levels' up cable counts, as
//    D-mod-K deals CA LIDs, so that the climbs toward the switches of a level
//    spread over every up cable.
//  - A switch with no common ancestor (a top toward another top, say)
//    climbs in the hub order toward the hub leaf, on one of its cables to an
//    earlier neighbour whose own climb to the hub is shortest (chosen by X's
//    index), until it meets a switch that has a legal path, which then
//    carries it. Climbing (in the hub order) into a legal chain is legal,
//    and the hub has a legal path to every switch of a complete tree. On a
//    tree that lost a few cables, the switches below one that lost an up
//    cable (and every switch of a tree that is no such tree) are left to the
//    legaliser's hub-order search instead, which finds shorter ways around
//    the missing cables; the others climb as on the complete tree.
// The legaliser checks every column (one pass when nothing is left to it)
// and routes whatever it finds unrouted or broken.
//
//   const SwitchClimbs climbs(layout, reach, hub, complete);  // once
//   SwitchColumns columns(layout, reach, climbs);         // per thread
//   const std::size_t hubRouted = columns.column(x, next);
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/engines/ftree/FatTreeHub.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeReach.h"

namespace ibsm::routing::ftree {

// Per switch, its cables to earlier neighbours in the hub order whose
// shortest climb to the hub (through ever earlier switches) is shortest;
// none for the switches left to the legaliser's search (on a tree that is
// not `complete`: those below a switch that lost an up cable).
class SwitchClimbs {
 public:
  // `cut`: whether a tree that is not `complete` climbs too. Not under a
  // hint: a switch whose kept chain broke then goes to the search as before,
  // which joins the kept chains nearby, where a climb chosen by index among
  // the neighbours the lost cable left could move many more entries.
  SwitchClimbs(const FatTreeLayout& layout, const FatTreeReach& reach, const HubOrder& hub,
               bool complete, bool cut = true);
  std::span<const CableId> toHub(SwitchIndex s) const {
    return {cables_.data() + first_[s], cables_.data() + first_[s + 1]};
  }

 private:
  std::vector<std::uint32_t> first_;  // per switch, plus one
  std::vector<CableId> cables_;
};

class SwitchColumns {
 public:
  SwitchColumns(const FatTreeLayout& layout, const FatTreeReach& reach, const SwitchClimbs& climbs);

  // Next hops of every switch toward switch `target` (kDeliver there).
  // Returns how many switches have no common ancestor with it and climb
  // toward the hub (the others without one are left kNoCable). With
  // `bySource` (the columns of aggregation nodes and upper CAs, which CAs
  // everywhere send to), a switch's choice among the equal up cables and
  // hub climbs turns by its own canonical index too (issue 33), so
  // that the switches climbing toward one target spread over them instead
  // of all taking the target's digit; the same cables lead on shortest.
  // `rotate` (with `bySource`): the k-th CA of several on the target turns
  // k further, so that two CAs on one switch (the two ports of an HCA on a
  // switch two others climb to) do not share every climb.
  std::size_t column(SwitchIndex target, std::vector<CableId>& next, bool bySource = false,
                     std::size_t rotate = 0);

 private:
  void setDigits(SwitchIndex target);
  void descendToward(SwitchIndex target, std::vector<CableId>& next);
  void setDistances(SwitchIndex target);
  CableId climb(SwitchIndex s) const;
  std::size_t turn(SwitchIndex s, std::size_t choices) const;

  const FatTreeLayout& layout_;
  const FatTreeReach& reach_;
  const SwitchClimbs& climbs_;
  std::vector<std::uint16_t> dist_;
  std::vector<std::uint32_t> digit_;  // per height
  std::vector<SwitchIndex> level_, above_;
  std::vector<SwitchIndex> ancestors_;      // of the target, by height
  std::vector<std::size_t> firstAncestor_;  // per height, plus one
  std::vector<std::uint64_t> meets_;        // per height: the switches below its ancestors there
  bool bySource_{false};
  std::size_t rotate_{0};
};

}  // namespace ibsm::routing::ftree
