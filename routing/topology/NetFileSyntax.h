// The line grammar of ibsim net files, read the way ibsim's own parser
// (ibsim/sim_net.c: parse_switch, parse_endnode, parse_port,
// parse_node_desc) reads them, so a dry run sees the node descriptions,
// LIDs and link rates the simulator will report. Where ibsim would quietly
// read something other than what the line seems to say (a remote port
// written after a blank, a "Ca" count of two digits), the line is an error.
//
//   Switch 8 "leaf0" # "leaf zero" enhanced port 0 lid 4
//   [1]  "h0"[1]  w=1
//   Hca 2 "h0"
#pragma once

#include <ibsm/Fabric.h>

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

namespace ibsm::topology {

template <typename T>
using NetLineResult = std::expected<T, std::string>;

struct NetHeader {
  NodeType type{NodeType::Ca};
  std::uint8_t numPorts{0};
  std::string_view name;         // the node id other records use to reach it
  std::string_view description;  // NodeDescription as ibsim reports it
  bool enhancedPort0{false};
  std::uint16_t lid{0};  // switches: initial LID of port 0 ("lid N" in the header)
  std::uint8_t lmc{0};
};

// ibsim keeps a node id in 64 bytes and a description in 63; longer ones it
// truncates, and two nodes could then share a name.
inline constexpr std::size_t kMaxNetName = 63;
// ibsim reads a line into 256 bytes; a longer one is split into two lines.
inline constexpr std::size_t kMaxNetLine = 254;

// What a port line sets on its port; unset fields keep the file-wide defaults.
struct NetPortLine {
  std::uint8_t port{0};
  std::string_view remote;
  std::uint8_t remotePort{1};  // ibsim's default when "[n]" does not follow the name
  std::optional<std::uint8_t> widthEnabled;
  std::optional<std::uint8_t> speedEnabled;
  std::optional<std::uint8_t> extSpeedEnabled;
  std::optional<std::uint16_t> lid;  // CA ports in ibnetdiscover form: "# lid 5 lmc 0 ..."
  std::optional<std::uint8_t> lmc;
};

// The C library's strtoul(s, nullptr, 0), which ibsim uses for most numbers:
// leading blanks, then 0x.. hex, 0.. octal or decimal; 0 when there are no digits.
std::uint64_t cNumber(std::string_view s);

// A line whose first word ibsim takes for a node header.
bool isNetHeader(std::string_view line);
NetLineResult<NetHeader> parseNetHeader(std::string_view line);
NetLineResult<NetPortLine> parseNetPortLine(std::string_view line, NodeType owner);

}  // namespace ibsm::topology
