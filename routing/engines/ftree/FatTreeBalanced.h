// Routing a fat tree that is not complete and regular (cables missing, the
// usual state of a large cluster) so that no cable carries much more than
// its share, while every route still climbs then descends in the tree.
//
// One destination LID at a time, the flow of each source leaf (its CA ports)
// is routed all the way before the next leaf's, so every choice sees where
// this destination's earlier flows went. A switch first asked during this
// destination picks its next hop then, on the loads as they stand: climbing,
// among the up cables on a shortest legal path, the one whose route onward
// has the least loaded worst cable; above the destination, the down cable
// whose path down has. So one destination's flows spread over several tops
// where that relieves a down cable, which one down path per destination
// cannot do around a missing cable. Loads are kept per LMC layer, so that
// base LIDs are balanced as if there were no others.
//
//   BalancedRoutes balanced(layout, reach);
//   for (i ...) balanced.column(destinations[i], i, next);
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeHint.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeReach.h"

namespace ibsm::routing::ftree {

class BalancedRoutes {
 public:
  using Load = std::uint32_t;  // routes per cable: at most (CA ports)^2

  BalancedRoutes(const FatTreeLayout& layout, const FatTreeReach& reach);

  // Next hops toward `d` at every switch with a legal path to it; kNoCable
  // elsewhere. `sequence` rotates ties so that equal choices take turns.
  // A CA's LIDs should come one after the other (layer 0 first): a switch
  // then climbs toward each on a cable its earlier LIDs do not use, where it
  // has one, so that the LMC paths differ.
  // Loads the flows toward `d` whose previous chain holds entirely, before
  // any column is routed: then every choice of the flows that must move sees
  // where the kept flows of every destination go, not only of earlier ones.
  void preload(const Destination& d, HintColumns& kept, std::vector<CableId>& next);

  // `kept`, when given, first puts into `next` the hops the previous tables
  // keep (HintColumns): flows through those switches load their cables, and
  // the switches left choose on the loads as they then stand.
  void column(const Destination& d, std::size_t sequence, std::vector<CableId>& next,
              HintColumns* kept = nullptr, std::size_t* keptCount = nullptr);

  // A column routed elsewhere (DegradedDmodk) counted as column() counts its
  // own: the flow of every source leaf along `next` onto the cable loads of
  // d's layer (kept chains too: take them before any preload), and the
  // column remembered for d's later LMC LIDs.
  void take(const Destination& d, const std::vector<CableId>& next);
  // Of s's up cables one hop nearer by `dist`, the least used by d's earlier
  // LIDs, then the least loaded in d's layer; `tie` (if among them) first
  // among equals. kNoCable when none is nearer.
  CableId lightestClimb(SwitchIndex s, const Destination& d, const std::vector<std::uint16_t>& dist,
                        CableId tie) const;

  // take() in two halves, for columns counted elsewhere (in parallel): the
  // flows of many columns of layer `layer` added at once, and a column
  // remembered for d's later LMC LIDs without its flows.
  void addLoads(std::uint8_t layer, const std::vector<Load>& flows);
  void addLoad(std::uint8_t layer, CableId c, Load flow) { loadsOf(layer)[c] += flow; }
  void remember(const Destination& d, const std::vector<CableId>& next);

 private:
  Load rest(SwitchIndex s, SwitchIndex leaf, std::size_t sequence, std::vector<CableId>& next);
  Load bottleneck(SwitchIndex s, SwitchIndex leaf, std::vector<CableId>& next);
  void fixDown(SwitchIndex s, SwitchIndex leaf, std::vector<CableId>& next);
  CableId climb(SwitchIndex s, SwitchIndex leaf, std::size_t sequence, std::vector<CableId>& next);
  CableId hop(SwitchIndex s, SwitchIndex leaf, std::size_t sequence, std::vector<CableId>& next);

  bool under(SwitchIndex s) const { return BitRows::test(above_, s); }
  std::vector<Load>& loadsOf(std::uint8_t layer);
  void startSiblings(const Destination& d);
  void rememberSibling(const std::vector<CableId>& next);

  const FatTreeLayout& layout_;
  const FatTreeReach& reach_;
  std::vector<std::vector<Load>> loads_;  // per LMC layer, per cable: CA->CA routes on it
  Load* load_{nullptr};                   // the current destination's layer
  std::vector<std::uint16_t> dist_;
  SwitchIndex distOf_{kNoSwitch};               // the leaf dist_ is toward
  const std::uint64_t* above_{nullptr};         // the switches above the current destination
  std::vector<std::vector<CableId>> siblings_;  // columns of the current CA's earlier LIDs
  std::size_t siblingCount_{0};                 // of siblings_, those that are
  std::pair<SwitchIndex, std::uint8_t> siblingsOf_{kNoSwitch, 0};  // that CA: leaf and port
};

}  // namespace ibsm::routing::ftree
