#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Lids.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <map>
#include <ranges>
#include <set>

#include "tests/routing/engines/RouteChecks.h"
#include "tests/routing/engines/ShapeFabrics.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::testing {
namespace {

RoutingResult minhop(const Fabric& f) {
  auto r = makeMinHopEngine()->route(f, {});
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : RoutingResult{};
}

// Every delivered route is as short as the cabling allows.
void expectEveryPairOnAShortestPath(const Fabric& f, const RoutingResult& r) {
  const auto walk = walkAll(f, r);
  EXPECT_EQ(walk.failures, std::vector<std::string>{});
  const auto dist = switchDistances(f);
  const LidIndex index(f);
  std::size_t longer = 0;
  for (const auto& [key, hops] : walk.hops) {
    const auto target = deliveringSwitch(f, *index.owner(Lid{key.second}));
    if (hops != dist.at({key.first, *target})) ++longer;
  }
  EXPECT_EQ(longer, 0u);
  EXPECT_FALSE(walk.hops.empty());
}

TEST(MinHopEngine, RoutesEverySwitchToEveryLidOnAShortestPath) {
  expectEveryPairOnAShortestPath(twoLevelFatTree(4, 2, 3), minhop(twoLevelFatTree(4, 2, 3)));
  const Fabric tree = threeLevelFatTree(4);
  expectEveryPairOnAShortestPath(tree, minhop(tree));
  const Fabric mesh = grid(3, 3, false, 1);
  expectEveryPairOnAShortestPath(mesh, minhop(mesh));
  const Fabric ring5 = ring(5, 2);
  expectEveryPairOnAShortestPath(ring5, minhop(ring5));
}

TEST(MinHopEngine, RoutesTheSampleFabricsOnShortestPaths) {
  for (const char* name : {"fat-tree-3level-k8.net", "fat-tree-3level-k8-degraded6.net",
                           "dragonfly-a4-p2-h2.net", "fat-tree-2level-k12-trunk2-slowlink.net"}) {
    SCOPED_TRACE(name);
    const Fabric f = sampleFabric(name);
    const auto r = minhop(f);
    expectEveryPairOnAShortestPath(f, r);
    const auto report = analyseRoutes(f, r);
    EXPECT_EQ(report.unreachablePairs(), 0u);
    EXPECT_EQ(report.hops.longerThanShortest, 0u);
  }
}

// Switches weigh each LID by the hosts routing it through them. Counting
// table entries instead, every aggregation switch of a pod would send the
// LIDs its edge switches hand it (every 4th) to the same core.
TEST(MinHopEngine, LoadsEveryLinkOfAFullFatTreeAlike) {
  const Fabric f = sampleFabric("fat-tree-3level-k8.net");
  const auto report = analyseRoutes(f, minhop(f));
  EXPECT_LE(report.linkLoad.maxOverMean, 1.1);
  EXPECT_GT(report.linkLoad.min, 0u);
}

TEST(MinHopEngine, SendsASwitchsOwnLidToPortZeroAndAHostsLidToItsCable) {
  const Fabric f = twoLevelFatTree(2, 1, 2);
  const auto r = minhop(f);
  const NodeId leaf = nodeNamed(f, "leaf0");
  const NodeId host = nodeNamed(f, "leaf0-h1");
  EXPECT_EQ(r.lfts[leaf].at(f.node(leaf).ports[0].lid), 0);
  const PortRef cable = *f.node(host).ports[1].remote;
  ASSERT_EQ(cable.node, leaf);
  EXPECT_EQ(r.lfts[leaf].at(f.node(host).ports[1].lid), cable.port);
}

TEST(MinHopEngine, SizesEveryTableToTheHighestLidAndLeavesNonSwitchesEmpty) {
  const Fabric f = twoLevelFatTree(3, 2, 2, 1, /*lmc=*/1);
  const auto r = minhop(f);
  ASSERT_EQ(r.lfts.size(), f.size());
  const auto size = std::size_t{LidIndex(f).maxLid().value} + 1;
  for (NodeId id = 0; id < f.size(); ++id)
    EXPECT_EQ(r.lfts[id].port.size(), f.node(id).isSwitch() ? size : 0u) << id;
  EXPECT_EQ(r.engine, "minhop");
}

TEST(MinHopEngine, LeavesLidsOfAnotherComponentUnroutedAndCountsThem) {
  ShapeBuilder b;
  for (const char* s : {"a0", "a1", "b0"}) b.addSwitch(s);
  b.link("a0", "a1");
  b.hosts("a0", 1);
  b.hosts("b0", 2);
  const Fabric f = b.build();
  const auto r = minhop(f);
  EXPECT_EQ(walkAll(f, r).failures, std::vector<std::string>{});
  // b0 and its 2 hosts are unreachable from a0 and a1 (6 entries); a0, a1 and
  // a0's host from b0 (3 entries).
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("6 LIDs"), std::string::npos) << r.notes[0];
  EXPECT_NE(r.notes[0].find("9 switch/LID entries"), std::string::npos) << r.notes[0];
}

