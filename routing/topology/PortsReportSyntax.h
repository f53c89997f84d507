// The line grammar of the `ibnetdiscover -p` ports report (infiniband-diags,
// ibnetdiscover.c: dump_ports_report), one line at a time: every port
// ibnetdiscover found, each node's ports from the highest down, port 0 never.
//
//   CA     8  1 0x0002c9030001a1b2 4x QDR - SW     2 12 0x0002c90300a1b2c3 ( 'host HCA-1' -
//   'switch' ) SW     2 13 0x0002c90300a1b2c3 4x SDR                                    'switch'
//
// type (SW, CA, RT), LID (a switch's is its port 0 LID), port number, port
// GUID, active width and speed ("??" / "???" when unknown); then the port at
// the other end and both node descriptions, or, for a port with no cable, the
// node description alone. A switch's ports all print the switch's port GUID;
// a CA's only the ports that ibnetdiscover reached it through.
#pragma once

#include <ibsm/Fabric.h>

#include <optional>
#include <string_view>

#include "routing/topology/IbnetdiscoverSyntax.h"
#include "routing/topology/LinkCodes.h"

namespace ibsm::topology {

struct PortsEnd {
  NodeType type{NodeType::Ca};
  std::uint16_t lid{0};
  std::uint8_t port{0};
  Guid guid;
};

struct PortsLine {
  PortsEnd self;
  LinkRate rate;
  std::string_view width;  // as printed, for messages
  std::string_view speed;
  std::optional<PortsEnd> remote;  // none: the port has no cable
  std::string_view description;
  std::string_view remoteDescription;
};

// "SW", "CA", "RT" or "??" and a blank: a line the reader parses as a port
// line, so that a malformed one is an error and never skipped as noise.
bool startsLikePortsLine(std::string_view line);
// What detectTopologyFormat looks for: a type, a LID, a port and a 0x GUID.
bool looksLikePortsLine(std::string_view line);

LineResult<PortsLine> parsePortsLine(std::string_view line);

}  // namespace ibsm::topology
