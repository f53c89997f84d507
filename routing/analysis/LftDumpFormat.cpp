// formatLftDump: opensm-lfts.dump as OpenSM writes it (format in Dumps.h).
#include <fmt/format.h>
#include <ibsm/Dumps.h>
#include <ibsm/Lids.h>

#include <algorithm>
#include <bit>

namespace ibsm {
namespace {

std::string_view nodeTypeText(NodeType type) {
  switch (type) {
    case NodeType::Ca:
      return "Channel Adapter";
    case NodeType::Switch:
      return "Switch";
    case NodeType::Router:
      return "Router";
  }
  return "UNKNOWN";
}

}  // namespace

void writeLftDump(const Fabric& fabric, const RoutingResult& result, const DumpSink& sink) {
  const LidIndex lids(fabric);
  const unsigned maxLid = lids.maxLid().value;

  // OpenSM walks its switch map, keyed by the GUID in network byte order.
  std::vector<NodeId> switches = fabric.switches();
  std::ranges::sort(switches, {},
                    [&](NodeId id) { return std::byteswap(fabric.node(id).guid.value); });

  // Each LID's line is the same on every switch but for its three port
  // digits: build it once and patch the digits (21 million lines on a
  // radix-36 fat tree, so no formatting per line).
  constexpr std::size_t kPortAt = 7;  // "0xLLLL " then "PPP"
  std::vector<std::string> line(maxLid + 1);
  for (unsigned lid = 0; lid <= maxLid; ++lid) {
    const auto owner = lids.owner(Lid{static_cast<std::uint16_t>(lid)});
    if (!owner) {
      line[lid] = fmt::format("0x{:04x} 000 # unknown node and type\n", lid);
      continue;
    }
    const Node& node = fabric.node(owner->node);
    line[lid] =
        fmt::format("0x{:04x} 000 # {} portguid 0x{:016x}: '{}'\n", lid, nodeTypeText(node.type),
                    node.ports[owner->port].guid.value, node.description);
  }

  fmt::memory_buffer out;
  for (const NodeId id : switches) {
    out.clear();
    const Node& sw = fabric.node(id);
    fmt::format_to(std::back_inserter(out),
                   "Unicast lids [0-{}] of switch Lid {} guid 0x{:016x} ('{}'):\n", maxLid,
                   sw.ports[0].lid.value, sw.guid.value, sw.description);
    const Lft* lft = id < result.lfts.size() ? &result.lfts[id] : nullptr;
    for (unsigned lid = 0; lft && lid <= maxLid; ++lid) {
      const std::uint8_t port = lft->at(Lid{static_cast<std::uint16_t>(lid)});
      if (port > sw.numPorts()) continue;  // kNoRoute, or no such port
      const std::size_t at = out.size() + kPortAt;
      out.append(line[lid]);
      out[at] = static_cast<char>('0' + port / 100);
      out[at + 1] = static_cast<char>('0' + port / 10 % 10);
      out[at + 2] = static_cast<char>('0' + port % 10);
    }
    fmt::format_to(std::back_inserter(out), "{} lids dumped\n", maxLid);
    sink(std::string_view(out.data(), out.size()));
  }
}

std::string formatLftDump(const Fabric& fabric, const RoutingResult& result) {
  std::string out;
  writeLftDump(fabric, result, [&](std::string_view chunk) { out += chunk; });
  return out;
}

}  // namespace ibsm
