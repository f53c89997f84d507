// What FatTreeApartVl.h derives from the finished tables: every chain of
// every LID's column classed by shape (the pairs on SL 1 and SL 2), and the
// SL2VL entries that keep each SL acyclic on VLs 0 and 1.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <vector>

#include "routing/engines/ftree/FatTreeHub.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::ftree {

struct PairClasses {
  std::vector<PairSl> pairs;  // sorted
  std::uint64_t valleys{0};   // pairs on SL 1
  std::uint64_t peakValleys{0};
  std::uint64_t hubOrdered{0};  // pairs on SL 3: a hub-order chain of no other shape
  std::size_t broken{0};        // (switch, LID) chains of no allowed shape
  Lid exampleLid{};
  SwitchIndex exampleSwitch{0};
  struct Column {
    Lid lid;
    SwitchIndex target;
    std::uint8_t deliver;  // the target's port toward the LID's port (0: itself)
  };
  std::vector<Column> brokenColumns;  // the LIDs of those chains, each once
};

// Walks result.lfts toward every LID of every endpoint. With `hub` (a third
// VL), no pair goes on SL 2, and a chain of no other level shape that climbs
// then descends in the hub order goes on SL 3 (VL 2) rather than counting
// as broken.
PairClasses classifyPairs(const Fabric& fabric, const SwitchGraph& graph,
                          const FatTreeLayout& layout, const RoutingResult& result,
                          const HubOrder* hub);

// The SL no turn drops, for the multicast trees that must turn to reach a
// member above the leaves (routing/multicast/McSl.h gives it to the groups
// whose own SL is dropped somewhere): VL 1 at every switch hop, VL 0 into a
// CA. A tree is carried whatever its shape (a member climbs to the meeting
// point, descends, and may climb again to a host on a spine or core,
// several hops each way); VL 1 because unicast only ever climbs there, so
// the trees' down->up turns meet no climb-then-descend dependency of the
// compute traffic on VL 0. The SA never gives SL 4 to a unicast pair the
// engine names (their SL wins); another pair is climb-then-descend, which
// VL 1 carries acyclically beside the climbs.
inline constexpr std::uint8_t kMulticastSl = 4;

// The VL of SL `sl` entering a switch from `in` and leaving toward `out`
// (FatTreeApartVl.h's table; 15: dropped).
enum class InKind : std::uint8_t { kSource, kFromBelow, kFromAbove };
enum class OutKind : std::uint8_t { kToCa, kUp, kDown };
std::uint8_t apartVl(std::uint8_t sl, InKind in, OutKind out);
// SL 3 when hub-order chains use it: VL 2, dropped where a hop that
// descended in the hub order turns to climb in it.
std::uint8_t hubVl(bool arrivedDescending, bool leavesClimbing);

// One entry per (in port, out port) of every switch: in port 0 or cabled,
// out port cabled and not the in port.
// With `hub`, SL 3 by hubVl and SL 2 like SL 0; else SL 3 like SL 0.
std::vector<Sl2VlEntry> apartSl2Vl(const Fabric& fabric, const SwitchGraph& graph,
                                   const FatTreeLayout& layout, const HubOrder* hub);

}  // namespace ibsm::routing::ftree
