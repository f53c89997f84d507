// The one fill of PortInfo from a port's model (sm/mad/PortInfoFill.h),
// shared by the SA's records and the fake fabric: every field it owns
// comes from the port, each from its own field (distinct values, so a
// field filled from the wrong one shows), and it leaves what an SM sets
// and what the state shows alone.
#include <gtest/gtest.h>

#include "sm/mad/PortInfoFill.h"

namespace ibsm::sm::mad {
namespace {

TEST(PortInfoFill, EveryFieldItOwnsComesFromItsOwnFieldOfThePort) {
  Port port;
  port.capabilityMask = 0x02510868;
  port.link.widthEnabled = 1;
  port.link.widthSupported = 2;
  port.link.widthActive = 3;
  port.link.speedSupported = 4;
  port.link.speedEnabled = 5;
  port.link.speedActive = 6;
  port.link.extSpeedActive = 7;
  port.link.extSpeedSupported = 8;
  port.link.extSpeedEnabled = 9;
  port.mtuCap = 10;
  port.vlCap = 11;
  PortInfo pi;
  pi.lid = Lid{12};
  pi.masterSmLid = Lid{13};
  pi.portState = PortState::Armed;
  fillFromPort(pi, port);
  EXPECT_EQ(pi.capabilityMask, 0x02510868U);
  EXPECT_EQ(pi.linkWidthEnabled, 1);
  EXPECT_EQ(pi.linkWidthSupported, 2);
  EXPECT_EQ(pi.linkWidthActive, 3);
  EXPECT_EQ(pi.linkSpeedSupported, 4);
  EXPECT_EQ(pi.linkSpeedEnabled, 5);
  EXPECT_EQ(pi.linkSpeedActive, 6);
  EXPECT_EQ(pi.linkSpeedExtActive, 7);
  EXPECT_EQ(pi.linkSpeedExtSupported, 8);
  EXPECT_EQ(pi.linkSpeedExtEnabled, 9);
  EXPECT_EQ(pi.mtuCap, 10);
  EXPECT_EQ(pi.vlCap, 11);
  EXPECT_EQ(pi.lid, Lid{12}) << "what an SM sets is left alone";
  EXPECT_EQ(pi.masterSmLid, Lid{13});
  EXPECT_EQ(pi.portState, PortState::Armed) << "the state is the caller's";
}

}  // namespace
}  // namespace ibsm::sm::mad
