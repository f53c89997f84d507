// sssp's tables balanced per class of pair (issue 33). The balance that
// routes the LIDs (SsspRoutes.h) weighs the loads of all pairs, with those
// between hosts beside; where a fabric has classes (compute pairs, pairs
// with a host above the leaves, pairs with an SHARP aggregation node) the
// busiest link of each falls on a different channel, and a class with few
// pairs (the hosts above the leaves) hardly moves the sum. Here every
// (switch, CA LID) entry may move to another of its fewest-hop channels
// when that lowers the sum over the channels of each class's load over
// that class's busiest, to the eighth power (near enough the largest of
// the classes' ratios, without letting the others grow unseen): the
// entry's routes (its own CAs and every switch's routing through it) leave
// their old path up to where the two paths meet and take the new one.
// Sweeps over every entry are repeated while one lowers the sum, up to
// `sweeps`. Routes keep the fewest switch hops; the VL layers are planned
// afterwards, as for any tables.
#pragma once

#include <array>
#include <cstdint>

#include "routing/engines/sssp/SsspRoutes.h"

namespace ibsm::routing::sssp {

// Busiest channel per class: all pairs, compute, hosts above the leaves,
// aggregation nodes (from the tables' loads).
std::array<std::uint64_t, 4> classBusiest(const SsspTables& tables);

struct RefineStats {
  std::size_t moves{0};  // entries moved to another channel
  unsigned sweeps{0};    // sweeps made
};

RefineStats refineByClass(const Fabric& fabric, const SwitchGraph& graph, const Channels& channels,
                          SsspTables& tables, unsigned sweeps);

}  // namespace ibsm::routing::sssp
