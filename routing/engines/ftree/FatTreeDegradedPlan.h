// The sequential half of routing the CA LIDs that keep D-mod-K's column on
// a tree that lost a few cables (FatTreeDegradedRoute.h): per destination
// leaf what its columns must be checked for, then destination by destination
// whether each keeps the column and how the switches that lost a cable climb.
//
//   std::vector<Toward> toward = ... towardLeaf(tree, leaf) ...;
//   Planner plan(tree, toward);
//   plan.run(order);   // plan.taken, plan.left
//   plan.ports(k, out);
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "routing/engines/ftree/FatTreeDegradedRoute.h"

namespace ibsm::routing::ftree {

// One destination leaf: the legal distances toward it, and the switches
// (none that lost a cable) climbing toward it whose up cables are not all
// one hop nearer, whose D-mod-K climb each destination must check.
struct Toward {
  std::vector<std::uint16_t> dist;
  std::vector<SwitchIndex> uneven;
  bool far{false};    // some switch has no legal path to it
  bool check{false};  // its columns need the hub-order check
  // Lengths::count of each unchecked column toward it, which only the
  // leaf's distances decide.
  std::uint64_t caRoutes{0}, longer{0};
};

Toward towardLeaf(const DegradedTree& tree, SwitchIndex leaf);

// towardLeaf of every leaf (by leaf index) that `wanted` names, on
// `threads` threads; the same for any count. Leaves at height 0 with the
// same parents (the far ends of their up cables) share one search: toward
// either, every other switch stands where it stands toward the other, and
// their distances to each other are equal, so one's Toward is the other's
// with their own two entries swapped. The hub leaf is searched on its own
// (the check of the hub's ancestors passes over it toward any other leaf).
std::vector<Toward> towardLeaves(const DegradedTree& tree, const std::vector<bool>& wanted,
                                 unsigned threads);

// DegradedDmodk::plainColumn's verdict on destinations[i] without its
// column: its down path avoids the short switches, and every switch that
// climbs toward it on an uneven set of up cables (t.uneven) climbs nearer.
bool keepsDmodk(const DegradedTree& tree, const Toward& t, std::size_t i);
// DegradedDmodk::climbShort's verdict after it, whatever the loads: every
// short switch that climbs toward destinations[i] has an up cable nearer,
// and every one that descends toward it descends nearer.
bool shortClimbs(const DegradedTree& tree, const Toward& t, std::size_t i);

// Destination by destination in order: whether it keeps D-mod-K's column,
// and the short switches' climbs, on the loads of their up cables only.
class Planner {
 public:
  using Load = BalancedRoutes::Load;

  Planner(const DegradedTree& tree, const std::vector<Toward>& toward)
      : tree_(tree),
        toward_(toward),
        shorts_(tree.degraded.shortList()),
        shortIndex_(tree.layout.switches(), kLong) {
    for (std::size_t j = 0; j < shorts_.size(); ++j) shortIndex_[shorts_[j]] = std::uint32_t(j);
    std::uint8_t layers = 1;
    for (const Destination& d : tree.destinations)
      layers = std::max<std::uint8_t>(layers, d.layer + 1);
    loads_.assign(layers, std::vector<Load>(tree.layout.cables(), 0));
  }

  void run(const std::vector<std::size_t>& order);

  const Toward& toward(std::size_t i) const {
    return toward_[tree_.layout.leafIndex[tree_.destinations[i].leaf]];
  }
  // The column of the k-th destination taken, before any hub-order check.
  void column(std::size_t k, std::vector<CableId>& next) const;
  // Its entry at s, where no switch is far from its leaf; its out ports.
  CableId hopOf(std::size_t k, SwitchIndex s) const {
    return hop(taken[k], picks_.data() + k * shorts_.size(), s);
  }
  // The same at a leaf other than the destination's: D-mod-K's climb.
  CableId leafHop(std::size_t k, std::uint8_t digit, SwitchIndex leaf) const {
    if (shortIndex_[leaf] != kLong) return picks_[k * shorts_.size() + shortIndex_[leaf]];
    const auto ups = tree_.layout.upCables(leaf);
    return ups.empty() ? kNoCable : ups[digit % ups.size()];
  }
  void ports(std::size_t k, std::uint8_t* out) const {
    tree_.degraded.dmodk().ports(taken[k], out);
    for (std::size_t j = 0; j < shorts_.size(); ++j)
      out[shorts_[j]] = tree_.layout.port[picks_[k * shorts_.size() + j]];
  }

  std::vector<std::size_t> left, taken;
  std::pair<SwitchIndex, std::uint8_t> lastCa{kNoSwitch, 0};  // the CA of the last run taken
  std::size_t lastRun{0};                                     // where in `taken` it starts

 private:
  static constexpr std::uint32_t kLong = ~std::uint32_t{0};

  bool plain(std::size_t i) const;
  bool climb(std::size_t i, CableId* pick) const;
  CableId lightest(SwitchIndex s, const Destination& d, const Toward& t, CableId tie) const;
  void addFlows(std::size_t i, const CableId* pick);
  Load flowInto(std::size_t i, const CableId* pick, SwitchIndex s) const;
  CableId hop(std::size_t i, const CableId* pick, SwitchIndex s) const {
    return shortIndex_[s] != kLong ? pick[shortIndex_[s]] : tree_.degraded.dmodk().hop(i, s);
  }

  const DegradedTree& tree_;
  const std::vector<Toward>& toward_;
  const std::vector<SwitchIndex>& shorts_;
  std::vector<std::uint32_t> shortIndex_;  // per switch: its place in shorts_, or kLong
  std::vector<std::vector<Load>> loads_;   // per layer: exact on the short switches' up cables
  std::vector<CableId> picks_;             // per destination taken: its column at shorts_
};

}  // namespace ibsm::routing::ftree
