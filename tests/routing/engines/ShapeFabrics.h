// Small fabrics of the classic shapes, built by hand for the engine tests
// (rings, grids, fat trees, random graphs): each switch's ports are used in
// order, inter-switch cables first, then hosts.
//
//   const Fabric f = ring(5, /*hostsPerSwitch=*/1);
#pragma once

#include <fmt/format.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "tests/support/FabricBuilder.h"

namespace ibsm::testing {

class ShapeBuilder {
 public:
  explicit ShapeBuilder(std::uint8_t ports = 36) : ports_(ports) {}
  void addSwitch(const std::string& name) { builder_.addSwitch(name, ports_); }
  void link(const std::string& a, const std::string& b) {
    builder_.cable(a, nextPort(a), b, nextPort(b));
  }
  void hosts(const std::string& sw, int count) {
    for (int i = 0; i < count; ++i) {
      const auto port = nextPort(sw);
      builder_.addHost(fmt::format("{}-h{}", sw, i), sw, port);
    }
  }
  Fabric build(std::uint8_t lmc = 0) const { return builder_.build(lmc); }

 private:
  std::uint8_t nextPort(const std::string& sw) { return ++used_[sw]; }

  std::uint8_t ports_;
  FabricBuilder builder_;
  std::map<std::string, std::uint8_t> used_;
};

inline Fabric ring(int switches, int hostsPerSwitch, std::uint8_t lmc = 0) {
  ShapeBuilder b;
  for (int i = 0; i < switches; ++i) b.addSwitch(fmt::format("r{}", i));
  for (int i = 0; i < switches; ++i)
    b.link(fmt::format("r{}", i), fmt::format("r{}", (i + 1) % switches));
  for (int i = 0; i < switches; ++i) b.hosts(fmt::format("r{}", i), hostsPerSwitch);
  return b.build(lmc);
}

// A w x h grid of switches named "x,y"; wrap = a torus.
inline Fabric grid(int w, int h, bool wrap, int hostsPerSwitch) {
  ShapeBuilder b;
  const auto name = [](int x, int y) { return fmt::format("{},{}", x, y); };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) b.addSwitch(name(x, y));
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      if (x + 1 < w || (wrap && w > 2)) b.link(name(x, y), name((x + 1) % w, y));
      if (y + 1 < h || (wrap && h > 2)) b.link(name(x, y), name(x, (y + 1) % h));
    }
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) b.hosts(name(x, y), hostsPerSwitch);
  return b.build();
}

// Leaves "leafN" with hosts, spines "spineN"; every leaf has `trunk` cables
// to every spine. Leaf ports: spine cables first (spine by spine), then hosts.
inline Fabric twoLevelFatTree(int leaves, int spines, int hostsPerLeaf, int trunk = 1,
                              std::uint8_t lmc = 0) {
  ShapeBuilder b;
  for (int s = 0; s < spines; ++s) b.addSwitch(fmt::format("spine{}", s));
  for (int l = 0; l < leaves; ++l) b.addSwitch(fmt::format("leaf{}", l));
  for (int l = 0; l < leaves; ++l)
    for (int s = 0; s < spines; ++s)
      for (int t = 0; t < trunk; ++t) b.link(fmt::format("leaf{}", l), fmt::format("spine{}", s));
  for (int l = 0; l < leaves; ++l) b.hosts(fmt::format("leaf{}", l), hostsPerLeaf);
  return b.build(lmc);
}

// The k-ary 3-level fat tree: k pods of k/2 edge ("eP.i") and k/2 aggregation
// ("aP.i") switches, (k/2)^2 cores ("cG.j": core j of group G, cabled to
// aggregation switch G of every pod), k/2 hosts per edge switch.
inline Fabric threeLevelFatTree(int k) {
  ShapeBuilder b(static_cast<std::uint8_t>(k));
  const int half = k / 2;
  for (int g = 0; g < half; ++g)
    for (int j = 0; j < half; ++j) b.addSwitch(fmt::format("c{}.{}", g, j));
  for (int p = 0; p < k; ++p)
    for (int i = 0; i < half; ++i) {
      b.addSwitch(fmt::format("a{}.{}", p, i));
      b.addSwitch(fmt::format("e{}.{}", p, i));
    }
  for (int p = 0; p < k; ++p)
    for (int g = 0; g < half; ++g) {
      for (int j = 0; j < half; ++j)
        b.link(fmt::format("a{}.{}", p, g), fmt::format("c{}.{}", g, j));
      for (int i = 0; i < half; ++i)
        b.link(fmt::format("e{}.{}", p, i), fmt::format("a{}.{}", p, g));
    }
  for (int p = 0; p < k; ++p)
    for (int i = 0; i < half; ++i) b.hosts(fmt::format("e{}.{}", p, i), half);
  return b.build();
}

// A connected random graph of `switches` switches: a random spanning tree
// plus `extraLinks` random links (no self links, no parallel cables), one
// host on every other switch.
inline Fabric randomGraph(int switches, int extraLinks, unsigned seed) {
  std::mt19937 rng(seed);
  ShapeBuilder b(64);
  const auto name = [](int i) { return fmt::format("s{}", i); };
  for (int i = 0; i < switches; ++i) b.addSwitch(name(i));
  std::set<std::pair<int, int>> links;
  for (int i = 1; i < switches; ++i) {
    const int j = std::uniform_int_distribution<int>(0, i - 1)(rng);
    links.emplace(j, i);
  }
  for (int tries = 0;
       tries < 50 * extraLinks && static_cast<int>(links.size()) < switches - 1 + extraLinks;
       ++tries) {
    int a = std::uniform_int_distribution<int>(0, switches - 1)(rng);
    int c = std::uniform_int_distribution<int>(0, switches - 1)(rng);
    if (a == c) continue;
    links.emplace(std::min(a, c), std::max(a, c));
  }
  for (const auto& [a, c] : links) b.link(name(a), name(c));
  for (int i = 0; i < switches; i += 2) b.hosts(name(i), 1);
  return b.build();
}

}  // namespace ibsm::testing
