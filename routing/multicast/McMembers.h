// A group's members as the tree and the checker need them: the switch each
// hangs off and the port of that switch that leads to it (0: the member is
// the switch's own management port). Members that cannot be placed (not in
// the fabric, no cable, not a CA, router or switch port 0) are reported,
// not placed.
#pragma once

#include <ibsm/Multicast.h>

#include <string>
#include <vector>

#include "routing/graph/SwitchGraph.h"

namespace ibsm::routing {

struct PlacedMember {
  Guid portGuid;
  bool receives{true};
  SwitchIndex sw{kNoSwitch};
  std::uint8_t switchPort{0};  // the switch's port toward the member; 0 = the switch itself
};

struct PlacedMembers {
  std::vector<PlacedMember> placed;
  std::vector<std::string> problems;  // one line per member left out
};

PlacedMembers placeMembers(const Fabric& fabric, const SwitchGraph& graph,
                           const McGroupRoute& group);

// "0xc000", as ibroute and OpenSM print MLIDs.
std::string mlidText(Lid mlid);

}  // namespace ibsm::routing
