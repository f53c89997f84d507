#include "tests/support/FabricBuilder.h"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "tests/support/FabricFixtures.h"

namespace ibsm::testing {

namespace {

void markUp(Port& port) {
  port.state = PortState::Active;
  port.physState = 5;  // LinkUp
}

}  // namespace

NodeId FabricBuilder::add(Node node) {
  std::string name = node.description;
  if (byName_.contains(name))
    throw std::runtime_error(fmt::format("FabricBuilder: node \"{}\" added twice", name));
  const auto id = fabric_.addNode(std::move(node));
  if (!id) throw std::runtime_error("FabricBuilder: " + id.error().message);
  byName_.emplace(std::move(name), *id);
  return *id;
}

NodeId FabricBuilder::addSwitch(std::string name, std::uint8_t ports) {
  const Guid guid{nextSwitchGuid_++};
  return add(Node::makeSwitch(guid, ports, std::move(name)));
}

NodeId FabricBuilder::addCa(std::string name, std::uint8_t ports) {
  const Guid guid{nextCaGuid_++};
  std::vector<Guid> portGuids;
  for (std::uint8_t p = 0; p < ports; ++p) portGuids.push_back(Guid{nextCaGuid_++});
  return add(Node::makeCa(guid, portGuids, std::move(name)));
}

FabricBuilder& FabricBuilder::cable(std::string_view a, std::uint8_t aPort, std::string_view b,
                                    std::uint8_t bPort) {
  const PortRef pa{id(a), aPort};
  const PortRef pb{id(b), bPort};
  if (auto ok = fabric_.connect(pa, pb); !ok)
    throw std::runtime_error("FabricBuilder: " + ok.error().message);
  markUp(fabric_.port(pa));
  markUp(fabric_.port(pb));
  return *this;
}

NodeId FabricBuilder::addHost(std::string name, std::string_view switchName,
                              std::uint8_t switchPort) {
  const std::string hostName = name;
  const NodeId host = addCa(std::move(name), 1);
  cable(hostName, 1, switchName, switchPort);
  return host;
}

NodeId FabricBuilder::id(std::string_view name) const {
  if (auto it = byName_.find(std::string(name)); it != byName_.end()) return it->second;
  throw std::runtime_error(fmt::format("FabricBuilder: no node named \"{}\"", name));
}

Fabric FabricBuilder::build(std::uint8_t lmc) const {
  Fabric copy = fabric_;
  assignLids(copy, lmc);
  return copy;
}

}  // namespace ibsm::testing
