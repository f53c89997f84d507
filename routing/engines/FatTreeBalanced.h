// Routing a fat tree that is not complete and regular (cables missing, the
// usual state of a large cluster) so that no cable carries much more than
// its share, while every route still climbs then descends in the tree.
//
// One destination LID at a time, the flows toward it are placed switch by
// switch from the leaves up: a switch that is not above the destination
// takes, among the up cables on a shortest legal path, the one whose route
// onward has the least loaded cable (the cable itself, then the worst cable
// of the down path it joins or the best estimate above it), and adds its
// flow, the CA ports below it that send there, to every cable it commits.
// The first flow that reaches a switch above the destination fixes that
// switch's way down the same way. So one destination's flows spread over
// several tops when that relieves a down cable, which a single down path per
// destination cannot do around a missing cable.
//
//   BalancedRoutes balanced(layout, reach);
//   for (i ...) balanced.column(destinations[i], i, next);
#pragma once

#include <cstdint>
#include <vector>

#include "FatTreeDestinations.h"
#include "FatTreeLayout.h"
#include "FatTreeReach.h"

namespace ibsm::routing::ftree {

class BalancedRoutes {
 public:
  BalancedRoutes(const FatTreeLayout& layout, const FatTreeReach& reach);

  // Next hops toward `d` at every switch with a legal path to it; kNoCable
  // elsewhere. `sequence` rotates ties so that equal choices take turns.
  // A CA's LIDs should come one after the other (layer 0 first): a switch
  // then climbs toward each on a cable its earlier LIDs do not use, where it
  // has one, so that the LMC paths differ.
  void column(const Destination& d, std::size_t sequence, std::vector<CableId>& next);

 private:
  using Load = std::uint32_t;  // routes per cable: at most (CA ports)^2

  Load rest(SwitchIndex s, SwitchIndex leaf, std::size_t sequence, std::vector<CableId>& next);
  Load bottleneck(SwitchIndex s, SwitchIndex leaf, std::vector<CableId>& next);
  void fixDown(SwitchIndex s, SwitchIndex leaf, std::vector<CableId>& next);
  CableId climb(SwitchIndex s, SwitchIndex leaf, std::size_t sequence, std::vector<CableId>& next);
  CableId hop(SwitchIndex s, SwitchIndex leaf, std::size_t sequence, std::vector<CableId>& next);

  bool under(SwitchIndex s) const { return BitRows::test(above_, s); }

  const FatTreeLayout& layout_;
  const FatTreeReach& reach_;
  std::vector<std::vector<Load>> loads_;  // per LMC layer, per cable: CA->CA routes on it
  Load* load_{nullptr};                   // the current destination's layer
  std::vector<std::uint16_t> dist_;
  const std::uint64_t* above_{nullptr};         // the switches above the current destination
  std::vector<std::vector<CableId>> siblings_;  // columns of the current CA's earlier LIDs
};

}  // namespace ibsm::routing::ftree
