// The SL a multicast group's tree travels on (issue 33). An engine that
// layers unicast on VLs may map an SL to VL 15 at some turns (ftree-vl
// drops SL 0 where a route would descend then climb), and a tree that must
// turn there to reach a member (a host above the leaves, an aggregation
// node on a core) loses every copy sent that way. Such an engine leaves at
// least one SL that no turn drops; a group whose SL some turn drops is
// answered that SL instead.
//
// The choice reads the SL2VL alone, never the tree: a group's SL is what
// IPoIB learns from its join answer and keeps, so it must not change as
// members join and leave and the tree grows a turn. The engine's SL wins
// over the one the group asks for (the creator's, the partition's `sl=`,
// the QoS level's), as the engine's per-pair SLs win for unicast.
//
//   const std::uint16_t carried = routing::slsCarriedEverywhere(sl2vl);
//   const std::uint8_t sl = routing::groupTreeSl(params.sl, carried);
//
// An engine that layers unicast on VLs (sssp, dragonfly) puts every tree on
// the same VL as its layer-0 routes when the group keeps SL 0, and a tree's
// turn plus unicast turns can close a credit loop. Where a data VL is spare
// it gives the trees that VL of their own: it maps kTreeSl, which no
// unicast pair uses, to the spare VL at every turn (giveTreesAVlOfTheirOwn),
// and every group travels on kTreeSl (groupTreeSl's third argument). The
// mark is the SL2VL itself -- kTreeSl alone on its VL at every switch's
// entry (a CA port's own table, all on VL 0, is no turn of a tree) -- so
// the dry run and the SA read it from what the switches are programmed with,
// and no field of RoutingResult (include/ibsm/Routing.h) is needed. The
// trees of several groups share that VL, each rooted apart (McRoots), and
// can close a loop among themselves there (the four groups of
// tests/routing/engines/McOwnVlTest.cpp do on each fabric it routes): the
// judge names it, and no unicast VL is in it.
#pragma once

#include <ibsm/Routing.h>

#include <cstdint>
#include <span>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing {

inline constexpr std::uint16_t kEverySl = 0xFFFF;
// An SL2VL entry's VL 15: packets on that SL are dropped at that turn.
inline constexpr std::uint8_t kDropVl = 15;

// The SL of the trees on a VL of their own. Engines name unicast pairs on
// SLs 1 up to their layers (at most 14), never this one.
inline constexpr std::uint8_t kTreeSl = 15;

// Maps kTreeSl to VL `used` (the first VL the unicast layers leave) at
// every entry of `sl2vl` when `used` < `allowed` (the data VLs the ports
// declare and routing.max_vls allow) and the table is not empty (an
// engine with one layer writes none). Returns whether it did: when no VL
// is spare the trees stay on the groups' SLs, with the unicast layers.
// RoutingResult::vlsUsed stays the VLs unicast needs (what routing.max_vls
// must allow); the trees' VL is the one above them.
inline bool giveTreesAVlOfTheirOwn(std::vector<Sl2VlEntry>& sl2vl, std::uint8_t used,
                                   std::uint8_t allowed) {
  if (sl2vl.empty() || used >= allowed || used >= 15) return false;
  for (Sl2VlEntry& e : sl2vl) e.vl[kTreeSl] = used;
  return true;
}

// Once the trees travel on kTreeSl, no unicast pair may: with no pair
// named (RoutingResult::pairSls) the SA answers, and the judge walks, any SL
// a route carries, SL 15 among them. So where none is named, names one --
// the first switch to itself, which crosses no cable -- on SL 0; every pair
// not named is on SL 0 too.
inline void keepUnicastOffTheTreeSl(const SwitchGraph& graph, RoutingResult& result) {
  if (!result.pairSls.empty()) return;
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    for (const Endpoint& e : graph.endpoints(s))
      if (e.switchPort == 0) {
        result.pairSls.push_back(PairSl{.dlid = e.base, .source = e.owner, .sl = 0});
        return;
      }
}

namespace detail {

// kTreeSl alone on a data VL at `e`.
inline bool treeSlAlone(const Sl2VlEntry& e) {
  const std::uint8_t vl = e.vl[kTreeSl];
  if (vl >= kDropVl) return false;
  for (std::size_t sl = 0; sl < e.vl.size(); ++sl)
    if (sl != kTreeSl && e.vl[sl] == vl) return false;
  return true;
}

}  // namespace detail

// Whether every entry maps kTreeSl to a data VL no other SL maps to at
// that entry (giveTreesAVlOfTheirOwn's mark); false for an empty table.
// For an engine's own tables, which name switches only. Inline, as the
// engines and qos/ (which lays its classes over the unicast layers alone)
// read it without linking the multicast library.
inline bool treesHaveAVlOfTheirOwn(std::span<const Sl2VlEntry> sl2vl) {
  if (sl2vl.empty()) return false;
  for (const Sl2VlEntry& e : sl2vl)
    if (!detail::treeSlAlone(e)) return false;
  return true;
}

// The same mark read off a plan's tables, which hold the CA and router
// ports' own too (planSubnet() adds them with every SL on VL 0, QoS plans
// its own): those are no turn of a tree -- a host's first hop, on no credit
// loop -- so only the switches' entries count; false when there is none.
inline bool treesHaveAVlOfTheirOwn(const Fabric& fabric, std::span<const Sl2VlEntry> sl2vl) {
  bool any = false;
  for (const Sl2VlEntry& e : sl2vl) {
    if (e.sw < fabric.size() && !fabric.node(e.sw).isSwitch()) continue;
    if (!detail::treeSlAlone(e)) return false;
    any = true;
  }
  return any;
}

// The SLs (bit i: SL i) one entry does not map to VL 15.
inline std::uint16_t slsCarried(const Sl2VlEntry& e) {
  std::uint16_t carried = 0;
  for (std::size_t sl = 0; sl < e.vl.size(); ++sl)
    if (e.vl[sl] != kDropVl) carried = static_cast<std::uint16_t>(carried | (1U << sl));
  return carried;
}

// The SLs (bit i: SL i) no entry of `sl2vl` maps to VL 15; every SL when
// the table is empty.
std::uint16_t slsCarriedEverywhere(std::span<const Sl2VlEntry> sl2vl);

// `requested` when every turn carries it; else the lowest SL every turn
// carries; `requested` when no SL is carried everywhere (nothing better).
std::uint8_t groupTreeSl(std::uint8_t requested, std::uint16_t carriedEverywhere);

// kTreeSl when the engine gave the trees a VL of their own (it wins over
// the SL the group asks for, as the engine's SL2VL does above); else the
// rule above. The one rule of the dry run and the SA.
std::uint8_t groupTreeSl(std::uint8_t requested, std::uint16_t carriedEverywhere, bool treesOwnVl);

}  // namespace ibsm::routing
