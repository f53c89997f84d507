// How `ibsm path` shows a walked route (PathWalk.h): a table for the
// operator, or JSON for scripts. One formatter for the dry run and the
// daemon, so both answer alike for the same tables.
//
//   fmt::print("{}", formatUnicastPath(fabric, walkUnicast(...)));
//
// JSON of a unicast path:
//   {"from": END, "to": END|null, "dlid": N, "sl": N, "qos_level": "NAME"|null,
//    "note": "..."|null, "end": "delivered"|"no-entry"|...,
//    "switch_hops": N,
//    "hops": [{"type": "ca"|"switch"|"router", "name": "...", "guid": "0x...", "lid": N,
//              "in_port": N|null, "out_port": N|null,
//              "link": {"width": "4x", "speed": "QDR", "mtu": 4096}|null, "vl": N|null,
//              "in_vl": N|null}, ...]}
//   END: {"type", "name", "guid" (node), "port_guid", "port", "lid"}
// "link" and "vl" describe the cable out of out_port; in_port is null at the
// source, out_port null at the destination and where a table has no entry;
// in_vl is the VL the hop came in on (the hop before's vl). The table's vl
// column says "VL0>VL1" where a switch's SL2VL moves the packet to another VL.
// JSON of a multicast walk:
//   {"from": END, "mlid": N, "branches": [{"name", "guid", "in_port", "out_ports": [N...],
//    "depth": N}...], "receivers": [END...], "problems": ["..."]}
#pragma once

#include <ibsm/Fabric.h>

#include <string>

#include "routing/analysis/PathWalk.h"

namespace ibsm::analysis {

std::string formatUnicastPath(const Fabric& fabric, const UnicastPath& path);
std::string unicastPathJson(const Fabric& fabric, const UnicastPath& path);
std::string formatMulticastPath(const Fabric& fabric, const MulticastPath& path);
std::string multicastPathJson(const Fabric& fabric, const MulticastPath& path);

// "4x", "QDR" (extended speeds first: "HDR"), 4096: what a trained link runs at.
std::string_view widthName(std::uint8_t widthActive);
std::string_view speedName(const LinkAttrs& link);
unsigned mtuBytes(std::uint8_t mtuCode);

}  // namespace ibsm::analysis
