// ftree, specified by what its tables do. Every check walks the produced
// LFTs (through analyseRoutes or the small walker below); the engine's own
// bookkeeping is trusted for nothing but the destination order it documents
// (recogniseFatTree's caOrder).
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/FatTree.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <map>
#include <ranges>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "FabricBuilder.h"
#include "FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::nodeNamed;
using testing::sampleFabric;

RoutingResult routeFtree(const Fabric& fabric, const RoutingOptions& options = {}) {
  const auto result = makeFatTreeEngine()->route(fabric, options);
  if (!result) ADD_FAILURE() << "ftree refused: " << result.error().message;
  return result ? *result : RoutingResult{};
}

// Level of every switch (0 = leaves), from the shape ftree reads.
std::map<NodeId, std::size_t> levelsOf(const Fabric& fabric) {
  std::map<NodeId, std::size_t> out;
  const auto shape = recogniseFatTree(fabric);
  if (!shape) ADD_FAILURE() << shape.error().message;
  for (std::size_t l = 0; shape && l < shape->levels.size(); ++l)
    for (const NodeId id : shape->levels[l]) out[id] = l;
  return out;
}

std::vector<std::uint8_t> upPorts(const Fabric& fabric, NodeId sw,
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
std::vector<Hop> interSwitchHops(const Fabric& fabric, const RoutingResult& r, PortRef from,
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

// Busiest-link floor a damaged leaf forces: all traffic between its CA
// ports and the rest has to share its remaining inter-switch cables.
double leafFloor(const Fabric& fabric) {
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

void expectRoutedAndLoopFree(const RouteReport& report) {
  EXPECT_EQ(report.unreachablePairs(), 0u)
      << (report.unreachableExamples.empty() ? "" : report.unreachableExamples[0].stoppedAt);
  EXPECT_TRUE(report.creditLoops.acyclic)
      << "cycle: " << (report.creditLoops.cycle.empty() ? "" : report.creditLoops.cycle[0]);
  EXPECT_EQ(report.creditLoops.vlsNeeded, 1);
}

// ---------------------------------------------------------------- full trees

struct FullCase {
  std::string name;
  FatTreeSpec spec;
  bool nonBlocking{true};  // as many up cables as CAs at every leaf
};
void PrintTo(const FullCase& c, std::ostream* os) {
  *os << c.name;
}

class FullFatTree : public ::testing::TestWithParam<FullCase> {
 protected:
  const Fabric fabric_ = generatedFabric(GetParam().spec);
  const RoutingResult result_ = routeFtree(fabric_);
};

TEST_P(FullFatTree, RoutesEveryLidFromEverySwitchWithoutCreditLoops) {
  const auto report = analyseRoutes(fabric_, result_);
  expectRoutedAndLoopFree(report);
  for (std::size_t k = 0; k < kPairKinds; ++k) EXPECT_GT(report.pairs[k].routed, 0u) << k;
}

TEST_P(FullFatTree, TakesShortestPathsBetweenCas) {
  EXPECT_EQ(analyseRoutes(fabric_, result_).hops.longerThanShortest, 0u);
}

TEST_P(FullFatTree, SpreadsCaLidsRoutedUpEvenlyOverEachSwitchsUpPorts) {
  const auto level = levelsOf(fabric_);
  for (const NodeId sw : fabric_.switches()) {
    const auto ups = upPorts(fabric_, sw, level);
    if (ups.empty()) continue;
    std::map<std::uint8_t, int> count;
    for (const std::uint8_t p : ups) count[p] = 0;
    for (const NodeId ca : fabric_.endNodes())
      for (const Port& p : fabric_.node(ca).ports) {
        if (!p.connected() || p.lid.value == 0) continue;
        const auto out = result_.lfts[sw].at(p.lid);
        if (count.contains(out)) ++count[out];
      }
    const auto [lo, hi] = std::ranges::minmax(count | std::views::values);
    EXPECT_LE(hi - lo, 1) << fabric_.node(sw).description;
  }
}

TEST_P(FullFatTree, GivesEachCaLidOneDownPath) {
  // Whatever the source, traffic toward a CA LID descends along the same
  // cables: at most one down cable per level carries it.
  const auto level = levelsOf(fabric_);
  const auto shape = recogniseFatTree(fabric_);
  ASSERT_TRUE(shape);
  for (const PortRef dst : shape->caOrder) {
    const Lid lid = fabric_.port(dst).lid;
    std::map<std::size_t, std::set<Hop>> downByLevel;
    for (const PortRef src : shape->caOrder)
      for (const Hop& h : interSwitchHops(fabric_, result_, src, lid)) {
        const NodeId to = fabric_.node(h.sw).ports[h.port].remote->node;
        if (level.at(to) < level.at(h.sw)) downByLevel[level.at(h.sw)].insert(h);
      }
    for (const auto& [l, hops] : downByLevel)
      EXPECT_EQ(hops.size(), 1u) << "LID " << lid.value << " level " << l;
  }
}

TEST_P(FullFatTree, RoutesEveryShiftPermutationWithoutContention) {
  if (!GetParam().nonBlocking) GTEST_SKIP() << "oversubscribed: contention is unavoidable";
  const auto shape = recogniseFatTree(fabric_);
  ASSERT_TRUE(shape);
  ASSERT_TRUE(shape->completeAndRegular);
  const auto& order = shape->caOrder;
  const std::size_t n = order.size();
  // Routes of all sources toward each destination, walked once.
  std::vector<std::vector<std::vector<Hop>>> route(n, std::vector<std::vector<Hop>>(n));
  for (std::size_t d = 0; d < n; ++d)
    for (std::size_t s = 0; s < n; ++s)
      if (s != d)
        route[s][d] = interSwitchHops(fabric_, result_, order[s], fabric_.port(order[d]).lid);
  for (std::size_t shift = 1; shift < n; ++shift) {
    std::set<Hop> used;
    for (std::size_t s = 0; s < n; ++s)
      for (const Hop& h : route[s][(s + shift) % n])
        ASSERT_TRUE(used.insert(h).second)
            << "shift " << shift << ": two flows on " << fabric_.node(h.sw).description << "["
            << int(h.port) << "]";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, FullFatTree,
    ::testing::Values(FullCase{"TwoLevelRadix4", {.levels = 2, .radix = 4}},
                      FullCase{"TwoLevelRadix8", {.levels = 2, .radix = 8}},
                      FullCase{"TwoLevelRadix12", {.levels = 2, .radix = 12}},
                      FullCase{"TwoLevelRadix16", {.levels = 2, .radix = 16}},
                      FullCase{"ThreeLevelRadix4", {.levels = 3, .radix = 4}},
                      FullCase{"ThreeLevelRadix8", {.levels = 3, .radix = 8}},
                      FullCase{"ThreeLevelRadix12", {.levels = 3, .radix = 12}},
                      FullCase{"ThreeLevelRadix16", {.levels = 3, .radix = 16}},
                      FullCase{"TwoLevelRadix8Trunk2", {.levels = 2, .radix = 8, .trunk = 2}},
                      FullCase{"TwoLevelRadix12Trunk3", {.levels = 2, .radix = 12, .trunk = 3}},
                      FullCase{"ThreeLevelRadix8Trunk2", {.levels = 3, .radix = 8, .trunk = 2}},
                      FullCase{"TwoLevelRadix12Oversubscribed2",
                               {.levels = 2, .radix = 12, .oversubscription = 2},
                               false},
                      FullCase{"ThreeLevelRadix8Oversubscribed3",
                               {.levels = 3, .radix = 8, .oversubscription = 3},
                               false}),
    [](const auto& info) { return info.param.name; });

// ------------------------------------------------------------ degraded trees

struct DegradedCase {
  std::string name;
  FatTreeSpec spec;
  Degradation cut;
};
void PrintTo(const DegradedCase& c, std::ostream* os) {
  *os << c.name;
}

class DegradedFatTree : public ::testing::TestWithParam<DegradedCase> {
 protected:
  const Fabric fabric_ = generatedFabric(GetParam().spec, GetParam().cut);
  const RoutingResult result_ = routeFtree(fabric_);
  const RouteReport report_ = analyseRoutes(fabric_, result_);
};

TEST_P(DegradedFatTree, StillRoutesEveryLidFromEverySwitchWithoutCreditLoops) {
  expectRoutedAndLoopFree(report_);
}

TEST_P(DegradedFatTree, KeepsTheBusiestLinkWithinOnePointSixOfTheMean) {
  // Unless a leaf lost so many cables that its own traffic forces more.
  const double bound = std::max(1.6 * report_.linkLoad.mean, 1.05 * leafFloor(fabric_));
  EXPECT_LE(double(report_.linkLoad.max), bound)
      << "max/mean " << report_.linkLoad.maxOverMean << " busiest "
      << report_.linkLoad.busiest.at(0).name;
}

TEST_P(DegradedFatTree, CountsTheCaRoutesLongerThanShortestInItsNotes) {
  const std::regex counted(R"((\d+) of (\d+) CA->CA routes are longer than the fewest)");
  std::smatch m;
  const auto note = std::ranges::find_if(
      result_.notes, [&](const std::string& n) { return std::regex_search(n, m, counted); });
  ASSERT_NE(note, result_.notes.end());
  EXPECT_EQ(std::stoull(m[1]), report_.hops.longerThanShortest);
  EXPECT_EQ(std::stoull(m[2]), report_.hops.pairs);
}

INSTANTIATE_TEST_SUITE_P(
    Cuts, DegradedFatTree,
    ::testing::Values(
        DegradedCase{"Radix12Cut8Seed1", {.levels = 3, .radix = 12}, {8, 1}},
        DegradedCase{"Radix12Cut8Seed2", {.levels = 3, .radix = 12}, {8, 2}},
        DegradedCase{"Radix12Cut8Seed3", {.levels = 3, .radix = 12}, {8, 3}},
        DegradedCase{"Radix12Cut8Seed4", {.levels = 3, .radix = 12}, {8, 4}},
        DegradedCase{"Radix12Cut8Seed11", {.levels = 3, .radix = 12}, {8, 11}},
        DegradedCase{"Radix8Cut4Seed1", {.levels = 3, .radix = 8}, {4, 1}},
        DegradedCase{"Radix8Cut4Seed6", {.levels = 3, .radix = 8}, {4, 6}},
        DegradedCase{"Radix8Cut10Seed2", {.levels = 3, .radix = 8}, {10, 2}},
        DegradedCase{"Radix16Cut10Seed1", {.levels = 3, .radix = 16}, {10, 1}},
        DegradedCase{"Radix16Cut24Seed5", {.levels = 3, .radix = 16}, {24, 5}},
        DegradedCase{"Radix24Cut8Seed1", {.levels = 3, .radix = 24}, {8, 1}},
        DegradedCase{"Radix4Cut2Seed1", {.levels = 3, .radix = 4}, {2, 1}},
        DegradedCase{"TwoLevelRadix12Cut3", {.levels = 2, .radix = 12}, {3, 1}},
        DegradedCase{"TwoLevelRadix16Trunk2Cut5", {.levels = 2, .radix = 16, .trunk = 2}, {5, 3}}),
    [](const auto& info) { return info.param.name; });

TEST(FatTreeEngine, BalancesTheRadix12TreeWithEightCablesCutWithinOnePointSix) {
  for (const std::uint64_t seed : {1, 2, 3, 4, 5, 6}) {
    const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 12}, {8, seed});
    const auto report = analyseRoutes(f, routeFtree(f));
    EXPECT_LE(report.linkLoad.maxOverMean, 1.6) << "seed " << seed;
  }
}

// ------------------------------------------------------------------ samples

TEST(FatTreeEngine, RoutesTheSharedSamples) {
  for (const char* file :
       {"fat-tree-3level-k8.net", "fat-tree-3level-k8.ibnetdiscover",
        "fat-tree-3level-k8-degraded6.net", "fat-tree-3level-k8-degraded6.ibnetdiscover",
        "fat-tree-2level-k12-trunk2-slowlink.net",
        "fat-tree-2level-k12-trunk2-slowlink.ibnetdiscover"}) {
    SCOPED_TRACE(file);
    const Fabric f = sampleFabric(file);
    const auto report = analyseRoutes(f, routeFtree(f));
    expectRoutedAndLoopFree(report);
    EXPECT_LE(double(report.linkLoad.max),
              std::max(1.6 * report.linkLoad.mean, 1.05 * leafFloor(f)));
  }
}

TEST(FatTreeEngine, SpreadsTheTrunkedSampleEvenly) {
  const Fabric f = sampleFabric("fat-tree-2level-k12-trunk2-slowlink.net");
  const auto report = analyseRoutes(f, routeFtree(f));
  EXPECT_EQ(report.linkLoad.max, report.linkLoad.min);
}

// ---------------------------------------------------------------------- LMC

TEST(FatTreeEngine, SendsTheLmcLidsOfACaUpDifferentPorts) {
  for (const auto& [spec, cut] :
       {std::pair{FatTreeSpec{.levels = 3, .radix = 8}, Degradation{}},
        std::pair{FatTreeSpec{.levels = 3, .radix = 8}, Degradation{6, 2}},
        std::pair{FatTreeSpec{.levels = 2, .radix = 8}, Degradation{}}}) {
    const Fabric f = generatedFabric(spec, cut, /*lmc=*/1);
    const auto r = routeFtree(f);
    expectRoutedAndLoopFree(analyseRoutes(f, r));
    const auto level = levelsOf(f);
    for (const NodeId sw : f.switches()) {
      if (level.at(sw) != 0) continue;
      if (upPorts(f, sw, level).size() < 2) continue;
      for (const NodeId ca : f.endNodes())
        for (const Port& p : f.node(ca).ports) {
          if (!p.remote || p.remote->node == sw) continue;
          const auto first = r.lfts[sw].at(p.lid);
          const auto second = r.lfts[sw].at(Lid{std::uint16_t(p.lid.value + 1)});
          EXPECT_NE(first, second) << f.node(sw).description << " LID " << p.lid.value;
        }
    }
  }
}

// ----------------------------------------------------------------- refusals

Fabric ringOfFour() {
  testing::FabricBuilder b;
  for (int i = 0; i < 4; ++i) b.addSwitch("r" + std::to_string(i), 8);
  for (int i = 0; i < 4; ++i)
    b.cable("r" + std::to_string(i), 1, "r" + std::to_string((i + 1) % 4), 2);
  for (int i = 0; i < 4; ++i) b.addHost("h" + std::to_string(i), "r" + std::to_string(i), 3);
  return b.build();
}

// Two leaves under two spines, and a host on spine0.
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
    const auto why = refusal(ringOfFour());
    EXPECT_NE(why.find("both have CAs and are cabled to each other"), std::string::npos) << why;
  }
  {
    const auto why = refusal(hostOnSpine());
    EXPECT_NE(why.find("\"spine0\""), std::string::npos) << why;
    EXPECT_NE(why.find("both have CAs"), std::string::npos) << why;
  }
  {
    const auto why = refusal(sampleFabric("dragonfly-a4-p2-h2.net"));
    EXPECT_NE(why.find("cabled to each other"), std::string::npos) << why;
  }
  {
    const auto why = refusal(sampleFabric("dragonfly-plus-5groups.net"));
    EXPECT_NE(why.find("cabled to each other"), std::string::npos) << why;
  }
  {
    const auto why = refusal(sampleFabric("two-switch-dual-port-hcas.net"));
    EXPECT_NE(why.find("both have CAs"), std::string::npos) << why;
  }
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

TEST(FatTreeEngine, RefusesRootsUnderWhichCasHangOffUpperSwitches) {
  // One core of a 3-level tree as the only root puts the edges mid-way.
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 4});
  const auto r = makeFatTreeEngine()->route(f, {.rootGuids = {f.node(nodeNamed(f, "core0")).guid}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("CAs must hang off leaf switches only"), std::string::npos)
      << r.error().message;
}

// --------------------------------------------------------------- root GUIDs

// A 2-level tree with a spare switch cabled to both spines and no hosts:
// counted up from the leaves it is the only top; named roots say otherwise.
Fabric treeWithSpareSwitch() {
  testing::FabricBuilder b;
  for (const char* s : {"spine0", "spine1", "leaf0", "leaf1", "leaf2", "spare"}) b.addSwitch(s, 8);
  for (int l = 0; l < 3; ++l) {
    const std::string leaf = "leaf" + std::to_string(l);
    b.cable(leaf, 1, "spine0", std::uint8_t(l + 1)).cable(leaf, 2, "spine1", std::uint8_t(l + 1));
    b.addHost("h" + std::to_string(l) + "a", leaf, 3);
    b.addHost("h" + std::to_string(l) + "b", leaf, 4);
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
