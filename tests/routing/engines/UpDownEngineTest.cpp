#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Lids.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <functional>
#include <map>
#include <ostream>
#include <ranges>
#include <set>

#include "tests/routing/engines/RouteChecks.h"
#include "tests/routing/engines/ShapeFabrics.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::testing {
namespace {

RoutingResult updn(const Fabric& f, std::vector<Guid> roots = {}) {
  auto r = makeUpDownEngine()->route(f, RoutingOptions{.rootGuids = std::move(roots)});
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : RoutingResult{};
}

Guid guidOf(const Fabric& f, std::string_view name) {
  return f.node(nodeNamed(f, name)).guid;
}

std::string allNotes(const RoutingResult& r) {
  return fmt::format("{}", fmt::join(r.notes, "\n"));
}

// The two properties updn promises on any topology.
void expectCompleteAndDeadlockFree(const Fabric& f, const RoutingResult& r) {
  const auto walk = walkAll(f, r);
  EXPECT_EQ(walk.failures, std::vector<std::string>{});
  EXPECT_FALSE(walk.hops.empty());
  EXPECT_TRUE(channelDependenciesAcyclic(f, r));
}

struct Shape {
  std::string name;
  std::function<Fabric()> build;
  friend void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.name; }
};

class UpDownOnAnyTopology : public ::testing::TestWithParam<Shape> {};

TEST_P(UpDownOnAnyTopology, RoutesEverySwitchToEveryLidWithoutCreditLoops) {
  const Fabric f = GetParam().build();
  expectCompleteAndDeadlockFree(f, updn(f));
}

std::vector<Shape> shapes() {
  std::vector<Shape> out = {
      {"Ring5", [] { return ring(5, 1); }},
      {"Ring8", [] { return ring(8, 2); }},
      {"Mesh3x3", [] { return grid(3, 3, false, 1); }},
      {"Torus3x3", [] { return grid(3, 3, true, 1); }},
      {"Torus4x4", [] { return grid(4, 4, true, 1); }},
      {"Mesh5x4", [] { return grid(5, 4, false, 2); }},
      {"TwoLevelFatTree", [] { return twoLevelFatTree(6, 3, 4); }},
      {"TwoLevelFatTreeTrunks", [] { return twoLevelFatTree(4, 3, 4, 2); }},
      {"ThreeLevelFatTreeK4", [] { return threeLevelFatTree(4); }},
      {"ThreeLevelFatTreeK6", [] { return threeLevelFatTree(6); }},
      {"RingLmc2", [] { return ring(6, 1, 2); }},
  };
  // Irregular graphs from sparse (nearly trees) to dense, 8 to 40 switches.
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const int switches = 8 + static_cast<int>(seed % 9) * 4;
    const int extra = static_cast<int>(seed % 5) * switches / 2 + 1;
    out.push_back(
        {fmt::format("Random{}", seed), [=] { return randomGraph(switches, extra, seed); }});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Shapes, UpDownOnAnyTopology, ::testing::ValuesIn(shapes()),
                         [](const auto& info) { return info.param.name; });

// The sample fabrics of tests/data/topologies, net files and captures alike.
class UpDownOnSamples : public ::testing::TestWithParam<std::string> {};

TEST_P(UpDownOnSamples, RoutesEverySwitchToEveryLidWithoutCreditLoops) {
  const Fabric f = sampleFabric(GetParam());
  const auto r = updn(f);
  expectCompleteAndDeadlockFree(f, r);
  // The analysis module's own walk agrees.
  const auto report = analyseRoutes(f, r);
  EXPECT_EQ(report.unreachablePairs(), 0u);
  EXPECT_TRUE(report.creditLoops.acyclic)
      << fmt::format("{}", fmt::join(report.creditLoops.cycle, " "));
}

