// D-mod-K on a fat tree that lost a few cables: the usual state of a large
// cluster, where routing by load alone (FatTreeBalanced.h) costs ten times
// the closed form for the few destinations that need it.
//
// A switch whose up or down cables are fewer than its level's most is
// "short" (it lost a cable). A destination whose D-mod-K down path (its
// chain, FatTreeDmodk.h) runs through no short switch keeps D-mod-K's
// column, except that each short switch climbing toward it takes its least
// loaded legal up cable (D-mod-K's index modulo fewer cables would pile two
// shares on one), and its flows are counted on the cable loads. Every other
// destination, and one whose column would leave a switch off a shortest
// legal path, is left to the placement by load, which then sees the flows
// of all the D-mod-K columns: the lost cable's share spreads over several
// paths, which one down path per destination cannot do.
//
//   auto degraded = DegradedDmodk::make(layout, reach, destinations);
//   if (degraded && degraded->plainColumn(i, dist, next) &&
//       degraded->climbShort(i, dist, balanced, next)) ...  // else balanced.column(...)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "routing/engines/ftree/FatTreeBalanced.h"
#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeDmodk.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeReach.h"

namespace ibsm::routing::ftree {

class DegradedDmodk {
 public:
  // Only a tree whose leaves all stand at height 0 with as many compute CAs
  // each, and that misses at most one in twenty of its cables: a tree built
  // uneven is not one with cables missing, and D-mod-K's shares do not fit it.
  static std::optional<DegradedDmodk> make(const FatTreeLayout& layout, const FatTreeReach& reach,
                                           std::span<const Destination> destinations);

  // D-mod-K's down path toward destinations[i] avoids the short switches.
  bool avoidsShort(std::size_t i) const;

  // D-mod-K's column toward destinations[i] into `next` (sized here),
  // kNoCable where `dist` (the legal distances toward its leaf) is far.
  // False when its down path runs through a short switch, or a switch that
  // did not lose a cable would not step one hop nearer.
  bool plainColumn(std::size_t i, const std::vector<std::uint16_t>& dist,
                   std::vector<CableId>& next) const;
  // Then the short switches that climb toward it: each on its lightest
  // legal up cable by the loads of `balanced`. False when one has none.
  bool climbShort(std::size_t i, const std::vector<std::uint16_t>& dist,
                  const BalancedRoutes& balanced, std::vector<CableId>& next) const;

  std::size_t shortSwitches() const { return short_.size(); }
  // The switches that lost a cable, ascending; D-mod-K's routes beneath.
  const std::vector<SwitchIndex>& shortList() const { return short_; }
  bool isShort(SwitchIndex s) const { return isShort_[s]; }
  const std::vector<bool>& shortMask() const { return isShort_; }
  const DmodkRoutes& dmodk() const { return dmodk_; }

 private:
  DegradedDmodk(const FatTreeLayout& layout, const FatTreeReach& reach,
                std::span<const Destination> destinations, std::vector<SwitchIndex> shortSwitches);

  const FatTreeLayout& layout_;
  std::span<const Destination> destinations_;
  std::vector<SwitchIndex> short_;  // switches that lost a cable, ascending
  std::vector<bool> isShort_;       // per switch
  DmodkRoutes dmodk_;               // its down paths take no share above a short switch
};

}  // namespace ibsm::routing::ftree
