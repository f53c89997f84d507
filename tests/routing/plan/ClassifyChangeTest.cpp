// What changed between two fabrics, as routing under change reads it
// (StableRoutes.h): inter-switch capacity that came back wins over any
// that was lost, capacity lost keeps the previous routes that hold, and a
// change of hosts alone is no change of capacity. Cables are compared by
// node GUID and port at both ends, so the same cabling read in another
// node order is no change, and a cable moved to another port is both a
// loss and a gain.
#include <gtest/gtest.h>
#include <ibsm/StableRoutes.h>

#include <string>
#include <string_view>

#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::nodeNamed;

Fabric tree() {
  return generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
}

// The port of `from` cabled to `to` (the first, when there are several).
PortRef cableEnd(const Fabric& f, std::string_view from, std::string_view to) {
  const NodeId a = nodeNamed(f, from), b = nodeNamed(f, to);
  for (const Port& p : f.node(a).ports)
    if (p.remote && p.remote->node == b) return {a, p.number};
  ADD_FAILURE() << from << " has no cable to " << to;
  return {a, 0};
}

// The name of a host cabled to switch `name`.
std::string hostOn(const Fabric& f, std::string_view name) {
  for (const Port& p : f.node(nodeNamed(f, name)).ports)
    if (p.remote && !f.node(p.remote->node).isSwitch()) return f.node(p.remote->node).description;
  ADD_FAILURE() << name << " has no host";
  return {};
}

TEST(ClassifyChange, TheSameCablingIsAChangeOfHostsAtMost) {
  EXPECT_EQ(classifyChange(tree(), tree()), FabricChange::HostsOnly);
}

TEST(ClassifyChange, ALostInterSwitchCableIsCapacityLost) {
  const Fabric full = tree();
  Fabric cut = full;
  testing::removeCables(cut, {{"edge1_2", "agg1_0"}});
  EXPECT_EQ(classifyChange(full, cut), FabricChange::CapacityLost);
}

TEST(ClassifyChange, ACableThatComesBackIsCapacityGained) {
  const Fabric full = tree();
  Fabric cut = full;
  testing::removeCables(cut, {{"agg2_0", "core0"}});
  EXPECT_EQ(classifyChange(cut, full), FabricChange::CapacityGained);
}

TEST(ClassifyChange, AHostThatLeavesIsNoChangeOfCapacity) {
  const Fabric full = tree();
  Fabric fewer = full;
  const NodeId host = full.endNodes().front();
  for (const Port& p : full.node(host).ports)
    if (p.remote) fewer.disconnect({host, p.number});
  EXPECT_EQ(classifyChange(full, fewer), FabricChange::HostsOnly);
  EXPECT_EQ(classifyChange(fewer, full), FabricChange::HostsOnly);
}

TEST(ClassifyChange, ACableMovedToAnotherPortIsAGainThatWinsOverTheLoss) {
  // The edge switch's ports are all cabled: a host makes room.
  const Fabric full = tree();
  Fabric moved = full;
  const PortRef end = cableEnd(full, "edge1_2", "agg1_0");
  const PortRef far = *full.port(end).remote;
  const PortRef host = cableEnd(full, "edge1_2", hostOn(full, "edge1_2"));
  moved.disconnect(host);
  moved.disconnect(end);
  ASSERT_TRUE(moved.connect(host, far).has_value());
  EXPECT_EQ(classifyChange(full, moved), FabricChange::CapacityGained);
}

TEST(ClassifyChange, ACableWhoseFarEndIsAnotherSwitchIsAGain) {
  // Same near port, another switch behind it: by GUID, not by port alone.
  const Fabric full = tree();
  Fabric swapped = full;
  const PortRef a = cableEnd(full, "edge1_2", "agg1_0");
  const PortRef b = cableEnd(full, "edge1_3", "agg1_1");
  const PortRef farA = *full.port(a).remote, farB = *full.port(b).remote;
  swapped.disconnect(a);
  swapped.disconnect(b);
  ASSERT_TRUE(swapped.connect(a, farB).has_value());
  ASSERT_TRUE(swapped.connect(b, farA).has_value());
  EXPECT_EQ(classifyChange(full, swapped), FabricChange::CapacityGained);
}

TEST(ClassifyChange, ASwitchTheFabricBeforeLackedIsCapacityGained) {
  const Fabric full = tree();
  Fabric grown = full;
  const auto extra = grown.addNode(Node::makeSwitch(Guid{0xfeed0000}, 8, "extra"));
  ASSERT_TRUE(extra.has_value());
  EXPECT_EQ(classifyChange(full, grown), FabricChange::CapacityGained);
  EXPECT_EQ(classifyChange(grown, full), FabricChange::HostsOnly)
      << "a switch with no cable takes no capacity away";
}

TEST(ClassifyChange, ASwitchThatLeavesWithItsCablesIsCapacityLost) {
  const Fabric full = tree();
  Fabric fewer = full;
  const NodeId core = nodeNamed(full, "core0");
  for (const Port& p : full.node(core).ports)
    if (p.remote) fewer.disconnect({core, p.number});
  EXPECT_EQ(classifyChange(full, fewer), FabricChange::CapacityLost);
}

}  // namespace
}  // namespace ibsm