// Switches weigh each LID by the hosts routing it through them, so that the
// aggregation switches of a pod do not all send one LID class to one core.
TEST(UpDownEngine, LoadsEveryLinkOfAFullFatTreeAlike) {
  const Fabric f = sampleFabric("fat-tree-3level-k8.net");
  const auto report = analyseRoutes(f, updn(f));
  EXPECT_LE(report.linkLoad.maxOverMean, 1.1);
  EXPECT_EQ(report.hops.longerThanShortest, 0u);
}

INSTANTIATE_TEST_SUITE_P(Samples, UpDownOnSamples,
                         ::testing::Values("fat-tree-3level-k8.net",
                                           "fat-tree-3level-k8-degraded6.net",
                                           "fat-tree-2level-k12-trunk2-slowlink.net",
                                           "dragonfly-a4-p2-h2.net", "dragonfly-plus-5groups.net",
                                           "two-switch-dual-port-hcas.net",
                                           "fat-tree-3level-k8-degraded6.ibnetdiscover",
                                           "dragonfly-a4-p2-h2.ibnetdiscover"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::ranges::replace_if(
                               name, [](char c) { return !std::isalnum(c); }, '_');
                           return name;
                         });

// Degraded fat trees: links removed at random, several seeds and sizes.
class UpDownOnDegradedFatTrees : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(UpDownOnDegradedFatTrees, RoutesEverySwitchToEveryLidWithoutCreditLoops) {
  const std::uint64_t seed = GetParam();
  const Fabric three =
      generatedFabric(FatTreeSpec{.levels = 3, .radix = 8},
                      Degradation{.links = 4 + static_cast<int>(seed) * 3, .seed = seed});
  expectCompleteAndDeadlockFree(three, updn(three));
  const Fabric two = generatedFabric(FatTreeSpec{.levels = 2, .radix = 12, .trunk = 2},
                                     Degradation{.links = 5, .seed = seed}, /*lmc=*/1);
  expectCompleteAndDeadlockFree(two, updn(two));
}

INSTANTIATE_TEST_SUITE_P(Seeds, UpDownOnDegradedFatTrees, ::testing::Range<std::uint64_t>(1, 9));

TEST(UpDownEngine, RoutesDragonfliesOfSeveralShapes) {
  for (const TopologySpec& spec :
       {TopologySpec{DragonflySpec{.a = 4, .p = 1, .h = 1}},
        TopologySpec{DragonflySpec{.a = 3, .p = 2, .h = 2, .g = 5}},
        TopologySpec{DragonflyPlusSpec{.groups = 4, .leaves = 3, .spines = 2}}}) {
    const Fabric f = generatedFabric(spec, Degradation{.links = 2, .seed = 7});
    expectCompleteAndDeadlockFree(f, updn(f));
  }
}

bool carriesHosts(const Fabric& f, NodeId sw) {
  return std::ranges::any_of(f.node(sw).ports, [&](const Port& p) {
    return p.remote && !f.node(p.remote->node).isSwitch();
  });
}

// On a fat tree the restriction costs host traffic nothing: every route from
// a switch with hosts to a host is as short as the cabling allows. (Traffic
// that switches originate may climb first: in a degraded tree a core cannot
// go down, up and down again to reach an edge switch that lost a link.)
void expectShortestBetweenHosts(const Fabric& f, const RoutingResult& r) {
  const auto walk = walkAll(f, r);
  EXPECT_EQ(walk.failures, std::vector<std::string>{});
  const auto dist = switchDistances(f);
  const LidIndex index(f);
  std::vector<std::string> longer;
  for (const auto& [key, hops] : walk.hops) {
    const auto owner = *index.owner(Lid{key.second});
    if (f.node(owner.node).isSwitch() || !carriesHosts(f, key.first)) continue;
    const auto target = *deliveringSwitch(f, owner);
    if (hops != dist.at({key.first, target}))
      longer.push_back(fmt::format("{} -> LID {}: {} hops instead of {}",
                                   f.node(key.first).description, key.second, hops,
                                   dist.at({key.first, target})));
  }
  EXPECT_EQ(longer, std::vector<std::string>{});
}

