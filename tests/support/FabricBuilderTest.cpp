#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/support/FabricBuilder.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::testing {
namespace {

FabricBuilder twoSwitches() {
  FabricBuilder b;
  b.addSwitch("sw0", 8);
  b.addSwitch("sw1", 8);
  b.cable("sw0", 1, "sw1", 1);
  b.addHost("h0", "sw0", 2);
  b.addCa("dual", 2);
  b.cable("dual", 1, "sw1", 2).cable("dual", 2, "sw1", 3);
  return b;
}

TEST(FabricBuilder, GivesGuidsTheWayIbsimDoes) {
  const Fabric f = twoSwitches().build();
  EXPECT_EQ(f.node(nodeNamed(f, "sw0")).guid, Guid{0x200000});
  EXPECT_EQ(f.node(nodeNamed(f, "sw1")).guid, Guid{0x200001});
  const Node& h0 = f.node(nodeNamed(f, "h0"));
  EXPECT_EQ(h0.guid, Guid{0x100000});
  EXPECT_EQ(h0.ports[1].guid, Guid{0x100001});
  const Node& dual = f.node(nodeNamed(f, "dual"));
  EXPECT_EQ(dual.guid, Guid{0x100002});
  EXPECT_EQ(dual.ports[2].guid, Guid{0x100004});
}

TEST(FabricBuilder, CablesBothEndsAndBringsThemUp) {
  const Fabric f = twoSwitches().build();
  const PortRef sw0p1{nodeNamed(f, "sw0"), 1};
  const PortRef sw1p1{nodeNamed(f, "sw1"), 1};
  EXPECT_EQ(f.port(sw0p1).remote, sw1p1);
  EXPECT_EQ(f.port(sw1p1).remote, sw0p1);
  EXPECT_EQ(f.port(sw0p1).state, PortState::Active);
  EXPECT_EQ(f.port({nodeNamed(f, "sw0"), 5}).state, PortState::Down);
}

TEST(FabricBuilder, BuildAssignsLidsToEveryEndpoint) {
  const Fabric f = twoSwitches().build(1);
  for (const Node& n : f.nodes())
    for (const std::uint8_t p : n.endpointPorts()) {
      EXPECT_TRUE(n.ports[p].lid.isUnicast()) << n.description << "[" << int(p) << "]";
      EXPECT_EQ(n.ports[p].lmc, n.isSwitch() ? 0 : 1) << n.description;
    }
  EXPECT_EQ(twoSwitches().fabric().node(0).ports[0].lid, Lid{});
}

TEST(FabricBuilder, RefusesWhatACableCannotDo) {
  FabricBuilder b = twoSwitches();
  EXPECT_THROW(b.cable("sw0", 1, "sw1", 4), std::runtime_error);
  EXPECT_THROW(b.cable("sw0", 9, "sw1", 4), std::runtime_error);
  EXPECT_THROW(b.cable("nowhere", 1, "sw1", 4), std::runtime_error);
  EXPECT_THROW(b.addSwitch("sw0"), std::runtime_error);
}

TEST(FabricFixtures, NodeNamedThrowsForAnUnknownName) {
  EXPECT_THROW(nodeNamed(twoSwitches().fabric(), "sw9"), std::runtime_error);
}

}  // namespace
}  // namespace ibsm::testing
