// The CA ports' own SL2VL tables (issue 33 follow-up). A host sends each
// packet on the VL its port's table gives, which no engine programs: where
// an engine layers SLs on VLs (sssp, dragonfly, ftree-vl), planSubnet() --
// the one step of the dry run and the live SM -- adds one table for every
// linked CA and router port, every SL on VL 0, so SL 1, 2, 4 or 15 never
// leaves a host on a VL its reset table happened to hold (VL 15 drops it).
// A plain fat tree (one VL) gets none. The trees' VL of their own is still
// read off the switches' tables, and the routes are judged as before.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>
#include <ibsm/SubnetPlan.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "routing/multicast/McSl.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::sampleFabric;

SubnetPlan plan(Fabric fabric, const std::string& engine, std::uint8_t maxVls = 8) {
  PlanInputs inputs;
  inputs.engines = {engine};
  inputs.routing.maxVls = maxVls;
  auto p = planSubnet(std::move(fabric), inputs, defaultRegistry());
  if (!p) throw std::runtime_error(p.error().message);
  return std::move(*p);
}

// The end ports' entries of the plan, by port.
std::map<PortRef, const Sl2VlEntry*> endPortTables(const SubnetPlan& p) {
  std::map<PortRef, const Sl2VlEntry*> out;
  for (const Sl2VlEntry& e : p.routing.sl2vl) {
    if (p.fabric.node(e.sw).isSwitch()) continue;
    EXPECT_TRUE(out.emplace(PortRef{e.sw, e.outPort}, &e).second) << "one table a port";
  }
  return out;
}

std::size_t linkedEndPorts(const Fabric& f) {
  std::size_t n = 0;
  for (const NodeId id : f.endNodes())
    for (std::uint8_t p = 1; p <= f.node(id).numPorts(); ++p) n += f.node(id).ports[p].connected();
  return n;
}

struct LayeredCase {
  std::string name;
  std::string net;
  std::string engine;
};
void PrintTo(const LayeredCase& c, std::ostream* os) {
  *os << c.name;
}

class EndPortSl2Vl : public ::testing::TestWithParam<LayeredCase> {
 protected:
  const SubnetPlan plan_ = plan(sampleFabric(GetParam().net), GetParam().engine);
};

TEST_P(EndPortSl2Vl, EveryLinkedCaPortHasOneTableWithEverySlOnVl0) {
  ASSERT_GE(plan_.routing.vlsUsed, 2) << "the engine layers unicast";
  const auto tables = endPortTables(plan_);
  EXPECT_EQ(tables.size(), linkedEndPorts(plan_.fabric));
  const std::array<std::uint8_t, 16> vl0{};
  for (const auto& [port, e] : tables) {
    EXPECT_TRUE(plan_.fabric.port(port).connected()) << plan_.fabric.describe(port);
    EXPECT_EQ(e->inPort, 0) << plan_.fabric.describe(port);
    EXPECT_EQ(e->vl, vl0) << plan_.fabric.describe(port);
  }
}

// After the switches' tables, by node GUID and port: the dry run's NodeIds
// are the file's and the live SM's discovery's, and sl2vl.dump must equal
// `ibsm dump sl2vl` byte for byte.
TEST_P(EndPortSl2Vl, TheCaTablesFollowTheSwitchesByGuidAndPort) {
  const Fabric& f = plan_.fabric;
  const auto& all = plan_.routing.sl2vl;
  const auto first =
      std::ranges::find_if(all, [&](const auto& e) { return !f.node(e.sw).isSwitch(); });
  ASSERT_NE(first, all.end());
  for (auto it = first; it != all.end(); ++it) {
    ASSERT_FALSE(f.node(it->sw).isSwitch()) << "a switch's table after the CA ports'";
    if (it == first) continue;
    const auto& prev = *(it - 1);
    EXPECT_LT(std::pair(f.node(prev.sw).guid.value, prev.outPort),
              std::pair(f.node(it->sw).guid.value, it->outPort));
  }
}

