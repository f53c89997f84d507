// Discovery over a healthy in-memory fabric: whatever the shape, the sweep
// reads back the very Fabric the fake wire answers from, field for field,
// and hands programming a working route to every node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include <filesystem>
#include <functional>
#include <set>

#include "sm/discovery/Discovery.h"
#include "tests/sm/discovery/DiscoveryChecks.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricBuilder.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::discovery {
namespace {

using testing::Compare;
using testing::FakeFabricTransport;
using ::testing::IsEmpty;

struct Swept {
  Result<DiscoveredSubnet> subnet;
  DiscoveryCounters counters;
};

// `sent` sees every SMP the walk sends.
Swept discover(const Fabric& fabric, PortRef smPort,
               const std::function<void(const Smp&)>& sent = {}) {
  FakeFabricTransport wire(fabric, smPort);
  if (sent) {
    wire.setFaults([&sent](const Smp& smp, std::size_t) {
      sent(smp);
      return FakeFabricTransport::Fate{};
    });
  }
  MadEngineOptions options;
  options.window = 16;
  options.clock = wire.clock();
  MadEngine engine(wire, options);
  Discovery discovery(engine, {},
                      std::make_shared<spdlog::logger>(
                          "discovery", std::make_shared<spdlog::sinks::null_sink_st>()));
  auto subnet = discovery.run();
  return {std::move(subnet), discovery.counters()};
}

void expectSameFabric(const Fabric& truth, PortRef smPort) {
  const Swept run = discover(truth, smPort);
  ASSERT_TRUE(run.subnet) << run.subnet.error().message;
  EXPECT_THAT(testing::compareFabrics(truth, run.subnet->fabric, Compare::Everything), IsEmpty());
  EXPECT_THAT(run.subnet->problems, IsEmpty());
  EXPECT_THAT(run.subnet->unconfirmedLinks, IsEmpty());
}

class SampleFabricTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleFabricTest, IsDiscoveredAsTheTopologyReaderReadsIt) {
  Fabric truth = testing::sampleFabric(GetParam());
  // A capture says nothing of a port without a cable (physical state 0 =
  // unknown); the fake wire, like ibsim, reports such a port Polling.
  for (NodeId id = 0; id < truth.size(); ++id)
    for (Port& p : truth.node(id).ports)
      if (p.number != 0 && !p.connected() && p.physState == 0) p.physState = 2;
  expectSameFabric(truth, testing::firstNodePort(truth));
}

// Every file of tests/data/topologies. Without the folder the list is empty
// (no throw at start-up, which would stop gtest's test discovery) and gtest
// fails the uninstantiated suite.
std::vector<std::string> sampleFiles() {
  std::vector<std::string> files;
  std::error_code missing;
  for (const auto& e : std::filesystem::directory_iterator(IBSM_TEST_TOPOLOGIES, missing)) {
    const auto ext = e.path().extension();
    if (ext == ".net" || ext == ".ibnetdiscover") files.push_back(e.path().filename().string());
  }
  std::ranges::sort(files);
  return files;
}

