// ftree's closed form for switch LIDs (FatTreeSwitchColumns.h) against the
// search it stands in for on complete trees of nested levels: every chain it
// writes is one the legaliser calls legal (nothing to reroute), every switch
// with a climb-then-descend path in the tree's levels takes a shortest one,
// and the switches without one (no common ancestor) reach the target in no
// more hops than the search's hub-order routes. Then the engine's tables, with
// and without LMC, route every pair without a credit loop, and the CAs of one
// switch that takes its switch's column (an upper CA) climb apart.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "routing/engines/ftree/FatTreeColumns.h"
#include "routing/engines/ftree/FatTreeHub.h"
#include "routing/engines/ftree/FatTreeLayout.h"
#include "routing/engines/ftree/FatTreeLegalise.h"
#include "routing/engines/ftree/FatTreeReach.h"
#include "routing/engines/ftree/FatTreeSwitchColumns.h"
#include "routing/graph/SwitchGraph.h"
#include "tests/routing/engines/FatTreeChecks.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using namespace routing::ftree;
using routing::SwitchGraph;
using routing::SwitchIndex;

struct Tree {
  FatTreeSpec spec;
  Degradation cut{};
};

// Complete trees, and trees that lost cables (where the closed form holds
// too: it reads the cables that are there, and the legaliser checks it).
const std::vector<Tree> kTrees{
    {{.levels = 2, .radix = 8}},          {{.levels = 2, .radix = 12}},
    {{.levels = 3, .radix = 8}},          {{.levels = 3, .radix = 12}},
    {{.levels = 2, .radix = 12}, {3, 1}}, {{.levels = 3, .radix = 8}, {1, 4}},
    {{.levels = 3, .radix = 12}, {8, 2}}};

// Many cut trees, as cables go missing in the field: the hub climb on a cut
// tree must hold wherever the cuts fall.
std::vector<Tree> cutTrees() {
  std::vector<Tree> out = kTrees;
  for (const int levels : {2, 3})
    for (const int radix : {8, 12})
      for (const int links : {1, 3, 8})
        for (std::uint64_t seed = 1; seed <= 4; ++seed)
          out.push_back({{.levels = levels, .radix = radix}, {links, seed}});
  return out;
}

std::string nameOf(const Tree& tree) {
  return std::to_string(tree.spec.levels) + " levels, radix " + std::to_string(tree.spec.radix) +
         ", " + std::to_string(tree.cut.links) + " cables cut (seed " +
         std::to_string(tree.cut.seed) + ")";
}

// Hops of s's chain toward the target when it climbs and then only
// descends in the tree's levels; -1 when it does not (or never arrives).
int treeHops(const FatTreeLayout& layout, const std::vector<CableId>& next, SwitchIndex s) {
  bool descending = false;
  for (int hops = 0; hops <= int(layout.switches()); ++hops) {
    if (next[s] == kDeliver) return hops;
    if (next[s] == kNoCable) return -1;
    const SwitchIndex t = layout.to[next[s]];
    const bool up = layout.height[t] > layout.height[s];
    if (up && descending) return -1;
    descending = !up;
    s = t;
  }
  return -1;
}

