// The small fabric the QoS table specs plan on: leaf (switch, 3 ports) --
// spine (switch, 2 ports); host0 on leaf[1], host1 on leaf[2], leaf[3] to
// spine[1]. Every port VLCap 5 (VL0-14), so no table is cut by the caps
// unless a spec lowers them.
#pragma once

#include <gtest/gtest.h>
#include <ibsm/Fabric.h>

#include <utility>

namespace ibsm::qos::testing {

struct LeafSpine {
  Fabric fabric;
  NodeId leaf{}, spine{}, host0{}, host1{};
  explicit LeafSpine(bool enhancedPort0 = false) {
    auto sw = Node::makeSwitch(Guid{0x100}, 3, "leaf");
    sw.switchData->enhancedPort0 = enhancedPort0;
    leaf = *fabric.addNode(std::move(sw));
    spine = *fabric.addNode(Node::makeSwitch(Guid{0x200}, 2, "spine"));
    host0 = *fabric.addNode(Node::makeCa(Guid{0x10}, {Guid{0x11}}, "host0"));
    host1 = *fabric.addNode(Node::makeCa(Guid{0x20}, {Guid{0x21}}, "host1"));
    EXPECT_TRUE(fabric.connect({leaf, 1}, {host0, 1}));
    EXPECT_TRUE(fabric.connect({leaf, 2}, {host1, 1}));
    EXPECT_TRUE(fabric.connect({leaf, 3}, {spine, 1}));
    for (NodeId id = 0; id < fabric.size(); ++id)
      for (auto& p : fabric.node(id).ports) p.vlCap = 5;
  }
};

}  // namespace ibsm::qos::testing
