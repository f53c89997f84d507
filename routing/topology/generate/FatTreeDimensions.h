// What a FatTreeSpec builds, counted before anything is built: the switches
// of each level, the ports each declares and where the hosts go. Every check
// of the spec is made here, so the builders only build.
//
//   auto dims = fatTreeDimensions(FatTreeSpec{.levels = 3, .radix = 8, .rails = 4});
//   dims->ports[0];    // 8: an edge switch keeps its radix
#pragma once

#include <ibsm/Error.h>
#include <ibsm/TopologyGenerator.h>

#include <array>

namespace ibsm::topogen {

// Port budget of a leaf (2-level) or edge switch (3-level).
struct LeafPorts {
  int hosts{0};
  int up{0};
};

// Levels count from the hosts: 0 leaves (2 levels) or edges (3), 1 spines or
// aggregation switches, 2 cores. 2 levels are one "pod" of all the leaves.
struct FatTreeDimensions {
  LeafPorts leaf;
  int pods{1};
  int leaves{0};       // per pod
  int uppers{0};       // per pod: spines or aggregation switches
  int coresPerAgg{0};  // 3 levels: the cores one aggregation switch reaches
  int directorPods{0};
  int directorHosts{0};           // per aggregation switch of a director pod
  int railWidth{1};               // HCAs per server
  std::array<int, 3> switches{};  // per level, over the whole fabric
  std::array<int, 3> ioPorts{};   // per level: extra ports for I/O hosts
  std::array<int, 3> ports{};     // per level: radix, I/O ports, aggregation node port last
};

// The dimensions of `spec`, or a message naming the parameter that cannot be built.
[[nodiscard]] Result<FatTreeDimensions> fatTreeDimensions(const FatTreeSpec& spec);

}  // namespace ibsm::topogen