TEST(UpDownEngine, TakesShortestPathsToHostsOnFatTrees) {
  const Fabric two = twoLevelFatTree(6, 3, 4);
  expectShortestBetweenHosts(two, updn(two));
  const Fabric three = threeLevelFatTree(6);
  expectShortestBetweenHosts(three, updn(three));
  const Fabric sample = sampleFabric("fat-tree-3level-k8-degraded6.net");
  expectShortestBetweenHosts(sample, updn(sample));
}

TEST(UpDownEngine, DetectsTheTopLevelOfAFatTreeAsRoots) {
  const Fabric two = twoLevelFatTree(4, 2, 2);
  const auto notes = allNotes(updn(two));
  EXPECT_NE(notes.find(fmt::format("{}, {}", guidOf(two, "spine0"), guidOf(two, "spine1"))),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find(fmt::format("{}", guidOf(two, "leaf0"))), std::string::npos) << notes;

  const Fabric three = threeLevelFatTree(4);
  const auto treeNotes = allNotes(updn(three));
  for (const char* core : {"c0.0", "c0.1", "c1.0", "c1.1"})
    EXPECT_NE(treeNotes.find(fmt::format("{}", guidOf(three, core))), std::string::npos)
        << core << "\n"
        << treeNotes;
}

TEST(UpDownEngine, KeepsASpineWithAHostAmongTheRoots) {
  ShapeBuilder b;
  for (const char* s : {"spine0", "spine1", "leaf0", "leaf1", "leaf2"}) b.addSwitch(s);
  for (const char* leaf : {"leaf0", "leaf1", "leaf2"}) {
    b.link(leaf, "spine0");
    b.link(leaf, "spine1");
    b.hosts(leaf, 8);
  }
  b.hosts("spine1", 1);  // e.g. the SM's own node
  const Fabric f = b.build();
  const auto r = updn(f);
  const auto notes = allNotes(r);
  EXPECT_NE(notes.find(fmt::format("{}, {}", guidOf(f, "spine0"), guidOf(f, "spine1"))),
            std::string::npos)
      << notes;
  // Both spines carry leaf-to-leaf traffic.
  const NodeId leaf0 = nodeNamed(f, "leaf0");
  std::set<std::uint8_t> ports;
  for (int h = 0; h < 8; ++h)
    ports.insert(r.lfts[leaf0].at(f.node(nodeNamed(f, fmt::format("leaf1-h{}", h))).ports[1].lid));
  EXPECT_EQ(ports, (std::set<std::uint8_t>{1, 2}));
  expectShortestBetweenHosts(f, r);
}

TEST(UpDownEngine, KeepsACoreThatLostLinksAmongTheRoots) {
  Fabric f = threeLevelFatTree(4);
  const NodeId core = nodeNamed(f, "c0.0");
  f.disconnect({core, 1});
  f.disconnect({core, 2});
  const auto r = updn(f);
  const auto notes = allNotes(r);
  EXPECT_NE(notes.find(fmt::format("{}", guidOf(f, "c0.0"))), std::string::npos) << notes;
  expectShortestBetweenHosts(f, r);
  expectCompleteAndDeadlockFree(f, r);
}

// Ring r0-r1-r2-r3-r0: traffic from r1 to r3 must turn at a root (up, then
// down), so the root decides which way it goes round.
TEST(UpDownEngine, HonoursTheRootsItIsGiven) {
  const Fabric f = ring(4, 1);
  const NodeId r1 = nodeNamed(f, "r1");
  const Lid r3 = f.node(nodeNamed(f, "r3")).ports[0].lid;
  const auto nextHop = [&](const RoutingResult& r) {
    return f.node(f.port({r1, r.lfts[r1].at(r3)}).remote->node).description;
  };
  EXPECT_EQ(nextHop(updn(f, {guidOf(f, "r0")})), "r0");
  EXPECT_EQ(nextHop(updn(f, {guidOf(f, "r2")})), "r2");
  const auto notes = allNotes(updn(f, {guidOf(f, "r2")}));
  EXPECT_NE(notes.find(fmt::format("{}", guidOf(f, "r2"))), std::string::npos) << notes;
  expectCompleteAndDeadlockFree(f, updn(f, {guidOf(f, "r2")}));
}

