// The channel dependency graph of a set of tables (Dally and Seitz): a cycle
// means the buffers of those channels can fill in a ring and the fabric can
// deadlock. Dependencies are gathered one destination at a time from the
// resolved next hops, stored densely (a channel only ever depends on channels
// leaving the switch it lands on), and searched for a cycle at the end.
//
//   ChannelDependencies deps(view);
//   for (const auto& d : view.destinations()) { hops.resolve(d); deps.add(hops); }
//   CreditLoopReport r = deps.report(result.vlsUsed);
//
// With SL2VL tables the VL of a hop depends on the SL, so the graph holds
// the dependencies of every SL: SLs that every table (every turn a
// dependency can take, every port traffic starts from) maps to the same VL
// make the same dependencies, and one of each such set is walked. QoS
// classes multiplied with an engine's VL layers (qos::planQosTables) are
// judged so: per VL, for every SL of every class.
//
// Multicast trees (issue 33) hold buffers as unicast packets do: addTree()
// adds each turn a group's copies take to the same graph, on the VLs the
// group's SL maps them to (CreditLoopsMulticast.cpp).
#pragma once

#include <ibsm/Multicast.h>
#include <ibsm/Report.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "routing/analysis/ForwardingView.h"
#include "routing/analysis/NextHops.h"

namespace ibsm::analysis {

class ChannelDependencies {
 public:
  explicit ChannelDependencies(const ForwardingView& view);

  // Adds the dependencies of one destination's LFT chains for traffic on
  // every SL a path can carry: one SL of each set of SLs that every SL2VL
  // table maps alike (slsWalked(); SL 0 alone without SL2VL tables). When
  // the result names pairSls (and has SL2VL tables), each pair on its SL
  // instead: the SL k dependencies are those of the chains from the
  // switches where sources on SL k enter, so layers the engine keeps apart
  // are judged apart (slsWalked(): SL 0 and the SLs named).
  void add(const NextHops& hops);
  // add(*h) for every h, switch by switch: a switch's dependency slots are
  // then read once for all of them.
  void addTogether(std::span<const NextHops* const> hops);
  // The same for traffic on service level `sl` only.
  void add(const NextHops& hops, std::uint8_t sl);
  const std::vector<std::uint8_t>& slsWalked() const { return sls_; }
  // Adds the dependencies another set over the same view gathered: each
  // worker of a parallel walk keeps its own set (a copy of a blank one),
  // joined at the end; a union, so the order of joining does not matter.
  void merge(const ChannelDependencies& other);

  // Adds the dependencies of one multicast tree whose copies travel on
  // `sl`: at each switch s of the tree (masks[s]: its ports in the tree;
  // null when it holds none), a copy entering by tree port p waits for the
  // cable out of every other tree port q, on the VL SL2VL(s, p, q, sl). The
  // copies on a cable are on the VLs its sending switch gives them from
  // each of its other tree ports (port 0 and CA ports included).
  void addTree(std::span<const McPortMask* const> masks, std::uint8_t sl);
  // Adds the wait of traffic entering a switch by the cable `c1` for the
  // cable `c2` leaving it, both on VL `vl`: a turn some multicast copy may
  // take where every tree travels on one VL (routing/plan/SharedTreeVl.h).
  void addTurn(ChannelId c1, ChannelId c2, std::uint8_t vl);
  // Whether that tree makes the dependency (c1, v1) -> (c2, v2).
  bool treeMakes(std::span<const McPortMask* const> masks, std::uint8_t sl, ChannelId c1,
                 std::uint8_t v1, ChannelId c2, std::uint8_t v2) const;

  // What makes the cycle's dependency from (c1, v1) to (c2, v2), appended
  // to c1's name in CreditLoopReport::cycle; empty: nothing appended.
  using CycleCause =
      std::function<std::string(ChannelId c1, std::uint8_t v1, ChannelId c2, std::uint8_t v2)>;
  CreditLoopReport report(std::uint8_t vlsNeeded, const CycleCause& cause = {}) const;

 private:
  using Node = std::uint32_t;  // channel * vls_ + vl
  static constexpr int kAllVls = -1;

  // Slot of the dependency c1 -> c2, where c2 leaves `to`, the switch c1 lands on.
  std::size_t slot(ChannelId c1, SwitchIndex to, ChannelId c2) const {
    return depStart_[c1] + (c2 - view_.firstChannel(to));
  }
  // The VLs on c1 whose traffic waits for c2 on VL v2, as a mask.
  std::uint16_t waits(std::size_t slot, std::uint32_t v2) const {
    if (!perVl_) return static_cast<std::uint16_t>((single_[slot >> 6] >> (slot & 63)) & 1u);
    return depVls_[slot * vls_ + v2];
  }
  // A source named in RoutingResult::pairSls: where it enters, on which SL.
  struct Named {
    SwitchIndex sw{kNoSwitch};
    std::uint8_t inPort{0};
    std::uint8_t sl{0};
  };
  void addSingleVl(const NextHops& hops);
  // Traffic on `sl` from every port of every switch.
  void addPerVl(const NextHops& hops, std::uint8_t sl);
  // Each pair toward the destination on its SL (`pairs`: the destination's
  // named pairs; the rest on SL 0): per SL, the chains from the switches
  // where its sources enter.
  void addPairSls(const NextHops& hops, std::span<const PairSl> pairs);
  // The VLs on which the sources `at` (all at one switch, sorted by switch)
  // send on `sl` out of that switch: those named on `sl`, or for SL 0 every
  // source not named on another SL.
  std::uint16_t namedOriginVls(const NextHops& hops, std::span<const Named> at,
                               std::uint8_t sl) const;
  // Pushes carried_ (the VLs each switch originates on) along the chains,
  // adding each hop's dependencies on `sl`.
  void propagate(const NextHops& hops, std::uint8_t sl);
  // The VLs (mask) copies of the tree leave s by `out` on: SL2VL(s, p, out,
  // sl) of each other tree port p.
  std::uint16_t treeVlsOut(SwitchIndex s, const McPortMask& mask, std::uint8_t out,
                           std::uint8_t sl) const;
  // One cycle among the (channel, VL) nodes, only VL `onlyVl` when >= 0.
  std::optional<std::vector<Node>> findCycle(int onlyVl) const;

  const ForwardingView& view_;
  bool perVl_{false};  // the result has SL2VL tables
  std::uint8_t vls_{1};
  std::vector<std::uint32_t> depStart_;  // per channel: first slot of its dependencies
  // Without SL2VL everything is VL 0: one bit per slot keeps the set in cache.
  std::vector<std::uint64_t> single_;
  // With SL2VL, per (slot, VL of c2): mask of the VLs on c1 whose traffic waits for c2.
  std::vector<std::uint16_t> depVls_;
  std::vector<std::uint16_t> carried_;  // scratch: VLs each switch's out channel carries
  std::vector<std::uint8_t> sls_;       // what add(hops) walks
  std::vector<Named> named_;            // scratch of addPairSls
  std::uint16_t used_{0};               // VLs some walked hop between switches is on
};

// The dependencies of every destination's routes in `view`, on every SL a
// path can carry (add()), walked on `threads` threads (0: all cores); the
// same set on any number.
ChannelDependencies routeDependencies(const ForwardingView& view, unsigned threads);

}  // namespace ibsm::analysis