TEST_P(EndPortSl2Vl, TheSwitchesTablesAndTheJudgeAreAsTheEngineLeftThem) {
  std::vector<Sl2VlEntry> switches;
  for (const Sl2VlEntry& e : plan_.routing.sl2vl)
    if (plan_.fabric.node(e.sw).isSwitch()) switches.push_back(e);
  ASSERT_FALSE(switches.empty());
  // The trees' mark: read off the switches alone, as the SA and the dry run
  // read it from the plan's tables.
  EXPECT_EQ(routing::treesHaveAVlOfTheirOwn(plan_.fabric, plan_.routing.sl2vl),
            routing::treesHaveAVlOfTheirOwn(switches));
  EXPECT_EQ(routing::slsCarriedEverywhere(plan_.routing.sl2vl),
            routing::slsCarriedEverywhere(switches))
      << "a CA's table drops no SL";
  EXPECT_TRUE(analyseRoutes(plan_.fabric, plan_.routing).creditLoops.acyclic);
}

INSTANTIATE_TEST_SUITE_P(
    Layered, EndPortSl2Vl,
    ::testing::Values(LayeredCase{"SsspDirector", "fat-tree-3level-k8-director1.net", "sssp"},
                      LayeredCase{"DragonflyPlus", "dragonfly-plus-5groups.net", "dragonfly"},
                      LayeredCase{"DragonflyA4", "dragonfly-a4-p2-h2.net", "dragonfly"},
                      LayeredCase{"FtreeApartVl", "fat-tree-3level-k8-rails4-an-io.net",
                                  "ftree-vl"}),
    [](const ::testing::TestParamInfo<LayeredCase>& info) { return info.param.name; });

// Where a VL is spare above the layers the trees have it to themselves, and
// the plan's tables -- every SL of a CA's on VL 0, SL 15 with the rest --
// still say so (routing/multicast/McSl.h: a CA's table is no turn).
TEST(EndPortSl2VlMark, TheTreesVlOfTheirOwnStandsBesideTheCaTables) {
  for (const auto& [net, engine] : {std::pair{"fat-tree-3level-k8-director1.net", "sssp"},
                                    std::pair{"dragonfly-plus-5groups.net", "dragonfly"}}) {
    const SubnetPlan p = plan(sampleFabric(net), engine);
    ASSERT_FALSE(endPortTables(p).empty()) << net;
    EXPECT_TRUE(routing::treesHaveAVlOfTheirOwn(p.fabric, p.routing.sl2vl)) << net;
    EXPECT_FALSE(routing::treesHaveAVlOfTheirOwn(p.routing.sl2vl))
        << net << ": read as an engine's tables, the CA ports' would hide the mark";
  }
}

TEST(EndPortSl2VlMark, ACaTableAloneIsNoMark) {
  Fabric f = sampleFabric("fat-tree-3level-k8-director1.net");
  const NodeId ca = f.endNodes().front();
  Sl2VlEntry e{.sw = ca, .inPort = 0, .outPort = 1, .vl = {}};
  e.vl[routing::kTreeSl] = 1;  // as if SL 15 were alone on VL 1 there
  EXPECT_FALSE(routing::treesHaveAVlOfTheirOwn(f, std::vector{e}));
}

TEST(EndPortSl2VlPlain, AFatTreeOnOneVlGetsNoSl2VlTable) {
  const SubnetPlan p = plan(sampleFabric("fat-tree-3level-k8.net"), "ftree");
  EXPECT_EQ(p.routing.vlsUsed, 1);
  EXPECT_TRUE(p.routing.sl2vl.empty());
}

TEST(EndPortSl2VlPlain, ACaPortWithoutACableGetsNoTable) {
  Fabric f = sampleFabric("fat-tree-3level-k8-director1.net");
  const NodeId ca = f.endNodes().back();
  f.disconnect(PortRef{ca, 1});
  const SubnetPlan p = plan(std::move(f), "sssp");
  const auto tables = endPortTables(p);
  EXPECT_EQ(tables.size(), linkedEndPorts(p.fabric));
  EXPECT_FALSE(tables.contains(PortRef{ca, 1}));
}

}  // namespace
}  // namespace ibsm
