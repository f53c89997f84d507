// The line grammar of ibnetdiscover's topology output (infiniband-diags,
// ibnetdiscover.c: out_switch_detail, out_ca_detail, out_switch_port,
// out_ca_port), one line at a time. How lines combine into a fabric and
// whether the file agrees with itself is IbnetdiscoverReader's business.
//
//   Switch  8 "S-0000000000200001"   # "Switch2" base port 0 lid 3 lmc 0
//   [1]  "H-0000000000100003"[1](100004)   # "Hca2" lid 5 4xSDR
//   Ca  2 "H-0000000000100003"   # "Hca2"
//   [1](100004)  "S-0000000000200001"[1]   # lid 5 lmc 0 "Switch2" lid 3 4xSDR
#pragma once

#include <ibsm/Fabric.h>

#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "routing/topology/LinkCodes.h"
#include "routing/topology/TextScan.h"

namespace ibsm::topology {

struct IbndHeader {
  NodeType type{NodeType::Ca};
  std::uint8_t numPorts{0};
  Guid guid;
  std::string_view description;
  // Switches only: the LID of management port 0.
  std::uint16_t lid{0};
  std::uint8_t lmc{0};
  bool enhancedPort0{false};
};

struct IbndPortLine {
  std::uint8_t port{0};
  // The hex digits in '[n](...)', empty when there are none. ibnetdiscover
  // prints the port GUID there on CA and router port lines (and nothing on
  // switch port lines), ibdiagnet the port number; the reader, which knows
  // which tool wrote the file, says which.
  std::string_view portId;
  NodeType remoteType{NodeType::Ca};
  Guid remoteGuid;
  std::uint8_t remotePort{0};
  Guid remotePortGuid;  // printed when the remote is not a switch
  std::uint16_t remoteLid{0};
  std::uint16_t lid{0};  // CA and router ports: their own LID and LMC
  std::uint8_t lmc{0};
  LinkRate rate;
  std::string_view rateText;          // as printed, for messages
  std::optional<std::uint8_t> vlCap;  // "v=" of ibnetdiscover --full
};

// Failures are the "what was expected" half of a file:line message.
template <typename T>
using LineResult = std::expected<T, std::string>;

// The number after "lid ": 0 (no SM has given the port a LID yet) or a
// unicast LID; the message says what was found instead when it is neither.
LineResult<std::uint16_t> parseLid(Cursor& c);

LineResult<IbndHeader> parseIbndHeader(std::string_view line);
LineResult<IbndPortLine> parseIbndPortLine(std::string_view line, NodeType owner);

}  // namespace ibsm::topology
