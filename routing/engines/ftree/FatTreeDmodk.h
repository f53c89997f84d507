// D-mod-K routing of a complete, regular fat tree (Zahavi et al.): each CA
// LID gets one down path, chosen climbing from its leaf on the up cable that
// the fewest down paths use yet (first in canonical order on a tie, the
// search starting at the LMC layer so that a CA's LIDs climb apart). The
// index of that cable at each level is the LID's digit; every switch that
// must climb toward the LID takes its own up cable of that index. With
// canonical cable orders aligned between switches of a level, all climbs
// meet the down path at its lowest switch above the source, destinations are
// dealt evenly over every switch's up cables, and shift permutations over
// the destination order are contention-free.
//
// Leaves of uneven height (a director's line-card chips taking hosts beside
// top-of-rack switches, one level up) are dealt the same way from their own
// height: their down path starts at the leaf, and the switches below that
// height climb into the leaf's column (the up cable indices of a down path
// from a non-leaf switch of that level sharing the leaf's parents), as the
// tree's other switches of the level are reached. Pairs with no
// climb-then-descend path (two directors' chips of different columns) are
// left kNoCable for the legaliser.
//
//   const DmodkRoutes dmodk(layout, reach, destinations);
//   dmodk.column(i, next);    // next hops toward destinations[i], or
//   dmodk.ports(i, column);   // straight to out ports, one per switch
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeReach.h"

namespace ibsm::routing::ftree {

// A tree D-mod-K deals although it is not complete and regular because some
// compute leaves stand above level 0 (`unevenLeaves`): every level's
// switches have as many up cables each, every switch that is not such a
// leaf as many down cables as the others of its level that are not, every
// top lies above every leaf of level 0, every compute leaf's CAs are a
// multiple of its up cables, and every leaf above level 0 shares
// its first parent with a switch of its level that has switches below it
// (whose down path gives the leaf's column below its height).
bool dmodkOnUnevenLeaves(const FatTreeLayout& layout, const FatTreeReach& reach);

class DmodkRoutes {
 public:
  // `uncounted` (per switch, optional): a down path through one of these
  // switches takes no share of the cables above it, so that the paths of
  // destinations routed otherwise (DegradedDmodk: through a switch that lost
  // a cable) never double another's.
  DmodkRoutes(const FatTreeLayout& layout, const FatTreeReach& reach,
              std::span<const Destination> destinations,
              const std::vector<bool>* uncounted = nullptr);

  void column(std::size_t i, std::vector<CableId>& next) const;
  void ports(std::size_t i, std::uint8_t* out) const;
  // column()'s entry of one switch, without the rest of the column.
  CableId hop(std::size_t i, SwitchIndex s) const;
  // The index of the up cable that a switch of height h climbing toward
  // destinations[i] takes (modulo its up cables).
  std::uint8_t digit(std::size_t i, std::size_t h) const { return digit_[at(i, h)]; }
  // The switches of destinations[i]'s down path by height (leaf first);
  // kNoSwitch above where its climb ended.
  std::span<const SwitchIndex> chain(std::size_t i) const {
    return {chain_.data() + at(i, 0), levels_};
  }

 private:
  std::size_t at(std::size_t i, std::size_t h) const { return i * levels_ + h; }
  // Calls emit(s, cable) for every switch; kDeliver at the leaf.
  template <typename Emit>
  void fill(std::size_t i, Emit&& emit) const;
  CableId towardCable(std::size_t i, SwitchIndex s) const;

  const FatTreeLayout& layout_;
  const FatTreeReach& reach_;
  std::span<const Destination> destinations_;
  std::size_t levels_;
  std::vector<SwitchIndex> chain_;   // per (destination, height): switch of the down path
  std::vector<CableId> downCable_;   // per (destination, height): its cable one level down
  std::vector<std::uint8_t> digit_;  // per (destination, height): up cable index climbed
  // (below a leaf above level 0: the up cable index into its column)
  std::vector<CableId> toward_;  // per (switch, leaf): a down cable toward the leaf
  // Leaves of uneven height only (else empty), per (switch, leaf): the
  // cables to the same switch from toward_ on (a trunk), and toward_'s
  // position in layout.down.
  std::vector<std::uint8_t> trunk_;
  std::vector<std::uint32_t> towardAt_;
  // The same as out ports, for ports(): one lookup less per entry.
  std::vector<std::uint8_t> downPort_;
  std::vector<std::uint8_t> towardPort_;
  std::vector<std::uint8_t> upPort_;  // parallel to layout.up
};

}  // namespace ibsm::routing::ftree
