// Ranking a fat tree's switches from its compute leaves up, when no root
// GUIDs name the top. Real fabrics put hosts where a naive "every switch with
// a CA is a leaf" reading breaks: I/O and management hosts on spines and
// cores, director line-card chips that take hosts beside top-of-rack
// switches (leaves of uneven height). The reading:
//
// 1. Every cable of a fat tree joins two adjacent levels, so the switch
//    graph is bipartite and a switch's level has the parity of its side. A
//    cable inside one side (an odd cycle) means no fat-tree reading exists.
// 2. Leaf-like switches hold at least a quarter of the median number of
//    hosts of the switches that hold any (aggregation nodes are not hosts),
//    and at least half as many hosts as cables to other switches (a leaf
//    spends about half its ports on hosts, a spine or core nearly all on
//    switches): a core with a few storage hosts is not one. The side holding
//    more hosts on leaf-like switches is the leaves' side. A switch below
//    both bars (a rack with few hosts under many up-links) reads as an upper
//    switch; its hosts are then upper CAs, still routed shortest.
// 3. Leaf-like switches of the leaves' side start at height 0, those of the
//    other side at height 1 (a director's line-card chip with hosts beside
//    top-of-rack switches): height is the least start plus switch hops. With
//    1 and 2 every cable then joins adjacent heights.
//
// Which switch is a compute leaf is decided after (FatTreeLayout): one with
// hosts and no switch below it.
#pragma once

#include <ibsm/Error.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "routing/engines/ftree/FatTreeLayout.h"

namespace ibsm::routing::ftree {

// Heights per switch of `layout`, whose cables are collected; `hosts` per
// switch; `name` names a switch for messages.
[[nodiscard]] Result<std::vector<std::uint16_t>> rankFromLeaves(
    const FatTreeLayout& layout, const std::vector<std::uint32_t>& hosts,
    const std::function<std::string(SwitchIndex)>& name);

}  // namespace ibsm::routing::ftree
