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
#pragma once

#include <ibsm/Routing.h>

#include <cstdint>
#include <span>

namespace ibsm::routing {

inline constexpr std::uint16_t kEverySl = 0xFFFF;

// The SLs (bit i: SL i) no entry of `sl2vl` maps to VL 15; every SL when
// the table is empty.
std::uint16_t slsCarriedEverywhere(std::span<const Sl2VlEntry> sl2vl);

// `requested` when every turn carries it; else the lowest SL every turn
// carries; `requested` when no SL is carried everywhere (nothing better).
std::uint8_t groupTreeSl(std::uint8_t requested, std::uint16_t carriedEverywhere);

}  // namespace ibsm::routing