INSTANTIATE_TEST_SUITE_P(Samples, SampleFabricTest, ::testing::ValuesIn(sampleFiles()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

struct Shape {
  std::string name;
  TopologySpec spec;
};

class GeneratedShapeTest : public ::testing::TestWithParam<Shape> {};

TEST_P(GeneratedShapeTest, IsDiscoveredWhole) {
  const Fabric truth = testing::generatedFabric(GetParam().spec);
  expectSameFabric(truth, testing::firstNodePort(truth));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GeneratedShapeTest,
    ::testing::Values(Shape{"fatTree2Level", FatTreeSpec{.levels = 2, .radix = 8}},
                      Shape{"fatTree3Level", FatTreeSpec{.levels = 3, .radix = 8}},
                      Shape{"fatTreeTrunk3", FatTreeSpec{.levels = 2, .radix = 12, .trunk = 3}},
                      Shape{"oversubscribed",
                            FatTreeSpec{.levels = 2, .radix = 12, .oversubscription = 3}},
                      Shape{"fatTree3LevelRadix24", FatTreeSpec{.levels = 3, .radix = 24}},
                      Shape{"dragonfly", DragonflySpec{.a = 4, .p = 2, .h = 2}},
                      Shape{"dragonflyPlus", DragonflyPlusSpec{}}),
    [](const auto& info) { return info.param.name; });

TEST(DiscoveryTest, FindsEveryPortOfMultiPortCasThroughTheirOwnSwitches) {
  const Fabric truth = testing::sampleFabric("two-switch-dual-port-hcas.net");
  const Swept run = discover(truth, PortRef{testing::nodeNamed(truth, "Switch1"), 0});
  ASSERT_TRUE(run.subnet);
  const Fabric& f = run.subnet->fabric;
  for (const char* name : {"Hca1", "Hca2"}) {
    const Node& hca = f.node(testing::nodeNamed(f, name));
    ASSERT_EQ(hca.numPorts(), 2);
    EXPECT_EQ(hca.ports[1].guid, Guid{hca.guid.value + 1}) << name;
    EXPECT_EQ(hca.ports[2].guid, Guid{hca.guid.value + 2}) << name;
    EXPECT_TRUE(hca.ports[1].connected() && hca.ports[2].connected()) << name;
  }
}

TEST(DiscoveryTest, AnSmOnTheSecondPortOfAnHcaReachesItsFirstPortThroughTheSwitches) {
  const Fabric truth = testing::sampleFabric("two-switch-dual-port-hcas.net");
  const NodeId hca = testing::nodeNamed(truth, "Hca2");
  const Swept run = discover(truth, PortRef{hca, 2});
  ASSERT_TRUE(run.subnet);
  EXPECT_THAT(testing::compareFabrics(truth, run.subnet->fabric, Compare::Everything), IsEmpty());
  EXPECT_EQ(run.subnet->smPort, (PortRef{0, 2}));
  EXPECT_EQ(run.subnet->fabric.node(0).guid, truth.node(hca).guid);
}

TEST(DiscoveryTest, RecordsEveryCableOfATrunk) {
  testing::FabricBuilder b;
  b.addSwitch("a", 8);
  b.addSwitch("b", 8);
  for (std::uint8_t p = 1; p <= 4; ++p) b.cable("a", p, "b", p + 4);
  b.addHost("h", "a", 8);
  const Fabric truth = b.build();
  const Swept run = discover(truth, testing::firstNodePort(truth));
  ASSERT_TRUE(run.subnet);
  EXPECT_EQ(testing::cableList(run.subnet->fabric), testing::cableList(truth));
  EXPECT_EQ(run.counters.cables, 5U);
}

TEST(DiscoveryTest, GivesEachNodeARouteThatLeadsToIt) {
  const Fabric truth = testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  const PortRef sm = testing::firstNodePort(truth);
  const Swept run = discover(truth, sm);
  ASSERT_TRUE(run.subnet);
  const DiscoveredSubnet& s = *run.subnet;
  ASSERT_EQ(s.pathTo.size(), s.fabric.size());
  for (NodeId id = 0; id < s.fabric.size(); ++id) {
    const auto landed = testing::followPath(truth, sm, s.pathTo[id]);
    ASSERT_TRUE(landed) << s.pathTo[id].toString();
    EXPECT_EQ(truth.node(landed->node).guid, s.fabric.node(id).guid) << s.pathTo[id].toString();
  }
  // Breadth first: the farthest nodes of a 3-level tree seen from a host
  // are the other pods' hosts, 6 switch hops (7 cables) away.
  std::size_t longest = 0;
  for (const DrPath& p : s.pathTo) longest = std::max<std::size_t>(longest, p.hopCount());
  EXPECT_EQ(longest, 6U);
}

TEST(DiscoveryTest, KeepsPortInfoAndSwitchInfoAsReadForProgramming) {
  const Fabric truth = testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const Swept run = discover(truth, testing::firstNodePort(truth));
  ASSERT_TRUE(run.subnet);
  const DiscoveredSubnet& s = *run.subnet;
  std::size_t expectedPorts = 0;
  for (const Node& n : truth.nodes()) expectedPorts += n.isSwitch() ? n.ports.size() : n.numPorts();
  EXPECT_EQ(s.portInfo.size(), expectedPorts);
  EXPECT_EQ(s.switchInfo.size(), truth.switches().size());
  for (const auto& [ref, pi] : s.portInfo) {
    const Port& port = s.fabric.port(ref);
    EXPECT_EQ(pi.portState, port.state);
    EXPECT_EQ(pi.linkWidthActive, port.link.widthActive);
  }
  EXPECT_EQ(s.smPort, (PortRef{0, 1}));
}

TEST(DiscoveryTest, KeepsEachNodesRevisionForTheSaNodeRecords) {
  Fabric truth = testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  for (NodeId id = 0; id < truth.size(); ++id) truth.node(id).revision = 0xA0 + id;
  const Swept run = discover(truth, testing::firstNodePort(truth));
  ASSERT_TRUE(run.subnet);
  for (const Node& n : truth.nodes()) {
    const auto id = run.subnet->fabric.findNode(n.guid);
    ASSERT_TRUE(id);
    EXPECT_EQ(run.subnet->fabric.node(*id).revision, n.revision) << n.description;
  }
}

TEST(DiscoveryTest, CountsItsMadsAndTime) {
  const Fabric truth = testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
  const Swept run = discover(truth, testing::firstNodePort(truth));
  ASSERT_TRUE(run.subnet);
  // One NodeInfo for the SM's own node and one through every cable (from
  // the end nearer the SM: a fat tree has no cable between two nodes as far
  // from the SM); NodeDescription of every node; SwitchInfo and PortInfo
  // 0..n of every switch; PortInfo of every cabled CA port.
  std::size_t expected = 1 + testing::cableList(truth).size();
  for (const Node& n : truth.nodes()) {
    std::size_t cabled = 0;
    for (const Port& p : n.ports) cabled += p.connected() ? 1 : 0;
    expected += 1 + (n.isSwitch() ? 1 + n.ports.size() : cabled);
  }
  EXPECT_EQ(run.counters.madsSent, expected);
  EXPECT_EQ(run.subnet->madsSent, expected);
  EXPECT_EQ(run.counters.nodes, truth.size());
  EXPECT_GT(run.counters.elapsed.count(), 0);
}

// Whatever the shape, no cable is probed from both ends unless its two ends
// are as far from the SM (then the walk cannot know which answers first),
// and every cable is still recorded with no problem.
class OneEndProbeTest : public ::testing::TestWithParam<FatTreeSpec> {};

TEST_P(OneEndProbeTest, ProbesEachCableOnceBetweenLevels) {
  const Fabric truth = testing::generatedFabric(GetParam());
  std::size_t nodeInfos = 0;
  const Swept run = discover(truth, testing::firstNodePort(truth), [&](const Smp& smp) {
    nodeInfos += smp.header.attributeId == AttributeId::NodeInfo ? 1 : 0;
  });
  const auto& subnet = run.subnet;
  ASSERT_TRUE(subnet) << subnet.error().message;
  EXPECT_EQ(testing::cableList(subnet->fabric), testing::cableList(truth));
  EXPECT_THAT(subnet->problems, IsEmpty());
  EXPECT_EQ(nodeInfos, 1 + testing::cableList(truth).size());
}

INSTANTIATE_TEST_SUITE_P(FatTrees, OneEndProbeTest,
                         ::testing::Values(FatTreeSpec{.levels = 2, .radix = 8},
                                           FatTreeSpec{.levels = 3, .radix = 4},
                                           FatTreeSpec{.levels = 3, .radix = 8}));

}  // namespace
}  // namespace ibsm::sm::discovery
