// The previous tables as planSubnet takes them (SubnetPlan.h): by NodeId of
// the fabric they were routed for, named by GUID. A fabric whose switches
// hold the same NodeIds routes from them as they are, with no copy of tens
// of MB on the way to the first block written; any other placement is
// copied by GUID, and either way routing under change gives the same
// tables.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/SubnetPlan.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::nodeNamed;

struct Planned {
  Fabric fabric;
  RoutingResult routing;
};

Planned planned(const Fabric& fabric) {
  PlanInputs inputs;
  inputs.engines = {"ftree"};
  auto plan = planSubnet(fabric, inputs, defaultRegistry());
  if (!plan) ADD_FAILURE() << plan.error().message;
  return plan ? Planned{plan->fabric, plan->routing} : Planned{fabric, {}};
}

Fabric tree() {
  return generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
}

// The same entries in reverse: each switch's away from its NodeId.
PreviousRoutes reversed(const PreviousRoutes& placed) {
  PreviousRoutes out = placed;
  std::ranges::reverse(out.guids);
  std::ranges::reverse(out.lfts);
  return out;
}

TEST(PreviousRoutes, OfAPlanAreItsTablesByNodeIdNamedByGuid) {
  const Planned before = planned(tree());
  const PreviousRoutes previous = previousRoutesOf(before.fabric, before.routing);
  ASSERT_EQ(previous.lfts.size(), before.fabric.size());
  ASSERT_EQ(previous.guids.size(), before.fabric.size());
  for (NodeId n = 0; n < before.fabric.size(); ++n) {
    const Node& node = before.fabric.node(n);
    EXPECT_EQ(previous.guids[n], node.isSwitch() ? node.guid : Guid{}) << node.description;
    EXPECT_EQ(previous.lfts[n].port,
              node.isSwitch() ? before.routing.lfts[n].port : std::vector<std::uint8_t>{})
        << node.description;
  }
}

TEST(PreviousRoutes, FromTablesWithoutTheirFabricKeepTheOrderAndTheFirstOfAGuid) {
  const Lft a{{0xFF, 1, 2}}, b{{0xFF, 3, 4}}, c{{0xFF, 5, 6}};
  const PreviousRoutes previous =
      previousRoutesFrom({{Guid{7}, a}, {Guid{9}, b}, {Guid{7}, c}}, std::nullopt);
  EXPECT_EQ(previous.guids, (std::vector<Guid>{Guid{7}, Guid{9}}));
  ASSERT_EQ(previous.lfts.size(), 2u);
  EXPECT_EQ(previous.lfts[0].port, a.port);
  EXPECT_EQ(previous.lfts[1].port, b.port);
}

TEST(PreviousRoutes, FromTablesOfSwitchesTheFabricLacksListThemAfterItsNodes) {
  const Planned before = planned(tree());
  const Lft gone{{0xFF, 1}};
  const PreviousRoutes previous = previousRoutesFrom(
      {{Guid{0xdead}, gone}, {before.fabric.node(nodeNamed(before.fabric, "core0")).guid, gone}},
      before.fabric);
  ASSERT_EQ(previous.lfts.size(), before.fabric.size() + 1);
  EXPECT_EQ(previous.guids.back(), Guid{0xdead});
  EXPECT_EQ(previous.lfts[nodeNamed(before.fabric, "core0")].port, gone.port);
}

TEST(PreviousRoutes, AreTakenAsTheyAreByAFabricWithTheSameNodeIds) {
  const Planned before = planned(tree());
  Fabric cut = before.fabric;
  testing::removeCables(cut, {{"edge1_2", "agg1_0"}});
  const PreviousRoutes previous = previousRoutesOf(before.fabric, before.routing);
  std::vector<Lft> copy;
  EXPECT_EQ(&previousByNode(cut, previous, copy), &previous.lfts) << "no copy";
  EXPECT_TRUE(copy.empty());
}

TEST(PreviousRoutes, PlacedOtherwiseAreCopiedByGuid) {
  const Planned before = planned(tree());
  const PreviousRoutes moved = reversed(previousRoutesOf(before.fabric, before.routing));
  std::vector<Lft> copy;
  const std::vector<Lft>& byNode = previousByNode(before.fabric, moved, copy);
  EXPECT_EQ(&byNode, &copy);
  ASSERT_EQ(byNode.size(), before.fabric.size());
  for (NodeId n = 0; n < before.fabric.size(); ++n)
    EXPECT_EQ(byNode[n].port, before.fabric.node(n).isSwitch() ? before.routing.lfts[n].port
                                                               : std::vector<std::uint8_t>{})
        << before.fabric.node(n).description;
}

TEST(PreviousRoutes, ASwitchWhoseNodeIdHoldsAnotherNodeIsCopied) {
  // A CA where the tables have a switch: not placed for this fabric.
  const Planned before = planned(tree());
  PreviousRoutes previous = previousRoutesOf(before.fabric, before.routing);
  const NodeId host = before.fabric.endNodes().front();
  previous.lfts[host] = Lft{{0xFF, 1}};
  std::vector<Lft> copy;
  EXPECT_EQ(&previousByNode(before.fabric, previous, copy), &copy);
  EXPECT_TRUE(copy[host].port.empty()) << "a CA holds no table";
}

TEST(PreviousRoutes, RouteUnderChangeTheSameWhereverTheirEntriesStand) {
  const Planned before = planned(tree());
  Fabric cut = before.fabric;
  testing::removeCables(cut, {{"edge1_2", "agg1_0"}});
  const auto placed =
      std::make_shared<const PreviousRoutes>(previousRoutesOf(before.fabric, before.routing));
  const auto moved = std::make_shared<const PreviousRoutes>(reversed(*placed));
  PlanInputs inputs;
  inputs.engines = {"ftree"};
  inputs.previous = placed;
  const auto a = planSubnet(cut, inputs, defaultRegistry());
  inputs.previous = moved;
  const auto b = planSubnet(cut, inputs, defaultRegistry());
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->stable && b->stable);
  EXPECT_EQ(a->stable->change, FabricChange::CapacityLost);
  EXPECT_TRUE(a->stable->stats.stabilised) << a->stable->stats.why;
  EXPECT_GT(a->stable->stats.broken, 0u);
  EXPECT_EQ(a->stable->stats.kept, b->stable->stats.kept);
  EXPECT_EQ(a->stable->stats.broken, b->stable->stats.broken);
  EXPECT_TRUE(std::ranges::equal(a->routing.lfts, b->routing.lfts, {}, &Lft::port, &Lft::port));
}

}  // namespace
}  // namespace ibsm