TEST(UpDownEngine, StaysCompleteWithRootsFarApart) {
  // Roots at opposite corners of a mesh and on two leaves of a fat tree.
  const Fabric mesh = grid(4, 4, false, 1);
  expectCompleteAndDeadlockFree(mesh, updn(mesh, {guidOf(mesh, "0,0"), guidOf(mesh, "3,3")}));
  const Fabric tree = threeLevelFatTree(4);
  expectCompleteAndDeadlockFree(tree, updn(tree, {guidOf(tree, "e0.0"), guidOf(tree, "e3.1")}));
}

TEST(UpDownEngine, RefusesARootGuidThatIsNotASwitchNamingIt) {
  const Fabric f = ring(3, 1);
  const auto unknown = makeUpDownEngine()->route(f, {.rootGuids = {Guid{0xdeadbeef}}});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("0x00000000deadbeef"), std::string::npos)
      << unknown.error().message;
  const Guid host = guidOf(f, "r0-h0");
  const auto ca = makeUpDownEngine()->route(f, {.rootGuids = {guidOf(f, "r1"), host}});
  ASSERT_FALSE(ca);
  EXPECT_NE(ca.error().message.find(fmt::format("{}", host)), std::string::npos)
      << ca.error().message;
}

TEST(UpDownEngine, RoutesEachComponentAndCountsWhatItCannotReach) {
  ShapeBuilder b;
  for (const char* s : {"a0", "a1", "a2", "b0", "b1"}) b.addSwitch(s);
  b.link("a0", "a1");
  b.link("a1", "a2");
  b.link("a2", "a0");
  b.link("b0", "b1");
  b.hosts("a0", 1);
  b.hosts("b1", 1);
  const Fabric f = b.build();
  // A root named for one component only: the other gets detected roots.
  const auto r = updn(f, {guidOf(f, "a1")});
  expectCompleteAndDeadlockFree(f, r);
  const auto notes = allNotes(r);
  EXPECT_NE(notes.find("without one"), std::string::npos) << notes;
  // 4 LIDs of a* unreachable from 2 b switches, 3 LIDs of b* from 3 a switches.
  EXPECT_NE(notes.find("7 LIDs"), std::string::npos) << notes;
  EXPECT_NE(notes.find("17 switch/LID entries"), std::string::npos) << notes;
}

TEST(UpDownEngine, SpreadsTheLidsALeafSendsUpOverItsUpPortsWithinOne) {
  for (const Fabric& f : {twoLevelFatTree(5, 3, 7), twoLevelFatTree(4, 3, 5, /*trunk=*/2)}) {
    const auto r = updn(f);
    for (const NodeId s : f.switches()) {
      if (!f.node(s).description.starts_with("leaf")) continue;
      std::map<std::uint8_t, int> perPort;
      for (const Port& p : f.node(s).ports)
        if (p.remote && f.node(p.remote->node).isSwitch()) perPort[p.number] = 0;
      const LidIndex index(f);
      for (std::uint16_t lid = 1; lid <= index.maxLid().value; ++lid) {
        const auto owner = index.owner(Lid{lid});
        if (!owner || f.node(owner->node).isSwitch()) continue;
        if (const auto port = r.lfts[s].at(Lid{lid}); perPort.contains(port)) ++perPort[port];
      }
      const auto [lo, hi] = std::ranges::minmax(perPort | std::views::values);
      EXPECT_LE(hi - lo, 1) << f.node(s).description;
      EXPECT_GT(lo, 0) << f.node(s).description;
    }
  }
}

}  // namespace
}  // namespace ibsm::testing
