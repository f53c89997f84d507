#include "tests/support/FabricFixtures.h"

#include <fmt/format.h>
#include <ibsm/Topology.h>

#include <stdexcept>

namespace ibsm::testing {

namespace {

[[noreturn]] void fixtureFailed(std::string_view what, const Error& error) {
  throw std::runtime_error(fmt::format("{}: {}", what, error.message));
}

}  // namespace

Fabric generatedFabric(const TopologySpec& spec, Degradation degrade, std::uint8_t lmc) {
  const auto text = generateNetFile(spec, degrade);
  if (!text) fixtureFailed("generateNetFile", text.error());
  auto fabric = parseNetFile(*text, "generated.net");
  if (!fabric) fixtureFailed("parseNetFile of a generated fabric", fabric.error());
  assignLids(*fabric, lmc);
  return std::move(*fabric);
}

Fabric sampleFabric(std::string_view fileName, std::uint8_t lmc) {
  auto fabric = readTopologyFile(testTopologyPath(fileName));
  if (!fabric) fixtureFailed("readTopologyFile", fabric.error());
  assignLids(fabric->fabric, lmc);
  return std::move(fabric->fabric);
}

}  // namespace ibsm::testing
