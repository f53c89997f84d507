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

std::string formatLftDump(const Fabric& fabric, const RoutingResult& result) {
  const LidIndex lids(fabric);
  const unsigned maxLid = lids.maxLid().value;

  // OpenSM walks its switch map, keyed by the GUID in network byte order.
  std::vector<NodeId> switches = fabric.switches();
  std::ranges::sort(switches, {},
                    [&](NodeId id) { return std::byteswap(fabric.node(id).guid.value); });

  // Each destination's comment is the same for every switch: build it once.
  std::vector<std::string> destination(maxLid + 1);
  for (unsigned lid = 0; lid <= maxLid; ++lid) {
    const auto owner = lids.owner(Lid{static_cast<std::uint16_t>(lid)});
    if (!owner) {
      destination[lid] = "unknown node and type";
      continue;
    }
    const Node& node = fabric.node(owner->node);
    destination[lid] = fmt::format("{} portguid 0x{:016x}: '{}'", nodeTypeText(node.type),
                                   node.ports[owner->port].guid.value, node.description);
  }

  std::string out;
  for (const NodeId id : switches) {
    const Node& sw = fabric.node(id);
    fmt::format_to(std::back_inserter(out),
                   "Unicast lids [0-{}] of switch Lid {} guid 0x{:016x} ('{}'):\n", maxLid,
                   sw.ports[0].lid.value, sw.guid.value, sw.description);
    const Lft* lft = id < result.lfts.size() ? &result.lfts[id] : nullptr;
    for (unsigned lid = 0; lft && lid <= maxLid; ++lid) {
      const std::uint8_t port = lft->at(Lid{static_cast<std::uint16_t>(lid)});
      if (port > sw.numPorts()) continue;  // kNoRoute, or no such port
      fmt::format_to(std::back_inserter(out), "0x{:04x} {:03} # {}\n", lid, port, destination[lid]);
    }
    fmt::format_to(std::back_inserter(out), "{} lids dumped\n", maxLid);
  }
  return out;
}

}  // namespace ibsm
