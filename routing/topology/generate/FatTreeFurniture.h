// What production fat trees carry beside compute hosts, added once the tree
// is cabled: I/O hosts on the extra ports of one level and a SHARP
// aggregation node on every switch's last port. Both come after the compute
// hosts in the file, so adding them moves no compute host's GUID.
#pragma once

#include <ibsm/TopologyGenerator.h>

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "routing/topology/generate/NetBuilder.h"

namespace ibsm::topogen {

// The switches of each level (0 = leaves or edges) in generation order.
using LevelSwitches = std::array<std::vector<NetNode>, 3>;

// A switch and its aggregation node report one SystemImageGUID, the Mellanox
// OUI (7c:fe:90) and the switch's index in the file: unique per switch and
// far from the GUIDs ibsim gives nodes (CAs from 0x100000, switches from
// 0x200000).
inline constexpr std::uint64_t kAggregationImageGuidBase = 0x7cfe900300000000;

// The NodeDescription NVIDIA switches give their aggregation node; the net
// file adds the switch's name, since ibsim needs unique node names.
inline constexpr std::string_view kAggregationNodeDescription =
    "Mellanox Technologies Aggregation Node";

// I/O host n of a level ("io<level>_<n>") on switch n % switches of that
// level, port radix + 1 + n / switches: round-robin, so the switches of a
// level differ by at most one I/O host.
void addIoHosts(NetBuilder& net, const FatTreeSpec& spec, const LevelSwitches& levels);

// One 1-port aggregation node per switch, on the switch's last port.
void addAggregationNodes(NetBuilder& net);

}  // namespace ibsm::topogen
