#include "PKeyPlan.h"

#include <fmt/format.h>

#include <set>

#include "ProgramPlan.h"

namespace ibsm::sm {

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

bool enforcesPartitions(const DiscoveredSubnet& discovered, NodeId sw) {
  auto si = discovered.switchInfo.find(sw);
  return si != discovered.switchInfo.end() && si->second.partitionEnforcementCap > 0;
}

std::vector<PKeyPort> pkeyPorts(const DiscoveredSubnet& discovered, const PKeyTables& tables,
                                std::vector<std::string>& notes) {
  const Fabric& fabric = discovered.fabric;
  std::set<NodeId> unenforced;  // one note per switch, not per port
  std::vector<PKeyPort> out;
  for (const PortPKeys& entry : tables.ports) {
    const PortRef ref = entry.port;
    const Node& node = fabric.node(ref.node);
    const bool external = node.isSwitch() && ref.port != 0;
    if (!discovered.portInfo.contains(ref)) {
      notes.push_back(fmt::format("port {}: not read by discovery; its PKey table is left alone",
                                  fabric.describe(ref)));
      continue;
    }
    std::uint16_t entries = node.partitionCap;
    if (external) {
      entries = enforcesPartitions(discovered, ref.node)
                    ? discovered.switchInfo.at(ref.node).partitionEnforcementCap
                    : 0;
      if (entries == 0) {
        if (unenforced.insert(ref.node).second) {
          notes.push_back(fmt::format(
              "switch {} ({}): SwitchInfo:PartitionEnforcementCap is 0, so its external ports "
              "hold no PKey table and do not enforce partitions",
              node.description, node.guid));
        }
        continue;
      }
    }
    if (entry.pkeys.size() > entries) {
      notes.push_back(fmt::format("port {}: {} PKeys planned but it holds {}; table left alone",
                                  fabric.describe(ref), entry.pkeys.size(), entries));
      continue;
    }
    auto path = pathToPort(discovered, ref);
    if (!path) {
      notes.push_back(fmt::format("port {}: no directed route reaches it; PKey table left alone",
                                  fabric.describe(ref)));
      continue;
    }
    // A node that lost its LID was reset (or never configured): its table
    // is back to the default, whatever the cache remembers.
    const PortRef lidPort{ref.node, node.isSwitch() ? std::uint8_t{0} : ref.port};
    auto held = discovered.portInfo.find(lidPort);
    const bool reset = held == discovered.portInfo.end() || held->second.lid.value == 0;
    out.push_back(PKeyPort{.entry = &entry,
                           .key = PKeyPortKey{node.guid, ref.port},
                           .path = *path,
                           .modifierPort = node.isSwitch() ? ref.port : std::uint8_t{0},
                           .blocks = pkeyBlocks(entries),
                           .reset = reset});
  }
  return out;
}

PKeyBlock plannedPKeyBlock(const std::vector<std::uint16_t>& pkeys, std::uint16_t index) {
  PKeyBlock b;
  const std::size_t first = std::size_t{index} * kPKeyBlockSize;
  for (std::size_t i = 0; i < kPKeyBlockSize && first + i < pkeys.size(); ++i) {
    b.pkeys[i] = pkeys[first + i];
  }
  return b;
}

SmpRequest getPKeyBlock(const PKeyPort& port, std::uint16_t block) {
  return SmpRequest::get(AttributeId::PKeyTable, pkeyModifier(block, port.modifierPort), port.path);
}

SmpRequest setPKeyBlock(const PKeyPort& port, std::uint16_t block, const PKeyBlock& contents) {
  return SmpRequest::set(AttributeId::PKeyTable, pkeyModifier(block, port.modifierPort), port.path,
                         encode(contents));
}

}  // namespace ibsm::sm
