// Checks of dragonfly routes on degraded fabrics that know nothing of the
// engine: groups come from the generator's names ("g<group>r<router>"), not
// from recognition, and route lengths from walking the LFTs.
//
//   const auto bound = hopsBeyondOneGlobalShortest(fabric, result);
//   EXPECT_EQ(bound.longer, std::vector<std::string>{});
#pragma once

#include <fmt/format.h>
#include <ibsm/Fabric.h>
#include <ibsm/Routing.h>

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tests/routing/engines/RouteChecks.h"

namespace ibsm::testing {

// The group a generated dragonfly router was laid out in, by its name.
inline int groupByName(const Fabric& f, NodeId sw) {
  const std::string& name = f.node(sw).description;
  if (name.size() < 4 || name[0] != 'g' || name.find('r') == std::string::npos)
    throw std::runtime_error("not a generated dragonfly router: " + name);
  return std::stoi(name.substr(1, name.find('r') - 1));
}

// Router cables of `full` that `cut` lacks, by name, in node order.
struct MissingByName {
  std::vector<std::pair<std::string, std::string>> local;
  std::vector<std::pair<std::string, std::string>> global;
};

inline MissingByName missingCables(const Fabric& full, const Fabric& cut) {
  MissingByName out;
  for (const NodeId s : full.switches())
    for (const Port& p : full.node(s).ports) {
      if (!p.remote || p.remote->node <= s || !full.node(p.remote->node).isSwitch()) continue;
      if (cut.port({s, p.number}).remote) continue;
      const NodeId t = p.remote->node;
      auto& list = groupByName(full, s) == groupByName(full, t) ? out.local : out.global;
      list.emplace_back(full.node(s).description, full.node(t).description);
    }
  return out;
}

// Fewest switch hops from `from` to every switch over paths that cross at
// most one global link (a cable between groups), breadth first over (switch,
// global links crossed); kNone where there is no such path.
inline constexpr int kNone = 1 << 20;

inline std::map<NodeId, int> oneGlobalDistances(const Fabric& f, NodeId from) {
  std::map<std::pair<NodeId, int>, int> dist{{{from, 0}, 0}};
  std::deque<std::pair<NodeId, int>> queue{{from, 0}};
  while (!queue.empty()) {
    const auto [u, globals] = queue.front();
    queue.pop_front();
    for (const Port& p : f.node(u).ports) {
      if (p.number == 0 || !p.remote || !f.node(p.remote->node).isSwitch()) continue;
      const NodeId v = p.remote->node;
      const int g = globals + (groupByName(f, u) != groupByName(f, v));
      if (g > 1 || dist.contains({v, g})) continue;
      dist[{v, g}] = dist[{u, globals}] + 1;
      queue.emplace_back(v, g);
    }
  }
  std::map<NodeId, int> out;
  for (const NodeId s : f.switches()) {
    int best = kNone;
    for (const int g : {0, 1})
      if (const auto it = dist.find({s, g}); it != dist.end()) best = std::min(best, it->second);
    out[s] = best;
  }
  return out;
}

struct BoundCheck {
  std::size_t checked{0};           // CA->CA routes between switches with a one-global path
  std::vector<std::string> longer;  // routes longer than that path
  std::size_t withoutOneGlobal{0};  // routes between groups left without a cable
};

// Every CA->CA route (source switch with hosts, destination CA LID on
// another switch) against the shortest path with at most one global link.
inline BoundCheck hopsBeyondOneGlobalShortest(const Fabric& f, const RoutingResult& r) {
  BoundCheck out;
  const auto walk = walkAll(f, r);
  const LidIndex lids(f);
  std::map<NodeId, std::map<NodeId, int>> distances;
  for (const auto& [key, hops] : walk.hops) {
    const auto [s, lid] = key;
    const auto owner = lids.owner(Lid{lid});
    if (!owner || f.node(owner->node).isSwitch() || f.node(s).numPorts() == 0) continue;
    bool hosts = false;
    for (const Port& p : f.node(s).ports) hosts |= p.remote && !f.node(p.remote->node).isSwitch();
    const auto d = deliveringSwitch(f, *owner);
    if (!hosts || !d || *d == s) continue;
    if (!distances.contains(s)) distances[s] = oneGlobalDistances(f, s);
    const int bound = distances[s][*d];
    if (bound == kNone) {
      ++out.withoutOneGlobal;
      continue;
    }
    ++out.checked;
    if (hops > bound)
      out.longer.push_back(fmt::format("{} -> LID {} (\"{}\"): {} hops, {} with one global link",
                                       f.node(s).description, lid, f.node(*d).description, hops,
                                       bound));
  }
  return out;
}

}  // namespace ibsm::testing
