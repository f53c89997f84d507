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
#include <vector>

namespace ibsm {

// I/O (storage, management) hosts on the switches of one level of a fat
// tree: 1 is the level above the leaves (spines of 2 levels, aggregation
// switches of 3), 2 the cores of 3 levels.
struct IoHosts {
  int level{1};
  int count{0};
};

// Fat tree of identical radix-k switches. levels=2: leaves with k/2 hosts
// (or fewer with oversubscription) and spines; levels=3: the k-ary tree of
// k pods (k/2 edge + k/2 agg each) and (k/2)^2 cores. trunk>1 bundles that
// many parallel cables per switch pair where the radix allows it.
// oversubscription=n means n:1 hosts to up-links at the leaves (spare leaf
// ports stay uncabled); hostsPerLeaf > 0 overrides the host count, e.g. to
// build small fabrics for tests.
//
// The furniture of production trees, each independent of the others:
//   aggregationNodes  every switch gets one more port, its last, cabled to a
//                     1-port CA "Mellanox Technologies Aggregation Node
//                     <switch>" (SHARP, as Switch-IB 2 and Quantum show it)
//                     that shares the switch's system image GUID,
//                     0x7cfe900300000000 + the switch's index in the file;
//   ioHosts           count 1-port CAs "io<level>_<n>" spread round-robin
//                     over the switches of that level, on extra ports after
//                     the radix (ceil(count / switches) each);
//   directorPods      3 levels: the first n pods have no edge switches; their
//                     aggregation switches (director line cards) take k/2
//                     hosts "d<pod>_<agg>_<h>" each on the edges' ports;
//   rails             n >= 2: servers with n HCAs "<server> mlx5_<r>"; HCA r
//                     of server s of a rail group (n consecutive leaves,
//                     edges or director aggregation switches) on port s+1 of
//                     the group's r-th switch; servers "h<group>_<s>" with
//                     the groups of leaves or edges numbered over the fabric,
//                     or "d<pod>_<group>_<s>" in director pods.
// I/O hosts and aggregation nodes follow the compute hosts in the file, so
// the first record stays a compute host and no compute host's GUID moves.
struct FatTreeSpec {
  int levels{2};
  int radix{8};
  int trunk{1};
  int oversubscription{1};
  int hostsPerLeaf{0};
  bool aggregationNodes{false};
  std::vector<IoHosts> ioHosts{};
  int directorPods{0};
  int rails{0};  // 0 or 1: one HCA per server
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
