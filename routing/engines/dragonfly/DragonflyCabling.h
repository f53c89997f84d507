// What recognising a dragonfly reads from the cabling, shared by the files
// that do it: each switch's distinct switch neighbours, a union-find to
// join switches into groups, and switch names for messages.
#pragma once

#include <ibsm/Fabric.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing::dragonfly {

// Distinct switch neighbours of every switch, sorted (parallel cables once).
using Neighbours = std::vector<std::vector<SwitchIndex>>;
Neighbours neighbours(const SwitchGraph& g);

inline bool adjacent(const Neighbours& nb, SwitchIndex a, SwitchIndex b) {
  return std::ranges::binary_search(nb[a], b);
}

// "description" (GUID), as an operator finds the switch.
std::string switchName(const Fabric& f, const SwitchGraph& g, SwitchIndex s);

class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  // The lower root stays root, so numbering by first member is stable.
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::uint32_t> parent_;
};

}  // namespace ibsm::routing::dragonfly
