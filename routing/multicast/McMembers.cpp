#include "routing/multicast/McMembers.h"

#include <fmt/format.h>

namespace ibsm::routing {

std::string mlidText(Lid mlid) {
  return fmt::format("0x{:04x}", mlid.value);
}

namespace {

// Where `ref` hangs off a switch, or why it does not.
std::expected<std::pair<SwitchIndex, std::uint8_t>, std::string> attachment(
    const Fabric& fabric, const SwitchGraph& graph, PortRef ref) {
  const Node& node = fabric.node(ref.node);
  if (node.isSwitch()) {
    if (ref.port != 0) return std::unexpected("is a switch port other than 0");
    return std::pair{graph.index(ref.node), std::uint8_t{0}};
  }
  const Port& port = fabric.port(ref);
  if (!port.remote) return std::unexpected("has no cable");
  if (!fabric.node(port.remote->node).isSwitch()) return std::unexpected("is cabled to no switch");
  return std::pair{graph.index(port.remote->node), port.remote->port};
}

}  // namespace

PlacedMembers placeMembers(const Fabric& fabric, const SwitchGraph& graph,
                           const McGroupRoute& group) {
  PlacedMembers out;
  out.placed.reserve(group.members.size());
  for (const McRouteMember& m : group.members) {
    const auto ref = fabric.findPort(m.portGuid);
    if (!ref) {
      out.problems.push_back(fmt::format("MLID {}: member port {} is not in the fabric",
                                         mlidText(group.mlid), m.portGuid));
      continue;
    }
    const auto at = attachment(fabric, graph, *ref);
    if (!at) {
      out.problems.push_back(fmt::format("MLID {}: member port {} {}", mlidText(group.mlid),
                                         fabric.describe(*ref), at.error()));
      continue;
    }
    out.placed.push_back(PlacedMember{m.portGuid, m.receives, at->first, at->second});
  }
  return out;
}

}  // namespace ibsm::routing
