// One builder per topology family, and the degradation that runs after any
// of them; generateNetFile (TopologyGenerator.cpp) strings them together.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/TopologyGenerator.h>

#include <cstdint>

#include "routing/topology/generate/NetBuilder.h"

namespace ibsm::topogen {

// A built fabric and the node its file starts with (a host, so that ibsim
// attaches the SM to a CA as on a real cluster).
struct Generated {
  NetBuilder net;
  NetNode first{0};
};

[[nodiscard]] Result<Generated> buildFatTree(const FatTreeSpec& spec);
[[nodiscard]] Result<Generated> buildDragonfly(const DragonflySpec& spec);
[[nodiscard]] Result<Generated> buildDragonflyPlus(const DragonflyPlusSpec& spec);

// Removes degrade.links inter-switch cables picked from degrade.seed,
// skipping any whose loss would split the switches.
[[nodiscard]] Result<void> degrade(NetBuilder& net, const Degradation& degrade);

// Largest port count a switch may declare: IBA port numbers are 8 bits and
// 255 is reserved.
inline constexpr int kMaxSwitchPorts = 254;

// Every node takes at least one LID, so a bigger fabric could never come up.
[[nodiscard]] Result<void> checkNodeBudget(std::uint64_t switches, std::uint64_t hosts,
                                           std::string_view spec);

}  // namespace ibsm::topogen
