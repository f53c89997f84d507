// The sample fabrics of tests/data/topologies: each exists as an ibsim net
// file and as what ibnetdiscover printed for it on ibsim. Both must read, and
// read as the same fabric: a dry run of the net file names the ports a live
// run sees.
#include <gtest/gtest.h>
#include <ibsm/Topology.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace ibsm {
namespace {

const std::filesystem::path kSamples{IBSM_TEST_TOPOLOGIES};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Fabric read(const std::string& file) {
  auto f = readTopologyFile(kSamples / file);
  EXPECT_TRUE(f) << (f ? "" : f.error().message);
  if (f) {
    EXPECT_EQ(f->warnings, std::vector<std::string>{}) << file;
  }
  return f ? std::move(f->fabric) : Fabric{};
}

// A cable named by GUIDs, lower end first, so two Fabrics compare; then
// the width, speed and extended speed it trained to.
using Cable = std::tuple<std::uint64_t, int, std::uint64_t, int, int, int, int>;

std::set<Cable> cables(const Fabric& f) {
  std::set<Cable> out;
  for (NodeId n = 0; n < f.size(); ++n) {
    for (const Port& p : f.node(n).ports) {
      if (!p.remote) continue;
      std::pair a{f.node(n).guid.value, int{p.number}};
      std::pair b{f.node(p.remote->node).guid.value, int{p.remote->port}};
      if (b < a) std::swap(a, b);
      out.emplace(a.first, a.second, b.first, b.second, p.link.widthActive, p.link.speedActive,
                  p.link.extSpeedActive);
    }
  }
  return out;
}

struct NodeSummary {
  NodeType type;
  std::uint64_t systemImageGuid;
  std::string description;
  int ports;
  std::vector<std::uint64_t> portGuids;
  auto operator<=>(const NodeSummary&) const = default;
};

std::map<std::uint64_t, NodeSummary> summary(const Fabric& f) {
  std::map<std::uint64_t, NodeSummary> out;
  for (const Node& n : f.nodes()) {
    NodeSummary s{n.type, n.systemImageGuid.value, n.description, n.numPorts(), {}};
    for (const std::uint8_t p : n.endpointPorts()) s.portGuids.push_back(n.ports[p].guid.value);
    out.emplace(n.guid.value, s);
  }
  return out;
}

class SampleFabric : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleFabric, NetFileAndCaptureReadAsTheSameFabric) {
  const Fabric net = read(GetParam() + ".net");
  const Fabric capture = read(GetParam() + ".ibnetdiscover");
  ASSERT_GT(net.size(), 0u);
  EXPECT_EQ(net.size(), capture.size());
  EXPECT_EQ(summary(net), summary(capture));
  EXPECT_EQ(cables(net), cables(capture));
  EXPECT_FALSE(cables(net).empty());
}

TEST_P(SampleFabric, LinksAgreeOnWidthAndSpeedAndAreActive) {
  for (const std::string ext : {".net", ".ibnetdiscover"}) {
    const Fabric f = read(GetParam() + ext);
    for (const Node& n : f.nodes()) {
      for (const Port& p : n.ports) {
        if (!p.remote) continue;
        const Port& other = f.port(*p.remote);
        EXPECT_EQ(p.link.widthActive, other.link.widthActive) << ext << " " << n.description;
        EXPECT_EQ(p.link.speedActive, other.link.speedActive) << ext << " " << n.description;
        EXPECT_EQ(p.state, PortState::Active);
        EXPECT_EQ(f.port(*other.remote).guid, p.guid);  // the cable points back
      }
    }
  }
}

TEST_P(SampleFabric, FormatIsToldFromTheContent) {
  EXPECT_EQ(detectTopologyFormat(slurp(kSamples / (GetParam() + ".net"))),
            TopologyFormat::IbsimNet);
  EXPECT_EQ(detectTopologyFormat(slurp(kSamples / (GetParam() + ".ibnetdiscover"))),
            TopologyFormat::Ibnetdiscover);
}

TEST_P(SampleFabric, CaptureCarriesTheLidsTheSmGave) {
  const Fabric f = read(GetParam() + ".ibnetdiscover");
  std::set<std::uint16_t> lids;
  for (const Node& n : f.nodes())
    for (const std::uint8_t p : n.endpointPorts()) {
      if (!n.isSwitch() && !n.ports[p].remote) continue;
      EXPECT_TRUE(n.ports[p].lid.isUnicast()) << n.description << " port " << int(p);
      EXPECT_TRUE(lids.insert(n.ports[p].lid.value).second) << "LID used twice";
    }
}

