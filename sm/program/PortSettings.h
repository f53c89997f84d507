// The PortInfo a port should hold under a plan, computed from the PortInfo
// it holds now (read-modify-write), and the link-state steps it needs.
// Private to the planner; pure.
#pragma once

#include <ibsm/MadAttributes.h>
#include <ibsm/SubnetPlan.h>

#include "DiscoveredSubnet.h"
#include "ProgramOptions.h"

namespace ibsm::sm {

struct PortSetting {
  PortInfo desired;  // PortState NoChange; enable fields "no change"
  bool changed{false};
  // Partition enforcement is all that changed (a port whose switch is
  // known to ignore it then needs no Set).
  bool onlyEnforcement{false};
};

PortSetting portSetting(const DiscoveredSubnet& discovered, const SubnetPlan& plan, PortRef port,
                        const PortInfo& held, Lid smLid, const ProgramOptions& options);

// Link ports (not switch port 0) whose both ends answered and are up.
struct LinkSteps {
  bool arm{false};       // Init now: Armed first
  bool activate{false};  // then Active
};
LinkSteps linkSteps(const DiscoveredSubnet& discovered, PortRef port, const PortInfo& held);

}  // namespace ibsm::sm
