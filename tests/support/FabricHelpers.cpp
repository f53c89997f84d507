// The fixtures that need only ibsm_fabric, in their own object file so that
// tests of hand-built fabrics link without the topology readers.
#include <fmt/format.h>
#include <ibsm/Lids.h>

#include <stdexcept>

#include "tests/support/FabricFixtures.h"

namespace ibsm::testing {

std::string testTopologyPath(std::string_view fileName) {
  return fmt::format("{}/{}", IBSM_TEST_TOPOLOGIES, fileName);
}

void assignLids(Fabric& fabric, std::uint8_t lmc) {
  const auto plan = planLids(fabric, {}, lmc);
  if (!plan) throw std::runtime_error("planLids: " + plan.error().message);
  applyLids(fabric, *plan);
}

NodeId nodeNamed(const Fabric& fabric, std::string_view name) {
  for (NodeId id = 0; id < fabric.size(); ++id)
    if (fabric.node(id).description == name) return id;
  throw std::runtime_error(fmt::format("no node named \"{}\" in the fabric", name));
}

void removeCables(Fabric& fabric, std::initializer_list<CablePair> pairs) {
  for (const auto& [a, b] : pairs) {
    const NodeId from = nodeNamed(fabric, a), to = nodeNamed(fabric, b);
    int removed = 0;
    for (const Port& p : fabric.node(from).ports)
      if (p.remote && p.remote->node == to) {
        fabric.disconnect({from, p.number});
        ++removed;
      }
    if (removed == 0)
      throw std::runtime_error(fmt::format("no cable between \"{}\" and \"{}\"", a, b));
  }
}

}  // namespace ibsm::testing
