// Synthetic fabrics for tests, benchmarks and `ibsm topo generate`, written
// as ibsim net files so the same file drives the dry run and the simulator.
//
//   auto net = generateNetFile(FatTreeSpec{.levels = 3, .radix = 24});
//   auto fabric = parseNetFile(*net, "generated");
#pragma once

#include <ibsm/Error.h>

#include <cstdint>
#include <string>
#include <variant>

namespace ibsm {

// Fat tree of identical radix-k switches. levels=2: leaves with k/2 hosts
// (or fewer with oversubscription) and spines; levels=3: the k-ary tree of
// k pods (k/2 edge + k/2 agg each) and (k/2)^2 cores. trunk>1 bundles that
// many parallel cables per switch pair where the radix allows it.
// oversubscription=n means n:1 hosts to up-links at the leaves (spare leaf
// ports stay uncabled); hostsPerLeaf > 0 overrides the host count, e.g. to
// build small fabrics for tests.
struct FatTreeSpec {
  int levels{2};
  int radix{8};
  int trunk{1};
  int oversubscription{1};
  int hostsPerLeaf{0};
};

// Dragonfly (Kim et al.): groups of a routers, fully meshed inside a group;
// p hosts and h global links per router; g groups (0 = a*h+1, the maximum).
// Every pair of groups is linked: once at g = a*h+1, otherwise the spare
// global ports add parallel links, spread so pairs differ by at most one.
struct DragonflySpec {
  int a{4};
  int p{2};
  int h{2};
  int g{0};
};

// Dragonfly+: each group a two-level leaf/spine Clos; hosts on leaves,
// global links on spines; groups may be at most spines*globalPerSpine+1.
struct DragonflyPlusSpec {
  int groups{5};
  int leaves{2};
  int spines{2};
  int hostsPerLeaf{2};
  int globalPerSpine{2};
};

using TopologySpec = std::variant<FatTreeSpec, DragonflySpec, DragonflyPlusSpec>;

// Remove `links` inter-switch cables chosen at random from `seed`, never
// disconnecting the fabric. The draw uses std::mt19937_64 and a fixed
// shuffle, so a seed cuts the same cables on every machine.
struct Degradation {
  int links{0};
  std::uint64_t seed{1};
};

// Node names and order are those of the sample fabrics in tests/data/topologies
// (made with this generator): a host first (where ibsim attaches the SM), ports
// numbered hosts, then local, then up/global.
// Fails with a message naming the parameter when the spec cannot be built.
[[nodiscard]] Result<std::string> generateNetFile(const TopologySpec& spec,
                                                  const Degradation& degrade = {});

}  // namespace ibsm
