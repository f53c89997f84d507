// Checks of ftree's tables shared by its tests. They walk the LFTs
// themselves; of the engine they trust only the documented destination
// order and levels (recogniseFatTree).
//
//   const auto hops = interSwitchHops(fabric, result, caPort, lid);
//   EXPECT_LE(report.linkLoad.max, std::max(1.6 * report.linkLoad.mean, leafFloor(fabric)));
#pragma once

#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/FatTree.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <compare>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ibsm::testing {

inline RoutingResult routeFtree(const Fabric& fabric, const RoutingOptions& options = {}) {
  const auto result = makeFatTreeEngine()->route(fabric, options);
  if (!result) ADD_FAILURE() << "ftree refused: " << result.error().message;
  return result ? *result : RoutingResult{};
}

// The same with "ftree-vl": the pairs apart on a second VL (issue 33).
inline RoutingResult routeFtreeVl(const Fabric& fabric, const RoutingOptions& options = {}) {
  const auto result = makeFatTreeVlEngine()->route(fabric, options);
  if (!result) ADD_FAILURE() << "ftree-vl refused: " << result.error().message;
  return result ? *result : RoutingResult{};
}

// Level of every switch (0 = leaves), from the shape ftree reads.
inline std::map<NodeId, std::size_t> levelsOf(const Fabric& fabric) {
  std::map<NodeId, std::size_t> out;
  const auto shape = recogniseFatTree(fabric);
  if (!shape) ADD_FAILURE() << shape.error().message;
  for (std::size_t l = 0; shape && l < shape->levels.size(); ++l)
    for (const NodeId id : shape->levels[l]) out[id] = l;
  return out;
}

inline std::vector<std::uint8_t> upPorts(const Fabric& fabric, NodeId sw,
                                         const std::map<NodeId, std::size_t>& level) {
  std::vector<std::uint8_t> out;
  const Node& n = fabric.node(sw);
  for (std::uint8_t p = 1; p <= n.numPorts(); ++p) {
    const auto& remote = n.ports[p].remote;
    if (remote && fabric.node(remote->node).isSwitch() && level.at(remote->node) > level.at(sw))
      out.push_back(p);
  }
  return out;
}

struct Hop {
  NodeId sw;
  std::uint8_t port;
  auto operator<=>(const Hop&) const = default;
};

// The inter-switch hops from the switch CA port `from` is cabled to, toward
// `lid`; empty when the walk does not arrive at a non-switch port.
inline std::vector<Hop> interSwitchHops(const Fabric& fabric, const RoutingResult& r, PortRef from,
                                        Lid lid) {
  std::vector<Hop> hops;
  NodeId at = fabric.port(from).remote->node;
  for (std::size_t guard = 0; guard < fabric.size(); ++guard) {
    const std::uint8_t port = r.lfts.at(at).at(lid);
    if (port == kNoRoute || port == 0 || port > fabric.node(at).numPorts()) return {};
    const auto& remote = fabric.node(at).ports[port].remote;
    if (!remote) return {};
    if (!fabric.node(remote->node).isSwitch()) return hops;
    hops.push_back({at, port});
    at = remote->node;
  }
  return {};
}

// Switch hops from `from` to every switch, by breadth-first search over
// inter-switch cables.
inline std::map<NodeId, std::size_t> switchHopsFrom(const Fabric& fabric, NodeId from) {
  std::map<NodeId, std::size_t> hops{{from, 0}};
  std::vector<NodeId> queue{from};
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const NodeId s = queue[head];
    for (const Port& p : fabric.node(s).ports)
      if (p.remote && fabric.node(p.remote->node).isSwitch() && !hops.contains(p.remote->node)) {
        hops[p.remote->node] = hops[s] + 1;
        queue.push_back(p.remote->node);
      }
  }
  return hops;
}

// Busiest-link floor a damaged leaf forces: all traffic between its CA
// ports and the rest has to share its remaining inter-switch cables.
inline double leafFloor(const Fabric& fabric) {
  std::size_t caPorts = 0;
  for (const NodeId id : fabric.endNodes())
    for (const Port& p : fabric.node(id).ports) caPorts += p.connected() && p.lid.value != 0;
  double floor = 0;
  for (const NodeId sw : fabric.switches()) {
    std::size_t cas = 0, cables = 0;
    for (const Port& p : fabric.node(sw).ports) {
      if (!p.remote) continue;
      (fabric.node(p.remote->node).isSwitch() ? cables : cas) += 1;
    }
    if (cas > 0 && cables > 0)
      floor = std::max(floor, double(cas) * double(caPorts - cas) / double(cables));
  }
  return floor;
}

// Every shift permutation over `order` (source i to destination i + shift)
// uses each directed inter-switch cable at most once.
inline void expectShiftPermutationsFree(const Fabric& fabric, const RoutingResult& result,
                                        const std::vector<PortRef>& order,
                                        const std::string& what) {
  const std::size_t n = order.size();
  // Routes of all sources toward each destination, walked once.
  std::vector<std::vector<std::vector<Hop>>> route(n, std::vector<std::vector<Hop>>(n));
  for (std::size_t d = 0; d < n; ++d)
    for (std::size_t s = 0; s < n; ++s)
      if (s != d)
        route[s][d] = interSwitchHops(fabric, result, order[s], fabric.port(order[d]).lid);
  for (std::size_t shift = 1; shift < n; ++shift) {
    std::set<Hop> used;
    for (std::size_t s = 0; s < n; ++s)
      for (const Hop& h : route[s][(s + shift) % n])
        ASSERT_TRUE(used.insert(h).second)
            << what << " shift " << shift << ": two flows on " << fabric.node(h.sw).description
            << "[" << int(h.port) << "]";
  }
}

inline void expectRoutedAndLoopFree(const RouteReport& report) {
  EXPECT_EQ(report.unreachablePairs(), 0u)
      << (report.unreachableExamples.empty() ? "" : report.unreachableExamples[0].stoppedAt);
  EXPECT_TRUE(report.creditLoops.acyclic)
      << "cycle: " << (report.creditLoops.cycle.empty() ? "" : report.creditLoops.cycle[0]);
  EXPECT_EQ(report.creditLoops.vlsNeeded, 1);
}

}  // namespace ibsm::testing
