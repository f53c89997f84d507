// A cable from a switch to itself (two spare ports cabled to each other, as
// in two public captures of real clusters) carries no route. planSubnet()
// routes the fabric without it for every engine: a fat tree with such a
// cable is still a fat tree, and its tables equal the clean tree's for every
// LID; the plan names the cable once.
#include <gtest/gtest.h>
#include <ibsm/Dumps.h>
#include <ibsm/Engines.h>
#include <ibsm/LftChanges.h>
#include <ibsm/Report.h>
#include <ibsm/SubnetPlan.h>
#include <ibsm/Topology.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace ibsm {
namespace {

std::string bundledTree() {
  std::ifstream in(std::filesystem::path{IBSM_TEST_TOPOLOGIES} / "fat-tree-3level-k8.net");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The k8 tree with edge0_0 given two spare ports, [9] and [10], cabled to
// each other.
std::string withLoopback(std::string net) {
  const std::string header = "Switch\t8 \"edge0_0\"\n";
  const auto at = net.find(header);
  EXPECT_NE(at, std::string::npos);
  net.replace(at, header.size(), "Switch\t10 \"edge0_0\"\n");
  const std::string last = "[8]\t\"agg0_3\"[1]\n";
  const auto end = net.find(last, at);
  EXPECT_NE(end, std::string::npos);
  net.insert(end + last.size(), "[9]\t\"edge0_0\"[10]\n[10]\t\"edge0_0\"[9]\n");
  return net;
}

Fabric parsed(const std::string& net, std::string_view name) {
  auto f = parseNetFile(net, name);
  EXPECT_TRUE(f) << (f ? "" : f.error().message);
  return f ? std::move(*f) : Fabric{};
}

SubnetPlan plan(Fabric fabric, const std::string& engine) {
  PlanInputs inputs;
  inputs.engines = {engine};
  auto p = planSubnet(std::move(fabric), inputs, defaultRegistry());
  EXPECT_TRUE(p) << (p ? "" : p.error().message);
  return p ? std::move(*p) : SubnetPlan{};
}

class LoopbackCable : public ::testing::TestWithParam<std::string> {};

TEST_P(LoopbackCable, IsLeftOutOfRoutingAndTheTablesEqualTheCleanTrees) {
  const std::string engine = GetParam();
  const SubnetPlan clean = plan(parsed(bundledTree(), "clean.net"), engine);
  const SubnetPlan looped = plan(parsed(withLoopback(bundledTree()), "looped.net"), engine);

  ASSERT_EQ(looped.routing.loopbacks.size(), 1u);
  const auto [a, b] = looped.routing.loopbacks[0];
  EXPECT_EQ(looped.fabric.node(a.node).description, "edge0_0");
  EXPECT_EQ(a.node, b.node);
  EXPECT_EQ(a.port, 9);
  EXPECT_EQ(b.port, 10);
  // The plan's fabric is the fabric as cabled: the cable is still there.
  EXPECT_EQ(looped.fabric.port(a).remote, b);
  EXPECT_TRUE(clean.routing.loopbacks.empty());

  EXPECT_EQ(looped.routing.engine, clean.routing.engine);
  EXPECT_EQ(looped.routing.fallbacks, clean.routing.fallbacks);
  const auto previous = parseLftDump(formatLftDump(clean.fabric, clean.routing), "clean");
  ASSERT_TRUE(previous) << previous.error().message;
  const LftChanges changes = compareLfts(*previous, looped.fabric, looped.routing);
  EXPECT_EQ(changes.switchesCompared, 80u);
  EXPECT_EQ(changes.entriesDiffer, 0u);
  EXPECT_EQ(changes.blocksDiffer, 0u);
  EXPECT_EQ(changes.topsChanged, 0u);

  // The report judges the same routes the same, and names the cable once.
  const RouteReport before = analyseRoutes(clean.fabric, clean.routing);
  const RouteReport after = analyseRoutes(looped.fabric, looped.routing);
  EXPECT_EQ(after.unreachablePairs(), 0u);
  EXPECT_EQ(after.creditLoops.acyclic, before.creditLoops.acyclic);  // minhop has loops on both
  EXPECT_EQ(after.linkLoad.links, before.linkLoad.links);
  EXPECT_EQ(after.linkLoad.max, before.linkLoad.max);
  ASSERT_EQ(after.loopbacks.size(), 1u);
  EXPECT_EQ(after.loopbacks[0].find("\"edge0_0\"[9]"), 0u) << after.loopbacks[0];
  EXPECT_NE(after.loopbacks[0].find("-- \"edge0_0\"[10]"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(EveryEngine, LoopbackCable,
                         ::testing::Values("ftree", "auto", "updn", "minhop"));

TEST(LoopbackCableUnderChange, IsNoChangeOfTheFabric) {
  // Routing from the tables held, as the live SM does each sweep: the same
  // looped fabric again is no capacity lost or gained.
  const SubnetPlan first = plan(parsed(withLoopback(bundledTree()), "looped.net"), "ftree");
  PlanInputs inputs;
  inputs.engines = {"ftree"};
  inputs.previous =
      std::make_shared<const PreviousRoutes>(previousRoutesOf(first.fabric, first.routing));
  auto again =
      planSubnet(parsed(withLoopback(bundledTree()), "looped.net"), inputs, defaultRegistry());
  ASSERT_TRUE(again) << again.error().message;
  ASSERT_TRUE(again->stable);
  EXPECT_NE(again->stable->change, FabricChange::CapacityLost);
  EXPECT_NE(again->stable->change, FabricChange::CapacityGained);
  EXPECT_EQ(again->routing.engine, "ftree");
  for (NodeId s = 0; s < first.fabric.size(); ++s)
    EXPECT_EQ(again->routing.lfts[s].port, first.routing.lfts[s].port) << s;
}

}  // namespace
}  // namespace ibsm
