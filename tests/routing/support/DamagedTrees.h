// Damaged trees and spoilt tables for the tests of routing under change
// (held columns, ordered loads, copied columns): random cuts of a tree's
// cables and random entries of its tables set wrong, from a seeded rng so
// that every run makes the same ones.
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <algorithm>
#include <random>
#include <vector>

namespace ibsm::testing {

// `full` without `cuts` random cables between switches.
inline Fabric cutCables(const Fabric& full, int cuts, std::mt19937& rng) {
  Fabric f = full;
  std::vector<PortRef> cables;
  for (const NodeId s : f.switches())
    for (const Port& p : f.node(s).ports)
      if (p.remote && f.node(p.remote->node).isSwitch() && s < p.remote->node)
        cables.push_back({s, p.number});
  std::ranges::shuffle(cables, rng);
  for (int k = 0; k < cuts && k < static_cast<int>(cables.size()); ++k) f.disconnect(cables[k]);
  return f;
}

// Sets `count` random entries to a random port (or none).
inline void spoilEntries(std::vector<Lft>& tables, int count, std::mt19937& rng) {
  std::vector<std::size_t> switches;
  for (std::size_t n = 0; n < tables.size(); ++n)
    if (!tables[n].port.empty()) switches.push_back(n);
  for (int k = 0; k < count; ++k) {
    auto& port = tables[switches[rng() % switches.size()]].port;
    port[1 + rng() % (port.size() - 1)] = rng() % 4 == 0 ? kNoRoute : rng() % 20;
  }
}

}  // namespace ibsm::testing
