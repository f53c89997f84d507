#include <gtest/gtest.h>
#include <ibsm/Fabric.h>

#include "routing/graph/SwitchGraph.h"

namespace ibsm {
namespace {

Fabric twoSwitchesOneHostEach() {
  Fabric f;
  const NodeId s0 = *f.addNode(Node::makeSwitch(Guid{0x200000}, 8, "s0"));
  const NodeId s1 = *f.addNode(Node::makeSwitch(Guid{0x200001}, 8, "s1"));
  const NodeId h0 = *f.addNode(Node::makeCa(Guid{0x100000}, {Guid{0x100001}}, "h0"));
  const NodeId h1 = *f.addNode(Node::makeCa(Guid{0x100002}, {Guid{0x100003}}, "h1"));
  EXPECT_TRUE(f.connect({s0, 1}, {h0, 1}));
  EXPECT_TRUE(f.connect({s1, 1}, {h1, 1}));
  EXPECT_TRUE(f.connect({s0, 3}, {s1, 3}));
  EXPECT_TRUE(f.connect({s0, 4}, {s1, 4}));
  return f;
}

TEST(Fabric, FindsNodesByNodeGuidAndPortsByPortGuid) {
  const Fabric f = twoSwitchesOneHostEach();
  EXPECT_EQ(f.findNode(Guid{0x200001}), NodeId{1});
  EXPECT_EQ(f.findPort(Guid{0x100003}), (PortRef{3, 1}));
  EXPECT_EQ(f.findPort(Guid{0x200000}), (PortRef{0, 0}));  // a switch's port GUID is port 0
  EXPECT_FALSE(f.findNode(Guid{0x999}));
}

TEST(Fabric, RejectsADuplicateNodeGuid) {
  Fabric f = twoSwitchesOneHostEach();
  auto again = f.addNode(Node::makeSwitch(Guid{0x200000}, 8, "clone"));
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("0x0000000000200000"), std::string::npos);
}

TEST(Fabric, RejectsAPortCabledTwiceButAcceptsTheSameCableAgain) {
  Fabric f = twoSwitchesOneHostEach();
  EXPECT_TRUE(f.connect({0, 3}, {1, 3}));
  auto clash = f.connect({0, 3}, {1, 5});
  ASSERT_FALSE(clash);
  EXPECT_NE(clash.error().message.find("also"), std::string::npos);
}

TEST(Fabric, DisconnectClearsBothEnds) {
  Fabric f = twoSwitchesOneHostEach();
  f.disconnect({1, 4});
  EXPECT_FALSE(f.port({0, 4}).connected());
  EXPECT_FALSE(f.port({1, 4}).connected());
}

TEST(SwitchGraph, KeepsTrunkCablesAndAttachesHostsToTheirSwitch) {
  const Fabric f = twoSwitchesOneHostEach();
  const routing::SwitchGraph g(f);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g.degree(0), 2u);
  std::vector<std::uint8_t> ports;
  g.forEachCable(0, [&](routing::SwitchIndex to, const routing::Cable& c) {
    EXPECT_EQ(to, 1u);
    ports.push_back(c.port);
  });
  EXPECT_EQ(ports, (std::vector<std::uint8_t>{3, 4}));
  EXPECT_EQ(g.caCount(0), 1u);
  EXPECT_EQ(g.endpoints(0)[1].switchPort, 1);
  EXPECT_EQ(g.hopsFrom(0), (std::vector<std::uint16_t>{0, 1}));
}

}  // namespace
}  // namespace ibsm
