#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "tests/support/FabricFixtures.h"

namespace ibsm::testing {
namespace {

// Cabling by name: "node[port]" -> "node[port]", independent of NodeIds.
std::set<std::pair<std::string, std::string>> cabling(const Fabric& f) {
  std::set<std::pair<std::string, std::string>> out;
  for (const Node& n : f.nodes())
    for (const Port& p : n.ports)
      if (p.remote)
        out.emplace(fmt::format("{}[{}]", n.description, p.number),
                    fmt::format("{}[{}]", f.node(p.remote->node).description, p.remote->port));
  return out;
}

TEST(FabricFixtures, GeneratedFabricHasEveryNodeAndALidOnEveryEndpoint) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  EXPECT_EQ(f.switches().size(), 80u);
  EXPECT_EQ(f.endNodes().size(), 128u);
  for (const Node& n : f.nodes())
    for (const std::uint8_t p : n.endpointPorts())
      EXPECT_TRUE(n.ports[p].lid.isUnicast()) << n.description;
}

TEST(FabricFixtures, GeneratedFabricGetsIbsimGuidsInFileOrder) {
  const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  EXPECT_EQ(f.node(nodeNamed(f, "h0_0_0")).guid, Guid{0x100000});
  EXPECT_EQ(f.node(nodeNamed(f, "h0_0_1")).guid, Guid{0x100002});
  EXPECT_EQ(f.node(nodeNamed(f, "core0")).guid, Guid{0x200000});
  EXPECT_EQ(f.node(nodeNamed(f, "agg0_0")).guid, Guid{0x200010});
}

TEST(FabricFixtures, GeneratedFabricMatchesTheSampleOfTheSameSpec) {
  const Fabric generated = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  const Fabric sample = sampleFabric("dragonfly-a4-p2-h2.net");
  EXPECT_EQ(cabling(generated), cabling(sample));
  for (NodeId id = 0; id < sample.size(); ++id)
    EXPECT_EQ(generated.node(id).guid, sample.node(id).guid) << sample.node(id).description;
}

TEST(FabricFixtures, DegradedFabricLosesThatManyCables) {
  const auto full = cabling(generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}));
  const auto cut = cabling(generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}, {.links = 6}));
  EXPECT_EQ(full.size() - cut.size(), 2u * 6u);  // each cable is listed from both ends
}

TEST(FabricFixtures, RemoveCablesUnplugsBothEndsOfEveryNamedCable) {
  Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  const auto full = cabling(f);
  removeCables(f, {{"g0r0", "g0r1"}, {"g0r2", "g0r3"}});
  EXPECT_EQ(full.size() - cabling(f).size(), 2u * 2u);
  for (const Port& p : f.node(nodeNamed(f, "g0r0")).ports)
    EXPECT_FALSE(p.remote && f.node(p.remote->node).description == "g0r1") << int(p.number);
  EXPECT_THROW(removeCables(f, {{"g0r0", "g0r1"}}), std::runtime_error);  // already gone
}

TEST(FabricFixtures, LmcGivesCaPortsAlignedRanges) {
  const Fabric f = generatedFabric(DragonflyPlusSpec{}, {}, 2);
  for (const NodeId id : f.endNodes()) {
    const Port& p = f.node(id).ports[1];
    EXPECT_EQ(p.lmc, 2);
    EXPECT_EQ(p.lid.value % 4, 0) << f.node(id).description;
  }
}

TEST(FabricFixtures, SampleCaptureKeepsTheLidsItWasTakenWith) {
  // The capture says: "g4s1" base port 0 lid 27.
  const Fabric f = sampleFabric("dragonfly-plus-5groups.ibnetdiscover");
  EXPECT_EQ(f.node(nodeNamed(f, "g4s1")).ports[0].lid, Lid{27});
}

TEST(FabricFixtures, ThrowWithTheReason) {
  EXPECT_THROW(generatedFabric(FatTreeSpec{.radix = 7}), std::runtime_error);
  EXPECT_THROW(sampleFabric("no-such-file.net"), std::runtime_error);
  try {
    generatedFabric(FatTreeSpec{.radix = 7});
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("radix=7"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ibsm::testing
