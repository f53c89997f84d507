// The mask pass that finds, 64 destinations ("lanes") at a time, those whose
// chains climb, then only descend in a given order of the switches (ftree's
// hub order) and deliver: used on the previous tables under change
// (FatTreeHeldColumns.h) and on the result's by the verdict (OrderedLoads.h).
//
// Per switch two masks: D = the lanes whose chain from it only descends and
// delivers, U = those whose chain climbs into such a one. A descending hop
// leads to a later switch, so D is computed from the last position to the
// first; a climbing hop to an earlier one, so U from the first to the last,
// after D:
//   D[s] = delivered at s | OR over lanes i of s's entry going down to t: D[t]_i
//   U[s] = D[s]           | OR over lanes i of s's entry going up to t:   U[t]_i
// A lane whose U is set at every switch holds whole.
//
//   HubOrderedLanes hops(switches, stride);
//   hops.add(s, port, t, climbs);                 // every cable, once
//   masks.start(switches); masks.targetOf[d.sw] |= bit; ...
//   const std::uint64_t whole = hops.whole(order, count, candidates, delivered, masks,
//                                          rowOf, entryOf, hasTable);
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing {

class HubOrderedLanes {
 public:
  // Per tile; `down` and `up` hold one more switch, the "nowhere" one whose
  // masks stay empty.
  struct Masks {
    std::vector<std::uint64_t> down, up, targetOf;
    std::vector<std::uint8_t> rows;  // for the caller: per switch, its 64 entries
    void start(std::size_t switches) {
      down.assign(switches + 1, 0);
      up.assign(switches + 1, 0);
      targetOf.assign(switches, 0);
    }
  };

  HubOrderedLanes() = default;
  // `stride`: ports per switch (the highest port number plus one).
  HubOrderedLanes(std::size_t switches, std::size_t stride)
      : stride_(stride),
        nowhere_(static_cast<std::uint32_t>(switches) << 2),
        hop_(switches * stride, nowhere_),
        descends_(switches, 0) {}

  // The cable out of s's `port` to t, climbing (to an earlier switch of the
  // order) or descending.
  void add(SwitchIndex s, std::uint8_t port, SwitchIndex t, bool climbs) {
    hop_[s * stride_ + port] = (t << 2) | (climbs ? 2u : 1u);
    descends_[s] |= !climbs;
  }

  // The switch behind s's `port` << 2, bit 0 set when the hop descends, bit
  // 1 when it climbs; nowhere (no bit) where no cable is.
  std::uint32_t hop(SwitchIndex s, std::uint8_t port) const {
    return port < stride_ ? hop_[s * stride_ + port] : nowhere_;
  }

  // The lanes (of `candidates`, at most 64) that hold whole, with `masks`
  // left for a pass along their chains. `masks.targetOf` set by the caller
  // (per switch: the lanes it delivers), `delivered`: the lanes whose target
  // delivers on the owner's port. rowOf(s, ports) fills ports[0..count) with
  // s's entries; entryOf(s, i) is one; hasTable(s): false where a switch has
  // no table, whose chains hold nowhere.
  template <typename RowOf, typename EntryOf, typename HasTable>
  std::uint64_t whole(std::span<const SwitchIndex> order, std::size_t count,
                      std::uint64_t candidates, std::uint64_t delivered, Masks& masks,
                      RowOf&& rowOf, EntryOf&& entryOf, HasTable&& hasTable) const {
    std::uint8_t ports[64];
    // Only descending, latest first: a later switch's D is final.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const SwitchIndex s = *it;
      if (!hasTable(s)) continue;
      std::uint64_t bits = 0;
      if (descends_[s]) {  // else a leaf away from the hub: every cable climbs
        rowOf(s, ports);
        for (std::size_t i = 0; i < count; ++i) {
          const std::uint32_t h = hop(s, ports[i]);
          bits |= (std::uint64_t{h & 1u} & (masks.down[h >> 2] >> i)) << i;
        }
      }
      // The target delivers, whatever its entry leads to.
      masks.down[s] = (bits & ~masks.targetOf[s]) | (delivered & masks.targetOf[s]);
    }
    // Climbing into a chain that holds, earliest first.
    std::uint64_t whole = candidates;
    for (const SwitchIndex s : order) {
      if (!hasTable(s)) return 0;
      std::uint64_t bits = masks.down[s];
      for (std::uint64_t rest = ~bits & ~masks.targetOf[s] & whole; rest != 0; rest &= rest - 1) {
        const auto i = static_cast<unsigned>(std::countr_zero(rest));
        const std::uint32_t h = hop(s, entryOf(s, i));
        bits |= (std::uint64_t{(h >> 1) & 1u} & (masks.up[h >> 2] >> i)) << i;
      }
      masks.up[s] = bits;
      whole &= bits;
      if (whole == 0) return 0;
    }
    return whole;
  }

 private:
  std::size_t stride_{0};
  std::uint32_t nowhere_{0};
  std::vector<std::uint32_t> hop_;
  std::vector<std::uint8_t> descends_;  // per switch: some cable leads to a later switch
};

}  // namespace ibsm::routing
