// The SL2VL half of the programming planner: which SLtoVLMappingTables the
// routing result asks for, how to reach each (directed route, attribute
// modifier), and whether the links they send on run enough VLs. Pure;
// private to sm/program.
//
// A switch's table is per (input port, output port): modifier bits 15..8
// name the input port, bits 7..0 the output port (IBA 14.2.5.8; the
// "all ports" bits 16 and 17 of OptimizedSLtoVLMappingProgramming are not
// used, ibsim lacks them). A CA port has one table, modifier 0, reached
// through that port; an Sl2VlEntry for a CA names the port as outPort.
#pragma once

#include <ibsm/Routing.h>
#include <ibsm/SubnetPlan.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "DiscoveredSubnet.h"
#include "MadEngine.h"
#include "Sl2VlCache.h"

namespace ibsm::sm {

struct Sl2VlTableRef {
  const Sl2VlEntry* entry{nullptr};  // points into the plan's RoutingResult
  Sl2VlKey key;
  DrPath path;
  std::uint32_t modifier{0};
  bool reset{false};  // the node holds no LID: whatever was known is stale
};

// Fails when the entries name a node or port the fabric lacks, or one
// table twice: they were not made for this fabric.
[[nodiscard]] Result<void> checkSl2VlEntries(const Fabric& fabric,
                                             const std::vector<Sl2VlEntry>& entries);

// The tables programming can reach, in the entries' order; the rest are
// explained in `notes`.
std::vector<Sl2VlTableRef> sl2vlTables(const DiscoveredSubnet& discovered,
                                       const RoutingResult& routing,
                                       std::vector<std::string>& notes);

SlToVlTable plannedSl2Vl(const Sl2VlEntry& entry);
SmpRequest getSl2Vl(const Sl2VlTableRef& table);
SmpRequest setSl2Vl(const Sl2VlTableRef& table, const SlToVlTable& contents);

// Data VLs a PortInfo:OperationalVLs (or VLCap) code stands for:
// 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14.
std::uint8_t dataVls(std::uint8_t code);

// Data VLs each link port must run for the tables: one more than the
// highest VL they send out of it, asked of both ends of the cable (the
// receiver keeps its buffers per VL too). Ports no table sends on are absent.
std::unordered_map<PortRef, std::uint8_t> vlsNeeded(const Fabric& fabric,
                                                    const std::vector<Sl2VlEntry>& entries);

}  // namespace ibsm::sm
