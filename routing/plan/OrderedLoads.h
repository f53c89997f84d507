// The verdict's walk (judgeTables) made cheap for the columns that climb,
// then only descend in a known order of the switches (ftree's hub order,
// FatTreeHub.h): on a fabric routed under change almost every column is one.
// For 64 destinations at once, the D/U mask pass of
// routing/graph/HubOrderedLanes.h finds those whose chains climb, then only
// descend in the order and deliver ("ordered"): every switch delivers to
// such a destination, so it leaves no pair unreachable, and its routes'
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
#include "routing/graph/HubOrderedLanes.h"

namespace ibsm {

class OrderedLoads {
 public:
  // `order`: every switch of `view` once; empty or short: nothing is ordered.
  OrderedLoads(const analysis::ForwardingView& view, std::span<const analysis::SwitchIndex> order);

  struct Scratch : routing::HubOrderedLanes::Masks {
    std::vector<std::uint32_t> flow;  // per switch, 64 lanes
  };

  // Bit i set: destination i of `tile` (at most 64) is ordered; their routes'
  // loads are added to `load` (per channel of the view).
  std::uint64_t take(std::span<const analysis::Destination> tile, Scratch& scratch,
                     std::vector<std::uint64_t>& load) const;

 private:
  std::uint8_t entry(analysis::SwitchIndex s, Lid lid) const { return view_.entry(s, lid); }
  analysis::ChannelId channel(analysis::SwitchIndex s, std::uint8_t p) const {
    return channel_[s * stride_ + p];
  }
  std::uint64_t masks(std::span<const analysis::Destination> tile, Scratch& scratch) const;
  void pushLoads(std::span<const analysis::Destination> tile, std::uint64_t lanes, Scratch& scratch,
                 std::vector<std::uint64_t>& load) const;

  const analysis::ForwardingView& view_;
  std::vector<analysis::SwitchIndex> order_;
  std::size_t stride_{0};
  routing::HubOrderedLanes hops_;
  std::vector<analysis::ChannelId> channel_;
};

}  // namespace ibsm
