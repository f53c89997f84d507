// The smallest fabric with a hop, shared by the MAD engine's specs
// (MadEngineRtoTest, MadEngineLifetimeTest, MadTraceTest): two 8-port
// switches, sw0 (the SM on its port 0) and sw1, cabled port 3 to port 3,
// so that DR path {3} is one hop to sw1.
//
//   FakeFabricTransport wire{testing::twoSwitches(), PortRef{0, 0}};
#pragma once

#include <gtest/gtest.h>
#include <ibsm/Fabric.h>

namespace ibsm::testing {

inline Fabric twoSwitches() {
  Fabric f;
  const NodeId s0 = *f.addNode(Node::makeSwitch(Guid{0x200000}, 8, "sw0"));
  const NodeId s1 = *f.addNode(Node::makeSwitch(Guid{0x200001}, 8, "sw1"));
  EXPECT_TRUE(f.connect({s0, 3}, {s1, 3}));
  return f;
}

}  // namespace ibsm::testing
