// diff()'s PKey part: which ports plan.pkeys lists that programming can
// reach, how (directed route, modifier, blocks the port's table has), and
// the blocks not known to hold what the plan wants. Block counts come from
// the observation: NodeInfo:PartitionCap for CA ports and switch port 0,
// SwitchInfo:PartitionEnforcementCap for switch external ports (a switch
// with 0 there keeps no table on them and cannot enforce).
#include <fmt/format.h>

#include <set>

#include "sm/program/Diff.h"
#include "sm/program/DiffParts.h"

namespace ibsm::sm::program {
namespace {

struct PKeyPort {
  const PortPKeys* entry{nullptr};
  DrPath path;
  std::uint8_t modifierPort{0};  // the switch port whose table is meant; 0 on CAs
  std::uint16_t blocks{0};       // blocks the port's table has
};

// Entries the port's table has, or 0 with a note when it has none we may use.
std::uint16_t tableEntries(const discovery::DiscoveredSubnet& seen, PortRef ref,
                           std::set<NodeId>& unenforced, std::vector<std::string>& notes) {
  const Node& node = seen.fabric.node(ref.node);
  const std::uint16_t cap = pkeyEntries(seen, ref.node, ref.port);
  if (!node.isSwitch() || ref.port == 0) return cap;
  if (cap == 0 && unenforced.insert(ref.node).second) {
    notes.push_back(fmt::format(
        "switch {} ({}): SwitchInfo:PartitionEnforcementCap is 0, so its external ports "
        "hold no PKey table and do not enforce partitions",
        node.description, node.guid));
  }
  return cap;
}

// The listed ports programming can reach, in the tables' order; the rest
// are explained in `notes` (one line per switch for enforcement it lacks).
std::vector<PKeyPort> pkeyPorts(const discovery::DiscoveredSubnet& seen, const PKeyTables& tables,
                                std::vector<std::string>& notes) {
  const Fabric& fabric = seen.fabric;
  std::set<NodeId> unenforced;
  std::vector<PKeyPort> out;
  for (const PortPKeys& entry : tables.ports) {
    const PortRef ref = entry.port;
    if (!seen.portInfo.contains(ref)) {
      notes.push_back(fmt::format("port {}: not read by discovery; its PKey table is left alone",
                                  fabric.describe(ref)));
      continue;
    }
    const std::uint16_t entries = tableEntries(seen, ref, unenforced, notes);
    if (entries == 0 && fabric.node(ref.node).isSwitch() && ref.port != 0) continue;
    if (entry.pkeys.size() > entries) {
      notes.push_back(fmt::format("port {}: {} PKeys planned but it holds {}; table left alone",
                                  fabric.describe(ref), entry.pkeys.size(), entries));
      continue;
    }
    auto path = pathToPort(seen, ref);
    if (!path) {
      notes.push_back(fmt::format("port {}: no directed route reaches it; PKey table left alone",
                                  fabric.describe(ref)));
      continue;
    }
    const bool isSwitch = fabric.node(ref.node).isSwitch();
    out.push_back(PKeyPort{.entry = &entry,
                           .path = *path,
                           .modifierPort = isSwitch ? ref.port : std::uint8_t{0},
                           .blocks = pkeyBlockCount(entries)});
  }
  return out;
}

}  // namespace

Result<void> checkPKeyTables(const Fabric& fabric, const PKeyTables& tables) {
  for (std::size_t i = 0; i < tables.ports.size(); ++i) {
    const PortRef p = tables.ports[i].port;
    if (p.node >= fabric.size() || p.port >= fabric.node(p.node).ports.size()) {
      return fail(
          fmt::format("the PKey tables name node {} port {}, which the fabric lacks: "
                      "plan the partitions again",
                      p.node, p.port));
    }
    if (i > 0 && !(tables.ports[i - 1].port < p)) {
      return fail(fmt::format("the PKey tables list {} out of order or twice (sortByPort() them)",
                              fabric.describe(p)));
    }
  }
  return {};
}

void diffPKeys(const DiffInput& in, ProgramDiff& out) {
  for (const PKeyPort& port : pkeyPorts(in.seen, *in.plan.pkeys, out.notes)) {
    const PortRef ref = port.entry->port;
    const PortKey owner{in.seen.fabric.node(ref.node).guid, ref.port};
    for (std::uint16_t b = 0; b < port.blocks; ++b) {
      const PKeyBlock want = pkeyBlock(port.entry->pkeys, b);
      const auto modifier = pkeyModifier(b, port.modifierPort);
      diffBlock(
          in.held,
          BlockTarget<PKeyKind>{.node = ref.node, .owner = owner, .index = b, .count = port.blocks},
          want, ProgramPhase::PKeys,
          [&] { return SmpRequest::get(AttributeId::PKeyTable, modifier, port.path); },
          [&] {
            return SmpRequest::set(AttributeId::PKeyTable, modifier, port.path, encode(want));
          },
          out);
    }
  }
}

}  // namespace ibsm::sm::program
