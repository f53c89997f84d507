// The routes of one LID's row of DragonflyTables walked switch by switch,
// for the Valiant planner (DragonflyValiant.h): their channels, their loads,
// and how many share a channel with their range's earlier LIDs'.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "routing/engines/dragonfly/DragonflyRoutes.h"

namespace ibsm::routing::dragonfly {

inline constexpr std::size_t kMaxLaterHops = 8;  // two global links, a local hop around each

// One switch's route toward a LID: its channels (s * stride + port).
struct LaterRoute {
  std::array<std::uint32_t, kMaxLaterHops> channel{};
  std::uint8_t hops{0};
  std::uint8_t globals{0};
  bool reached{false};
};

// From s through `row` toward d, at most kMaxLaterHops hops.
void walkRoute(const PortMap& ports, const std::uint8_t* row, SwitchIndex d, SwitchIndex s,
               LaterRoute& r);

// Marks in `entered` (per switch, 1) every router of d's group but d that a
// route through `row` from a switch of another group passes.
void markEntered(const PortMap& ports, const std::vector<std::uint32_t>& group,
                 const std::uint8_t* row, SwitchIndex d, std::vector<std::uint8_t>& entered);

// The same channels in the same order.
bool sameRoute(const LaterRoute& a, const LaterRoute& b);

// Each CA source's route toward d through `row` onto load (per channel).
void addRouteLoads(const SwitchGraph& graph, const PortMap& ports, const std::uint8_t* row,
                   SwitchIndex d, std::vector<std::uint64_t>& load);

// Per later LID of the range [base, base + count) and source switch, its
// CAs times the earlier LIDs whose route shares a channel with it, summed
// (DragonflyTables::laterConflicts); a range's first 16 LIDs.
std::uint64_t rangeConflicts(const SwitchGraph& graph, const PortMap& ports,
                             const DragonflyTables& t, std::size_t base, std::size_t count);

}  // namespace ibsm::routing::dragonfly