// Per leaf: how many CA LIDs of other leaves leave through each up port.
std::map<std::uint8_t, int> caLidsPerUpPort(const Fabric& f, const RoutingResult& r, NodeId leaf) {
  std::map<std::uint8_t, int> perPort;
  for (const Port& p : f.node(leaf).ports)
    if (p.remote && f.node(p.remote->node).isSwitch()) perPort[p.number] = 0;
  const LidIndex index(f);
  for (std::uint16_t lid = 1; lid <= index.maxLid().value; ++lid) {
    const auto owner = index.owner(Lid{lid});
    if (!owner || f.node(owner->node).isSwitch()) continue;
    const auto port = r.lfts[leaf].at(Lid{lid});
    if (perPort.contains(port)) ++perPort[port];
  }
  return perPort;
}

void expectUpPortsWithinOne(const Fabric& f, const RoutingResult& r) {
  for (const NodeId s : f.switches()) {
    if (!f.node(s).description.starts_with("leaf")) continue;
    const auto perPort = caLidsPerUpPort(f, r, s);
    const auto [lo, hi] = std::ranges::minmax(perPort | std::views::values);
    EXPECT_LE(hi - lo, 1) << f.node(s).description;
    EXPECT_GT(lo, 0) << f.node(s).description;
  }
}

TEST(MinHopEngine, SpreadsTheLidsALeafSendsUpOverItsUpPortsWithinOne) {
  // 5 leaves x 7 hosts: 28 remote host LIDs per leaf over 3 spines (not a multiple).
  const Fabric f = twoLevelFatTree(5, 3, 7);
  expectUpPortsWithinOne(f, minhop(f));
  // Trunks: 2 cables per spine, 6 up ports.
  const Fabric trunked = twoLevelFatTree(4, 3, 5, /*trunk=*/2);
  expectUpPortsWithinOne(trunked, minhop(trunked));
}

TEST(MinHopEngine, AlternatesTrunkCablesWithTheOtherSpines) {
  // leaf0 ports 1-2 go to spine0, 3-4 to spine1: consecutive host LIDs take
  // spine0, spine1, spine0, spine1 rather than both spine0 cables first.
  const Fabric f = twoLevelFatTree(2, 2, 4, /*trunk=*/2);
  const auto r = minhop(f);
  const NodeId leaf0 = nodeNamed(f, "leaf0");
  std::vector<std::uint8_t> ports;
  for (int h = 0; h < 4; ++h) {
    const NodeId host = nodeNamed(f, fmt::format("leaf1-h{}", h));
    ports.push_back(r.lfts[leaf0].at(f.node(host).ports[1].lid));
  }
  std::ranges::sort(ports);
  EXPECT_EQ(ports, (std::vector<std::uint8_t>{1, 2, 3, 4}));
  const NodeId first = nodeNamed(f, "leaf1-h0");
  const NodeId second = nodeNamed(f, "leaf1-h1");
  const auto p0 = r.lfts[leaf0].at(f.node(first).ports[1].lid);
  const auto p1 = r.lfts[leaf0].at(f.node(second).ports[1].lid);
  EXPECT_NE((p0 - 1) / 2, (p1 - 1) / 2) << "both on the same spine";
}

TEST(MinHopEngine, SpreadsTheLidsOfAnLmcRangeOverDifferentSpines) {
  // LMC 2: each host has 4 LIDs; with 4 spines each LID of a range leaves
  // leaf0 toward a different spine.
  const Fabric f = twoLevelFatTree(2, 4, 3, 1, /*lmc=*/2);
  const auto r = minhop(f);
  const NodeId leaf0 = nodeNamed(f, "leaf0");
  for (int h = 0; h < 3; ++h) {
    const Port& hostPort = f.node(nodeNamed(f, fmt::format("leaf1-h{}", h))).ports[1];
    std::set<NodeId> spines;
    for (std::uint16_t i = 0; i < 4; ++i) {
      const auto port = r.lfts[leaf0].at(Lid{static_cast<std::uint16_t>(hostPort.lid.value + i)});
      spines.insert(f.port({leaf0, port}).remote->node);
    }
    EXPECT_EQ(spines.size(), 4u) << "host " << h;
  }
  expectEveryPairOnAShortestPath(f, r);
}

TEST(MinHopEngine, SpreadsAnLmcRangeOverSpinesEvenWhenOneIsBusier) {
  // leaf2 hangs off spine0 only, so leaf0 already sends leaf2's hosts (lower
  // LIDs) to spine0; leaf1's host still gets one LID through each spine.
  ShapeBuilder b;
  for (const char* s : {"spine0", "spine1", "leaf0", "leaf1", "leaf2"}) b.addSwitch(s);
  b.link("leaf0", "spine0");
  b.link("leaf0", "spine1");
  b.link("leaf1", "spine0");
  b.link("leaf1", "spine1");
  b.link("leaf2", "spine0");
  b.hosts("leaf2", 3);
  b.hosts("leaf1", 1);
  const Fabric f = b.build(/*lmc=*/1);
  const auto r = minhop(f);
  const NodeId leaf0 = nodeNamed(f, "leaf0");
  const Lid base = f.node(nodeNamed(f, "leaf1-h0")).ports[1].lid;
  const auto first = r.lfts[leaf0].at(base);
  const auto second = r.lfts[leaf0].at(Lid{static_cast<std::uint16_t>(base.value + 1)});
  EXPECT_NE(first, second);
  expectEveryPairOnAShortestPath(f, r);
}

}  // namespace
}  // namespace ibsm::testing
