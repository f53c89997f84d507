// The PortInfo fields a port's model (ibsm/Fabric.h: Port) carries as the
// port itself reports them: CapabilityMask, the link widths and speeds
// (extended speeds included), MTUCap and VLCap. One fill for the SA's
// record of a port never read (sm/sa/SubnetRecords.cpp) and for the test
// doubles that answer or hold PortInfo made from a model (tests/sm/support/
// FakeSmaAttributes.cpp, tests/sm/program/SubnetSnapshot.cpp). What an SM
// sets (LID, LMC, SM LID, subnet prefix and timeout) and what the state
// shows (PortState, PortPhysicalState, NeighborMTU, OperationalVLs) each
// fills its own way.
//
//   PortInfo pi;
//   fillFromPort(pi, fabric.port(ref));
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/MadAttributes.h>

namespace ibsm::sm::mad {

inline void fillFromPort(PortInfo& pi, const Port& port) {
  pi.capabilityMask = port.capabilityMask;
  pi.linkWidthEnabled = port.link.widthEnabled;
  pi.linkWidthSupported = port.link.widthSupported;
  pi.linkWidthActive = port.link.widthActive;
  pi.linkSpeedSupported = port.link.speedSupported;
  pi.linkSpeedEnabled = port.link.speedEnabled;
  pi.linkSpeedActive = port.link.speedActive;
  pi.linkSpeedExtActive = port.link.extSpeedActive;
  pi.linkSpeedExtSupported = port.link.extSpeedSupported;
  pi.linkSpeedExtEnabled = port.link.extSpeedEnabled;
  pi.mtuCap = port.mtuCap;
  pi.vlCap = port.vlCap;
}

}  // namespace ibsm::sm::mad