INSTANTIATE_TEST_SUITE_P(Topologies, SampleFabric,
                         ::testing::Values("dragonfly-a4-p2-h2", "dragonfly-plus-5groups",
                                           "fat-tree-2level-k12-trunk2-slowlink",
                                           "fat-tree-3level-k8-degraded6", "fat-tree-3level-k8",
                                           "fat-tree-3level-k8-rails4-an-io",
                                           "fat-tree-3level-k8-director1", "irregular-8sw-144hosts",
                                           "two-switch-dual-port-hcas"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(SampleFabrics, EverySampleInTheFolderIsCovered) {
  std::size_t pairs = 0;
  for (const auto& e : std::filesystem::directory_iterator(kSamples))
    if (e.path().extension() == ".net") {
      EXPECT_TRUE(std::filesystem::exists(
          std::filesystem::path(e.path()).replace_extension(".ibnetdiscover")))
          << e.path();
      ++pairs;
    }
  EXPECT_EQ(pairs, 9u) << "a new sample pair: add it to the Topologies instantiation";
}

TEST(SampleFabrics, AnUnreadableFileIsAnErrorNamingIt) {
  const auto f = readTopologyFile(kSamples / "no-such-fabric.net");
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("no-such-fabric.net: cannot read"), std::string::npos)
      << f.error().message;
}

TEST(SampleFabrics, TwoSwitchExampleHasIbsimsGuidsAndLids) {
  const Fabric f = read("two-switch-dual-port-hcas.ibnetdiscover");
  const auto sw1 = f.findNode(Guid{0x200000});
  const auto hca2 = f.findNode(Guid{0x100003});
  ASSERT_TRUE(sw1 && hca2);
  EXPECT_EQ(f.node(*sw1).description, "Switch1");
  EXPECT_TRUE(f.node(*sw1).isSwitch());
  EXPECT_EQ(f.node(*sw1).numPorts(), 8);
  EXPECT_EQ(f.node(*sw1).ports[0].lid, Lid{1});
  EXPECT_EQ(f.node(*sw1).ports[0].lmc, 0);
  EXPECT_EQ(f.node(*hca2).type, NodeType::Ca);
  EXPECT_EQ(f.node(*hca2).ports[2].guid, Guid{0x100005});
  EXPECT_EQ(f.node(*hca2).ports[1].lid, Lid{5});
  EXPECT_EQ(f.node(*hca2).ports[2].lid, Lid{6});
  EXPECT_EQ(f.node(*hca2).systemImageGuid, Guid{0x100003});
  const auto end = f.findPort(Guid{0x100005});
  ASSERT_TRUE(end);
  EXPECT_EQ(f.port(*end).remote, (PortRef{f.findNode(Guid{0x200001}).value(), 2}));
  // Switch1 ports 3 and 5 go to Switch2; 4, 6, 7, 8 are dark.
  EXPECT_TRUE(f.node(*sw1).ports[5].connected());
  EXPECT_FALSE(f.node(*sw1).ports[4].connected());
  EXPECT_EQ(f.node(*sw1).ports[4].state, PortState::Down);
}

TEST(SampleFabrics, SlowLinkIsOneLaneWideInBothFormats) {
  for (const std::string ext : {".net", ".ibnetdiscover"}) {
    const Fabric f = read("fat-tree-2level-k12-trunk2-slowlink" + ext);
    // spine1 (0x200001) port 2 <-> leaf0 (0x200003) port 10 was cabled with w=1.
    const auto spine1 = f.findNode(Guid{0x200001});
    const auto leaf0 = f.findNode(Guid{0x200003});
    ASSERT_TRUE(spine1 && leaf0) << ext;
    EXPECT_EQ(f.node(*spine1).description, "spine1");
    EXPECT_EQ(f.node(*leaf0).description, "leaf0");
    const Port& slow = f.node(*spine1).ports[2];
    ASSERT_EQ(slow.remote, (PortRef{*leaf0, 10})) << ext;
    EXPECT_EQ(slow.link.widthActive, 1) << ext;  // 1x
    EXPECT_EQ(f.node(*leaf0).ports[10].link.widthActive, 1) << ext;
    EXPECT_EQ(f.node(*spine1).ports[1].link.widthActive, 2) << ext;  // the trunk partner: 4x
    EXPECT_EQ(slow.link.speedActive, 1) << ext;                      // SDR
    int narrow = 0;
    for (const Node& n : f.nodes())
      for (const Port& p : n.ports) narrow += p.remote && p.link.widthActive == 1;
    EXPECT_EQ(narrow, 2) << ext;  // the one slow cable, seen from both ends
  }
}

// What ibnetdiscover saw on ibsim: every aggregation node on its switch's
// last port, reporting the switch's SystemImageGUID.
TEST(SampleFabrics, CaptureShowsEachAggregationNodeOnItsSwitchsLastPortWithItsImage) {
  const Fabric f = read("fat-tree-3level-k8-rails4-an-io.ibnetdiscover");
  const std::string prefix = "Mellanox Technologies Aggregation Node ";
  int seen = 0;
  for (const Node& n : f.nodes()) {
    if (!n.description.starts_with(prefix)) continue;
    ++seen;
    ASSERT_EQ(n.numPorts(), 1) << n.description;
    ASSERT_TRUE(n.ports[1].remote) << n.description;
    const Node& sw = f.node(n.ports[1].remote->node);
    EXPECT_EQ(prefix + sw.description, n.description);
    EXPECT_EQ(n.ports[1].remote->port, sw.numPorts()) << n.description;
    EXPECT_EQ(n.systemImageGuid, sw.systemImageGuid) << n.description;
    EXPECT_NE(sw.systemImageGuid, sw.guid) << sw.description;
  }
  EXPECT_EQ(seen, 80);
}

TEST(SampleFabrics, CaptureLidsMatchTheNodesTheyName) {
  const Fabric f = read("fat-tree-2level-k12-trunk2-slowlink.ibnetdiscover");
  const auto leaf5 = f.findNode(Guid{0x200008});
  ASSERT_TRUE(leaf5);
  EXPECT_EQ(f.node(*leaf5).description, "leaf5");
  EXPECT_EQ(f.node(*leaf5).ports[0].lid, Lid{13});
  const auto h50 = f.findPort(Guid{0x10003d});
  ASSERT_TRUE(h50);
  EXPECT_EQ(f.node(h50->node).description, "h5_0");
  EXPECT_EQ(f.port(*h50).lid, Lid{40});
  EXPECT_EQ(f.port(*h50).remote, (PortRef{*leaf5, 1}));
}

}  // namespace
}  // namespace ibsm
