// What ftree accepts as a fat tree, and how it reads one: refusals with
// their reasons, root GUIDs, and the shape recogniseFatTree reports.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/FatTree.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "tests/routing/engines/FatTreeChecks.h"
#include "tests/support/FabricBuilder.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::expectRoutedAndLoopFree;
using testing::generatedFabric;
using testing::interSwitchHops;
using testing::nodeNamed;
using testing::routeFtree;
using testing::sampleFabric;

// ----------------------------------------------------------------- refusals

// Two leaves under two spines, and a management host on spine0.
Fabric hostOnSpine() {
  testing::FabricBuilder b;
  for (const char* s : {"spine0", "spine1", "leaf0", "leaf1"}) b.addSwitch(s, 8);
  b.cable("leaf0", 1, "spine0", 1).cable("leaf0", 2, "spine1", 1);
  b.cable("leaf1", 1, "spine0", 2).cable("leaf1", 2, "spine1", 2);
  b.addHost("h0", "leaf0", 3);
  b.addHost("h1", "leaf1", 3);
  b.addHost("mgmt", "spine0", 8);
  return b.build();
}

TEST(FatTreeEngine, RefusesFabricsThatAreNotFatTreesSayingWhy) {
  const auto refusal = [](const Fabric& f) {
    const auto r = makeFatTreeEngine()->route(f, {});
    return r ? std::string("routed") : r.error().message;
  };
  {
    // Five switches in a ring: a cycle of odd length has no reading on
    // adjacent levels.
    const auto why = refusal(testing::ringFabric(5));
    EXPECT_NE(why.find("close a cycle of odd length"), std::string::npos) << why;
  }
  {
    const auto why = refusal(sampleFabric("dragonfly-a4-p2-h2.net"));
    EXPECT_NE(why.find("cabled to each other"), std::string::npos) << why;
  }
  {
    const auto why = refusal(sampleFabric("dragonfly-plus-5groups.net"));
    EXPECT_NE(why.find("cabled to each other"), std::string::npos) << why;
  }
}

TEST(FatTreeEngine, ReadsAHostOnASpineAsAnUpperCaAndRoutesItShortest) {
  const Fabric f = hostOnSpine();
  const auto shape = recogniseFatTree(f);
  ASSERT_TRUE(shape) << shape.error().message;
  ASSERT_EQ(shape->levels.size(), 2u);
  EXPECT_EQ(shape->levels[1].size(), 2u);
  ASSERT_EQ(shape->upperCas.size(), 1u);
  EXPECT_EQ(f.node(shape->upperCas[0].node).description, "mgmt");
  EXPECT_EQ(shape->caOrder.size(), 2u);
  const RouteReport report = analyseRoutes(f, routeFtree(f));
  expectRoutedAndLoopFree(report);
  EXPECT_EQ(report.hops.longerThanShortest, 0u);
  // The management host is routed apart: its pairs have hop figures of
  // their own and load no link of the compute balance.
  EXPECT_EQ(report.apartPorts, 1u);
  EXPECT_EQ(report.hops.pairs, 2u);       // h0 <-> h1
  EXPECT_EQ(report.apartHops.pairs, 4u);  // mgmt <-> h0, h1
  EXPECT_EQ(report.apartHops.longerThanShortest, 0u);
  std::uint64_t routes = 0;
  for (const auto& link : report.linkLoad.busiest) routes += link.routes;
  EXPECT_EQ(routes, 4u);  // h0 -> h1 and h1 -> h0, two links each
}

TEST(FatTreeEngine, RefusesARootGuidThatIsNotASwitchNamingIt) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 2, .radix = 4});
  const Guid host = f.node(nodeNamed(f, "h0_0")).guid;
  const auto r = makeFatTreeEngine()->route(f, {.rootGuids = {host}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find(fmt::format("{}", host)), std::string::npos)
      << r.error().message;
  const auto unknown = makeFatTreeEngine()->route(f, {.rootGuids = {Guid{0xdead}}});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("0x000000000000dead"), std::string::npos);
}

