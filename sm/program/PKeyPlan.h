// The PKey half of the programming planner: which managed ports can have
// their PKey table read and written, how (directed route, modifier, number
// of blocks), and the blocks that differ from what the cache knows. Pure;
// private to sm/program.
//
// Block counts come from discovery: NodeInfo:PartitionCap for CA ports and
// switch port 0, SwitchInfo:PartitionEnforcementCap for switch external
// ports (a switch with 0 there keeps no table on them and cannot enforce).
#pragma once

#include <ibsm/PKeyTables.h>

#include <string>
#include <vector>

#include "DiscoveredSubnet.h"
#include "MadEngine.h"
#include "PKeyCache.h"

namespace ibsm::sm {

struct PKeyPort {
  const PortPKeys* entry{nullptr};  // points into the plan's PKeyTables
  PKeyPortKey key;
  DrPath path;
  std::uint8_t modifierPort{0};  // the switch port whose table is meant; 0 on CAs
  std::uint16_t blocks{0};       // blocks the port's table has
  bool reset{false};             // the node holds no LID: whatever was known is stale
};

// Fails when the tables name a port twice, out of order, or one the
// fabric does not have: they were not made for this fabric.
[[nodiscard]] Result<void> checkPKeyTables(const Fabric& fabric, const PKeyTables& tables);

// The listed ports programming can reach, in the tables' order; the rest
// are explained in `notes` (one line per switch for enforcement it lacks).
std::vector<PKeyPort> pkeyPorts(const DiscoveredSubnet& discovered, const PKeyTables& tables,
                                std::vector<std::string>& notes);

// Block `index` of the table as the plan wants it: entries past the end of
// the list are 0, so a shorter table clears what it no longer has.
PKeyBlock plannedPKeyBlock(const std::vector<std::uint16_t>& pkeys, std::uint16_t index);

SmpRequest getPKeyBlock(const PKeyPort& port, std::uint16_t block);
SmpRequest setPKeyBlock(const PKeyPort& port, std::uint16_t block, const PKeyBlock& contents);

// Whether a switch can enforce partitions on its external ports.
bool enforcesPartitions(const DiscoveredSubnet& discovered, NodeId sw);

}  // namespace ibsm::sm
