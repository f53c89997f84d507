#include "tests/support/FabricFixtures.h"

#include <fmt/format.h>
#include <ibsm/Topology.h>

#include <stdexcept>

#include "tests/support/FabricBuilder.h"

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

FatTreeSpec lassenLikeSpec() {
  return FatTreeSpec{.levels = 3,
                     .radix = 24,
                     .trunk = 2,
                     .aggregationNodes = true,
                     .ioHosts = {{1, 8}, {2, 4}},
                     .directorPods = 1,
                     .rails = 2};
}

Fabric sampleFabric(std::string_view fileName, std::uint8_t lmc) {
  auto fabric = readTopologyFile(testTopologyPath(fileName));
  if (!fabric) fixtureFailed("readTopologyFile", fabric.error());
  assignLids(fabric->fabric, lmc);
  return std::move(fabric->fabric);
}

Fabric ringFabric(int switches) {
  FabricBuilder b;
  // Names by fmt::format: GCC 12 at -O3 takes `"r" + std::to_string(i)` for
  // an overlapping copy (-Wrestrict, a false positive).
  for (int i = 0; i < switches; ++i) b.addSwitch(fmt::format("r{}", i), 8);
  for (int i = 0; i < switches; ++i)
    b.cable(fmt::format("r{}", i), 1, fmt::format("r{}", (i + 1) % switches), 2);
  for (int i = 0; i < switches; ++i) b.addHost(fmt::format("h{}", i), fmt::format("r{}", i), 3);
  return b.build();
}

}  // namespace ibsm::testing
