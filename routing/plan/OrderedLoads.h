// The verdict's walk (judgeTables) made cheap for the columns that climb,
// then only descend in a known order of the switches (ftree's hub order,
// FatTreeHub.h): on a fabric routed under change almost every column is one.
// For 64 destinations at once, per switch two masks: D = the destinations
// whose chain from it only descends and delivers (a descending hop leads to
// a later switch: computed from the last position to the first), U = those
// whose chain climbs into such a one (an earlier switch: first to last,
// after D). A destination whose U is set at every switch is "ordered": every
// switch delivers to it, so it leaves no pair unreachable, and its routes'
// loads are pushed along its chains in the same two directions (the
// climbing switches last position first, then the descending ones first
// position first), as the report's walk pushes them (AnalyseRoutes.cpp):
// only a CA's base LID loads links, and not from the CA itself nor from
// ports routed apart. The other destinations are left to that walk.
//
//   OrderedLoads ordered(view, order);
//   const std::uint64_t done = ordered.take(tile, scratch, load);  // tile: <= 64 destinations
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/analysis/ForwardingView.h"

namespace ibsm {

class OrderedLoads {
 public:
  // `order`: every switch of `view` once; empty or short: nothing is ordered.
  OrderedLoads(const analysis::ForwardingView& view, std::span<const analysis::SwitchIndex> order);

  struct Scratch {
    std::vector<std::uint64_t> down, up, targetOf;
    std::vector<std::uint32_t> flow;  // per switch, 64 lanes
  };

  // Bit i set: destination i of `tile` (at most 64) is ordered; their routes'
  // loads are added to `load` (per channel of the view).
  std::uint64_t take(std::span<const analysis::Destination> tile, Scratch& scratch,
                     std::vector<std::uint64_t>& load) const;

 private:
  std::uint8_t entry(analysis::SwitchIndex s, Lid lid) const { return view_.entry(s, lid); }
  // Per (switch, port): the switch behind it << 2, bit 0 when the hop
  // descends in the order, bit 1 when it climbs; nowhere_ where no channel.
  std::uint32_t hop(analysis::SwitchIndex s, std::uint8_t p) const {
    return p < stride_ ? hop_[s * stride_ + p] : nowhere_;
  }
  analysis::ChannelId channel(analysis::SwitchIndex s, std::uint8_t p) const {
    return channel_[s * stride_ + p];
  }
  std::uint64_t masks(std::span<const analysis::Destination> tile, Scratch& scratch) const;
  void pushLoads(std::span<const analysis::Destination> tile, std::uint64_t lanes, Scratch& scratch,
                 std::vector<std::uint64_t>& load) const;

  const analysis::ForwardingView& view_;
  std::vector<analysis::SwitchIndex> order_;
  std::size_t stride_{0};
  std::uint32_t nowhere_{0};
  std::vector<std::uint32_t> hop_;
  std::vector<analysis::ChannelId> channel_;
  std::vector<std::uint8_t> descends_;  // per switch: some channel leads to a later switch
};

}  // namespace ibsm
