// Fabrics for tests, ready to route: nodes, cables and fresh LIDs, as the SM
// would hold them after its first sweep of that fabric.
//
//   const Fabric f = ibsm::testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
//   const Fabric g = ibsm::testing::sampleFabric("dragonfly-a4-p2-h2.net", /*lmc=*/1);
//   const NodeId leaf = ibsm::testing::nodeNamed(g, "g0r0");
//
// Every helper throws std::runtime_error on failure: they are for tests only,
// where a broken fixture should stop the test with the reason.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/TopologyGenerator.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace ibsm::testing {

// generateNetFile + parseNetFile + fresh LIDs.
Fabric generatedFabric(const TopologySpec& spec, Degradation degrade = {}, std::uint8_t lmc = 0);

// The Lassen-like look-alike of scripts/apart-figures.sh (its header says
// what was assumed): director pods, rails, aggregation nodes, I/O hosts.
FatTreeSpec lassenLikeSpec();

// A sample fabric of tests/data/topologies (net file or ibnetdiscover
// capture) with fresh LIDs; LIDs a capture already holds are kept, as the SM
// would.
Fabric sampleFabric(std::string_view fileName, std::uint8_t lmc = 0);

// Full path of a sample fabric file in tests/data/topologies.
std::string testTopologyPath(std::string_view fileName);

// Plans LIDs with no saved guid2lid state and writes them into the fabric.
void assignLids(Fabric& fabric, std::uint8_t lmc = 0);

// `switches` switches "r0".."rN-1" in a ring, a host "hI" on each: for N
// odd, a fabric that is neither a fat tree nor a dragonfly.
Fabric ringFabric(int switches);

// The node whose description is `name` (the net file's node name).
NodeId nodeNamed(const Fabric& fabric, std::string_view name);

// Unplugs every cable between each named pair of nodes, as when those cables
// fail; throws when a pair has none. LIDs stay as they were.
struct CablePair {
  std::string_view a;
  std::string_view b;
};
void removeCables(Fabric& fabric, std::initializer_list<CablePair> pairs);

}  // namespace ibsm::testing