TEST(FatTreeSwitchColumns, WritesOnlyLegalChainsShortestInTheLevelsAndNoLongerElsewhere) {
  std::size_t climbingOnCutTrees = 0;
  for (const Tree& tree : cutTrees()) {
    SCOPED_TRACE(nameOf(tree));
    const Fabric fabric = testing::generatedFabric(tree.spec, tree.cut);
    const SwitchGraph graph(fabric);
    const auto layout = layoutFatTree(fabric, graph, {});
    ASSERT_TRUE(layout) << layout.error().message;
    const FatTreeReach reach(*layout);
    const bool complete = tree.cut.links == 0;
    ASSERT_EQ(completeAndRegular(*layout, reach), complete);
    const HubOrder hub = hubOrder(*layout, reach);
    const SwitchClimbs climbs(*layout, reach, hub, complete);
    SwitchColumns columns(*layout, reach, climbs);
    ShortestRoutes search(*layout, reach, 0);
    Legaliser judge(*layout, hub), searchLegaliser(*layout, hub);
    std::vector<CableId> next(layout->switches()), searched(layout->switches());
    std::vector<std::uint16_t> dist;
    std::size_t withoutAncestor = 0;
    for (SwitchIndex x = 0; x < layout->switches(); ++x) {
      const std::size_t climbing = columns.column(x, next);
      // Only what it left open (none on a complete tree) is routed anew.
      const std::size_t rerouted = judge.legalise(next, x);
      search.column(x, searched);
      searchLegaliser.legalise(searched, x);
      legalDistances(*layout, reach, x, dist);
      std::size_t far = 0;
      for (SwitchIndex s = 0; s < layout->switches(); ++s) {
        if (dist[s] == kFar) {
          ++far;
          EXPECT_LE(judge.hops(s), searchLegaliser.hops(s)) << "switch " << s << " target " << x;
        } else {
          EXPECT_EQ(treeHops(*layout, next, s), int(dist[s])) << "switch " << s << " target " << x;
        }
      }
      if (complete) {
        EXPECT_EQ(climbing, far) << "target " << x;
      }
      ASSERT_LE(climbing, far) << "target " << x;
      ASSERT_EQ(rerouted, far - climbing) << "target " << x;
      withoutAncestor += far;
      climbingOnCutTrees += complete ? 0 : climbing;
    }
    // Only a 3-level tree has switch pairs without a common ancestor.
    if (tree.spec.levels == 3) {
      EXPECT_GT(withoutAncestor, 0u);
    }
  }
  // Cut trees climb toward the hub too (only the switches below one that
  // lost an up cable are left to the search).
  EXPECT_GT(climbingOnCutTrees, 0u);
}

TEST(FatTreeSwitchColumns, EngineRoutesEveryPairLoopFreeWithAndWithoutLmc) {
  for (const Tree& tree : kTrees) {
    for (const std::uint8_t lmc : {0, 2}) {
      SCOPED_TRACE(nameOf(tree) + ", LMC " + std::to_string(lmc));
      const Fabric fabric = testing::generatedFabric(tree.spec, tree.cut, lmc);
      const auto report = analyseRoutes(fabric, testing::routeFtree(fabric));
      testing::expectRoutedAndLoopFree(report);
      EXPECT_GT(report.pairs[std::size_t(PairKind::SwitchToSwitch)].routed, 0u);
    }
  }
}

// Two switches joined by two cables, a dual-port HCA on each: every route
// between the HCAs crosses one of the two cables, and each direction of each
// carries its share of them.
TEST(FatTreeSwitchColumns, SpreadsTwoSwitchesDualPortHcasEvenlyOverTheirCables) {
  const Fabric fabric = testing::sampleFabric("two-switch-dual-port-hcas.net");
  const auto result = makeAutoEngine()->route(fabric, {});
  ASSERT_TRUE(result) << result.error().message;
  std::vector<PortRef> cas;
  for (const NodeId id : fabric.endNodes())
    for (std::uint8_t p = 1; p <= fabric.node(id).numPorts(); ++p)
      if (fabric.node(id).ports[p].connected()) cas.push_back({id, p});
  std::map<testing::Hop, std::uint64_t> load;
  std::map<std::pair<NodeId, NodeId>, std::uint64_t> crossing, cables;
  for (const PortRef dst : cas)
    for (const PortRef src : cas) {
      const NodeId from = fabric.port(src).remote->node, to = fabric.port(dst).remote->node;
      if (src == dst || from == to) continue;
      ++crossing[{from, to}];
      const auto hops = testing::interSwitchHops(fabric, *result, src, fabric.port(dst).lid);
      ASSERT_EQ(hops.size(), 1u);
      ++load[hops.front()];
    }
  for (const NodeId sw : fabric.switches())
    for (const Port& p : fabric.node(sw).ports)
      if (p.remote && fabric.node(p.remote->node).isSwitch()) ++cables[{sw, p.remote->node}];
  ASSERT_EQ(crossing.size(), 2u);
  for (const auto& [hop, n] : load) {
    const NodeId far = fabric.node(hop.sw).ports[hop.port].remote->node;
    const auto pairs = crossing[{hop.sw, far}], share = cables[{hop.sw, far}];
    EXPECT_LE(n, (pairs + share - 1) / share)
        << fabric.node(hop.sw).description << "[" << int(hop.port) << "]";
  }
}

}  // namespace
}  // namespace ibsm
