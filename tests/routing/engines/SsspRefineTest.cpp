// sssp balances its routes per class of pair (SsspRefine.h): on a fat tree
// with director pods, rails, SHARP aggregation nodes and hosts above the
// leaves (scripts/ftree-kinds.sh's "director pods 2 + rails + AN + I/O")
// every class's busiest link comes out below balanced shortest paths in LID
// order alone, and the compute pairs' below ftree's own on the same tree.
// The classes are counted here by walking every CA pair through the tables,
// with the rule of bench/judge/judge-routes.py (an aggregation node at
// either end; else a host above the leaves at either end: a switch whose
// hosts are fewer than half its cables to switches and than half the median
// host count; else compute), not with the engine's loads.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "routing/engines/sssp/SsspChoice.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using routing::SwitchGraph;
using routing::SwitchIndex;
using testing::generatedFabric;
using testing::lassenLikeSpec;

enum Class : std::size_t { kAll, kCompute, kUpper, kAggregation };
using Figures = std::array<std::uint64_t, 4>;

bool aggregationNode(const Fabric& f, const routing::Endpoint& e) {
  return f.node(e.owner.node).description.find("Aggregation Node") != std::string::npos;
}

// Per switch, its CAs by class: compute, upper, aggregation.
std::vector<std::array<std::uint64_t, 3>> casByClass(const Fabric& f, const SwitchGraph& graph) {
  std::vector<std::array<std::uint64_t, 3>> out(graph.size());
  std::vector<std::uint64_t> hosts(graph.size(), 0), cables(graph.size(), 0), counts;
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    for (const auto& e : graph.endpoints(s).subspan(1))
      (aggregationNode(f, e) ? out[s][2] : hosts[s]) += 1;
    graph.forEachCable(s, [&](SwitchIndex, const routing::Cable&) { ++cables[s]; });
    if (hosts[s] > 0) counts.push_back(hosts[s]);
  }
  std::ranges::sort(counts);
  const std::uint64_t median = counts.empty() ? 0 : counts[(counts.size() - 1) / 2];
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    const bool upper = hosts[s] * 2 < cables[s] && hosts[s] * 2 < median;
    out[s][upper ? 1 : 0] = hosts[s];
  }
  return out;
}

// The busiest inter-switch channel per class over every ordered CA pair.
Figures judge(const Fabric& f, const std::vector<Lft>& lfts) {
  const SwitchGraph graph(f);
  const auto cas = casByClass(f, graph);
  std::map<std::pair<NodeId, std::uint8_t>, Figures> load;
  for (SwitchIndex d = 0; d < graph.size(); ++d) {
    for (const auto& e : graph.endpoints(d).subspan(1)) {
      // A host's switch has hosts of one class only.
      const std::size_t toClass = aggregationNode(f, e) ? 2 : cas[d][1] > 0 ? 1 : 0;
      for (SwitchIndex s = 0; s < graph.size(); ++s) {
        const auto& from = cas[s];
        Figures add{from[0] + from[1] + from[2], 0, 0, from[2]};
        if (toClass == 2)
          add[kAggregation] = add[kAll];
        else if (toClass == 1)
          add[kUpper] = from[0] + from[1];
        else
          add = {add[kAll], from[0], from[1], from[2]};
        for (SwitchIndex at = s; at != d && at != routing::kNoSwitch;) {
          const NodeId id = graph.nodeId(at);
          const std::uint8_t port = lfts[id].at(e.base);
          const auto remote =
              port < f.node(id).ports.size() ? f.node(id).ports[port].remote : std::nullopt;
          if (!remote) break;
          auto& l = load[{id, port}];
          for (std::size_t k = 0; k < 4; ++k) l[k] += add[k];
          at = graph.index(remote->node);
        }
      }
    }
  }
  Figures out{};
  for (const auto& [channel, l] : load)
    for (std::size_t k = 0; k < 4; ++k) out[k] = std::max(out[k], l[k]);
  return out;
}

Fabric directorRailsAnIo() {
  return generatedFabric(FatTreeSpec{.levels = 3,
                                     .radix = 12,
                                     .aggregationNodes = true,
                                     .ioHosts = {{2, 6}},
                                     .directorPods = 2,
                                     .rails = 6});
}

// Balanced shortest paths in LID order alone (no balance per class).
Figures lidOrder(const Fabric& f) {
  const SwitchGraph graph(f);
  const routing::sssp::Channels channels(graph);
  return judge(f, routing::sssp::routeBalanced(f, graph, channels, 4, 1).lfts);
}

Figures sssp(const Fabric& f) {
  RoutingOptions options;
  options.maxVls = 8;
  const auto r = makeSsspEngine()->route(f, options);
  EXPECT_TRUE(r) << r.error().message;
  return r ? judge(f, r->lfts) : Figures{};
}

TEST(SsspRefine, EveryClassBelowLidOrderAndComputeBelowFtreeOnDirectorRailsAnIo) {
  const Fabric f = directorRailsAnIo();
  const auto mine = sssp(f);
  const auto plain = lidOrder(f);
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_GT(plain[k], 0u) << "class " << k << " has no pairs";
    EXPECT_LT(mine[k], plain[k]) << "class " << k;
  }
  const auto ftree = makeFatTreeEngine()->route(f, {});
  ASSERT_TRUE(ftree) << ftree.error().message;
  const auto theirs = judge(f, ftree->lfts);
  EXPECT_LE(mine[kCompute], theirs[kCompute]);
  EXPECT_LE(mine[kAll], theirs[kAll]);
}

// The engine's figures are the walk's: its classes are the judge's.
TEST(SsspRefine, FiguresPerClassAreTheWalksOwn) {
  const Fabric f = directorRailsAnIo();
  const SwitchGraph graph(f);
  const routing::sssp::Channels channels(graph);
  const auto c = routing::sssp::routeByClass(f, graph, channels, 4, 1);
  EXPECT_GT(c.sweeps, 0u);
  EXPECT_GT(c.moved, 0u);
  const auto walked = judge(f, c.tables.lfts);
  EXPECT_EQ(c.busiestAll, walked[kAll]);
  EXPECT_EQ(c.busiestCompute, walked[kCompute]);
  EXPECT_EQ(c.busiestUpper, walked[kUpper]);
  EXPECT_EQ(c.busiestAggregation, walked[kAggregation]);
}

// On the Lassen-like look-alike too, every class comes out below LID order.
TEST(SsspRefine, LassenLikeEveryClassBelowLidOrder) {
  const Fabric f = generatedFabric(lassenLikeSpec());
  const auto mine = sssp(f);
  const auto plain = lidOrder(f);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_LT(mine[k], plain[k]) << "class " << k;
}

// Without classes (a degraded dragonfly: compute pairs only) the balance
// lowers the busiest link or leaves it.
TEST(SsspRefine, OneClassNeverAboveLidOrder) {
  const Fabric f =
      generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2}, Degradation{.links = 5, .seed = 1});
  const auto mine = sssp(f);
  const auto plain = lidOrder(f);
  EXPECT_EQ(mine[kUpper] + mine[kAggregation], 0u);
  EXPECT_LE(mine[kAll], plain[kAll]);
  EXPECT_EQ(mine[kCompute], mine[kAll]);
}

}  // namespace
}  // namespace ibsm