TEST(FatTreeEngine, RefusesRootsUnderWhichEveryHostHangsOffAnUpperSwitch) {
  // One core of a 3-level tree as the only root puts the edges mid-way.
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 4});
  const auto r = makeFatTreeEngine()->route(f, {.rootGuids = {f.node(nodeNamed(f, "core0")).guid}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no switch is a compute leaf"), std::string::npos)
      << r.error().message;
}

// ------------------------------------------------- aggregation nodes, rails

// Two leaves under two spines; spine0's last port holds a CA on the spine's
// own system image but named like a host, leaf1 port 5 a CA on an image of
// its own named "Mellanox Technologies Aggregation Node".
Fabric treeWithTwoKindsOfAggregationNode() {
  testing::FabricBuilder b;
  for (const char* s : {"spine0", "spine1", "leaf0", "leaf1"}) b.addSwitch(s, 8);
  b.cable("leaf0", 1, "spine0", 1).cable("leaf0", 2, "spine1", 1);
  b.cable("leaf1", 1, "spine0", 2).cable("leaf1", 2, "spine1", 2);
  for (int h = 0; h < 2; ++h) {
    b.addHost(fmt::format("h0_{}", h), "leaf0", std::uint8_t(3 + h));
    b.addHost(fmt::format("h1_{}", h), "leaf1", std::uint8_t(3 + h));
  }
  b.addHost("sharp-spine0", "spine0", 8);
  b.addHost("Mellanox Technologies Aggregation Node", "leaf1", 5);
  Fabric f = b.build();
  const NodeId spine0 = nodeNamed(f, "spine0");
  f.node(spine0).systemImageGuid = Guid{0x7cfe900300000001};
  f.node(nodeNamed(f, "sharp-spine0")).systemImageGuid = Guid{0x7cfe900300000001};
  return f;
}

TEST(FatTreeEngine, RecognisesAggregationNodesByInternalPortAndImageOrByDescription) {
  const Fabric f = treeWithTwoKindsOfAggregationNode();
  const auto shape = recogniseFatTree(f);
  ASSERT_TRUE(shape) << shape.error().message;
  std::set<std::string> names;
  for (const PortRef an : shape->aggregationNodes) names.insert(f.node(an.node).description);
  EXPECT_EQ(names,
            (std::set<std::string>{"sharp-spine0", "Mellanox Technologies Aggregation Node"}));
  EXPECT_TRUE(shape->upperCas.empty());  // spine0's CA is no I/O host: it is the switch's own
  EXPECT_EQ(shape->caOrder.size(), 4u);
  const RoutingResult r = routeFtree(f);
  const auto note = std::ranges::find_if(
      r.notes, [](const std::string& n) { return n.starts_with("aggregation nodes: 2"); });
  ASSERT_NE(note, r.notes.end());
  EXPECT_NE(note->find("1 by port and system image GUID only, 1 by NodeDescription only"),
            std::string::npos)
      << *note;
  const RouteReport report = analyseRoutes(f, r);
  expectRoutedAndLoopFree(report);
  EXPECT_EQ(report.apartPorts, 2u);
}

TEST(FatTreeEngine, ReadsTheFurnishedCapturesOfIbsimAsFatTrees) {
  {
    const Fabric f = sampleFabric("fat-tree-3level-k8-rails4-an-io.ibnetdiscover");
    const auto shape = recogniseFatTree(f);
    ASSERT_TRUE(shape) << shape.error().message;
    EXPECT_EQ(shape->aggregationNodes.size(), 80u);
    EXPECT_EQ(shape->upperCas.size(), 4u);
    EXPECT_EQ(shape->rails, 4u);
    EXPECT_TRUE(shape->completeAndRegular);
    expectRoutedAndLoopFree(analyseRoutes(f, routeFtree(f)));
  }
  {
    const Fabric f = sampleFabric("fat-tree-3level-k8-director1.ibnetdiscover");
    const auto shape = recogniseFatTree(f);
    ASSERT_TRUE(shape) << shape.error().message;
    EXPECT_TRUE(shape->unevenLeaves);
    EXPECT_EQ(shape->levels.size(), 3u);
    EXPECT_EQ(shape->caOrder.size(), 128u);
    expectRoutedAndLoopFree(analyseRoutes(f, routeFtree(f)));
  }
}

// --------------------------------------------------------------- root GUIDs

// A 2-level tree with a spare switch cabled to both spines and no hosts:
// counted up from the leaves it is the only top; named roots say otherwise.
Fabric treeWithSpareSwitch() {
  testing::FabricBuilder b;
  for (const char* s : {"spine0", "spine1", "leaf0", "leaf1", "leaf2", "spare"}) b.addSwitch(s, 8);
  for (int l = 0; l < 3; ++l) {
    const std::string leaf = fmt::format("leaf{}", l);
    b.cable(leaf, 1, "spine0", std::uint8_t(l + 1)).cable(leaf, 2, "spine1", std::uint8_t(l + 1));
    b.addHost(fmt::format("h{}a", l), leaf, 3);
    b.addHost(fmt::format("h{}b", l), leaf, 4);
  }
  b.cable("spare", 1, "spine0", 8).cable("spare", 2, "spine1", 8);
  return b.build();
}

TEST(FatTreeEngine, HonoursRootGuidsAsTheTopLevel) {
  const Fabric f = treeWithSpareSwitch();
  const NodeId spine0 = nodeNamed(f, "spine0"), spine1 = nodeNamed(f, "spine1");
  const auto fromLeaves = recogniseFatTree(f);
  ASSERT_TRUE(fromLeaves);
  EXPECT_EQ(fromLeaves->levels.back(), std::vector<NodeId>{nodeNamed(f, "spare")});

  const std::vector<Guid> roots{f.node(spine0).guid, f.node(spine1).guid};
  const auto fromRoots = recogniseFatTree(f, roots);
  ASSERT_TRUE(fromRoots);
  EXPECT_TRUE(fromRoots->rankedFromRoots);
  ASSERT_EQ(fromRoots->levels.size(), 2u);
  EXPECT_EQ(std::set<NodeId>(fromRoots->levels[1].begin(), fromRoots->levels[1].end()),
            (std::set<NodeId>{spine0, spine1}));

  const auto r = routeFtree(f, {.rootGuids = roots});
  expectRoutedAndLoopFree(analyseRoutes(f, r));
  // Hosts on different leaves meet at a spine, never climbing to the spare.
  const auto hops = interSwitchHops(f, r, *f.findPort(f.node(nodeNamed(f, "h0a")).ports[1].guid),
                                    f.node(nodeNamed(f, "h2b")).ports[1].lid);
  EXPECT_EQ(hops.size(), 2u);
}

// ------------------------------------------------------------ recognition

TEST(RecogniseFatTree, OrdersCaPortsLeafByLeafInPortOrder) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 4});
  const auto shape = recogniseFatTree(f);
  ASSERT_TRUE(shape);
  EXPECT_TRUE(shape->completeAndRegular);
  ASSERT_EQ(shape->levels.size(), 3u);
  std::vector<PortRef> expected;
  for (const NodeId leaf : shape->levels[0])
    for (const Port& p : f.node(leaf).ports)
      if (p.remote && !f.node(p.remote->node).isSwitch()) expected.push_back(*p.remote);
  EXPECT_EQ(shape->caOrder, expected);
  // Leaves of one pod are contiguous.
  for (std::size_t i = 0; i < shape->levels[0].size(); ++i)
    EXPECT_EQ(f.node(shape->levels[0][i]).description, fmt::format("edge{}_{}", i / 2, i % 2));
}

TEST(RecogniseFatTree, SaysADegradedTreeIsNotComplete) {
  const auto shape =
      recogniseFatTree(generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}, {3, 1}));
  ASSERT_TRUE(shape);
  EXPECT_FALSE(shape->completeAndRegular);
}

}  // namespace
}  // namespace ibsm
