// The furniture of production fat trees in `generateNetFile`: SHARP
// aggregation nodes, I/O hosts, director pods and rails, each alone, all
// together and with every shape option. Judged on the Fabric the project's
// net file reader builds from the generated text (what the dry run and the
// simulator see), by node names, ports and GUIDs.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <ibsm/Topology.h>
#include <ibsm/TopologyGenerator.h>

#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <vector>

namespace ibsm {
namespace {

const std::string kAggregationNode = "Mellanox Technologies Aggregation Node ";
constexpr std::uint64_t kImageGuidBase = 0x7cfe900300000000;
constexpr std::uint64_t kFirstSwitchGuid = 0x200000;  // ibsim's, in file order

// A far end of a cable: node name and port; empty when the port is dark.
struct End {
  std::string node;
  int port{0};
  bool operator==(const End&) const = default;
};

std::ostream& operator<<(std::ostream& os, const End& e) {
  return os << '"' << e.node << "\"[" << e.port << ']';
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.starts_with(prefix);
}

// A generated fabric read back with parseNetFile, its nodes found by name.
class Generated {
 public:
  explicit Generated(const FatTreeSpec& spec, Degradation cut = {}) {
    const auto text = generateNetFile(spec, cut);
    if (!text) {
      ADD_FAILURE() << text.error().message;
      return;
    }
    text_ = *text;
    auto fabric = parseNetFile(text_, "generated");
    if (!fabric) {
      ADD_FAILURE() << fabric.error().message;
      return;
    }
    fabric_ = std::move(*fabric);
    for (NodeId n = 0; n < fabric_.size(); ++n) byName_.emplace(fabric_.node(n).description, n);
  }

  const Fabric& fabric() const { return fabric_; }
  const std::string& text() const { return text_; }
  bool has(const std::string& name) const { return byName_.contains(name); }
  const Node& node(const std::string& name) const { return fabric_.node(byName_.at(name)); }

  End far(const std::string& name, int port) const {
    const Port& p = node(name).ports.at(static_cast<std::size_t>(port));
    if (!p.remote) return {};
    return {fabric_.node(p.remote->node).description, p.remote->port};
  }

  std::vector<std::string> names(const std::function<bool(const Node&)>& which) const {
    std::vector<std::string> out;
    for (const Node& n : fabric_.nodes())
      if (which(n)) out.push_back(n.description);
    return out;
  }
  std::vector<std::string> switches() const {
    return names([](const Node& n) { return n.isSwitch(); });
  }
  std::vector<std::string> cas(const std::string& prefix = "") const {
    return names([&](const Node& n) { return !n.isSwitch() && startsWith(n.description, prefix); });
  }

  int switchCables() const {
    int ends = 0;
    for (const Node& n : fabric_.nodes())
      for (const Port& p : n.ports)
        ends += n.isSwitch() && p.remote && fabric_.node(p.remote->node).isSwitch();
    return ends / 2;
  }

  bool switchesConnected() const {
    const auto all = fabric_.switches();
    if (all.empty()) return false;
    std::set<NodeId> seen{all.front()};
    std::queue<NodeId> todo;
    for (todo.push(all.front()); !todo.empty(); todo.pop())
      for (const Port& p : fabric_.node(todo.front()).ports)
        if (p.remote && fabric_.node(p.remote->node).isSwitch() &&
            seen.insert(p.remote->node).second)
          todo.push(p.remote->node);
    return seen.size() == all.size();
  }

 private:
  std::string text_;
  Fabric fabric_;
  std::map<std::string, NodeId> byName_;
};

std::string an(const std::string& sw) {
  return kAggregationNode + sw;
}

// "h3_7 mlx5_2" -> {server "h3_7", rail 2}; nullopt for a name without a rail.
struct RailHca {
  std::string server;
  int rail{0};
};
std::optional<RailHca> railOf(const std::string& name) {
  const auto at = name.rfind(" mlx5_");
  if (at == std::string::npos) return std::nullopt;
  return RailHca{name.substr(0, at), std::stoi(name.substr(at + 6))};
}

// --- Aggregation nodes ------------------------------------------------------

class WithAggregationNodes : public ::testing::TestWithParam<FatTreeSpec> {};

TEST_P(WithAggregationNodes, EverySwitchHasOneOnItsLastPortSharingItsSystemImageGuid) {
  FatTreeSpec spec = GetParam();
  spec.aggregationNodes = true;
  const Generated g(spec);
  const auto switches = g.switches();
  ASSERT_FALSE(switches.empty());
  EXPECT_EQ(g.cas(kAggregationNode).size(), switches.size());
  for (const std::string& sw : switches) {
    const Node& s = g.node(sw);
    EXPECT_EQ(s.numPorts(), spec.radix + 1) << sw;
    ASSERT_EQ(g.far(sw, s.numPorts()), (End{an(sw), 1})) << sw;
    const Node& node = g.node(an(sw));
    EXPECT_EQ(node.type, NodeType::Ca);
    EXPECT_EQ(node.numPorts(), 1);
    EXPECT_EQ(node.systemImageGuid, s.systemImageGuid) << sw;
    // The Mellanox OUI and the switch's place in the file: one per switch,
    // never a node GUID ibsim hands out.
    EXPECT_EQ(s.systemImageGuid.value, kImageGuidBase + (s.guid.value - kFirstSwitchGuid)) << sw;
  }
}

TEST_P(WithAggregationNodes, ComputeHostsKeepTheirGuidsAndTheirOwnImage) {
  FatTreeSpec spec = GetParam();
  const Generated plain(spec);
  spec.aggregationNodes = true;
  const Generated furnished(spec);
  for (const std::string& host : plain.cas()) {
    EXPECT_EQ(furnished.node(host).guid, plain.node(host).guid) << host;
    EXPECT_EQ(furnished.node(host).systemImageGuid, furnished.node(host).guid) << host;
  }
}

INSTANTIATE_TEST_SUITE_P(Generator, WithAggregationNodes,
                         ::testing::Values(FatTreeSpec{.levels = 2, .radix = 8},
                                           FatTreeSpec{.levels = 3, .radix = 8},
                                           FatTreeSpec{.levels = 3, .radix = 8, .trunk = 2}));

TEST(GeneratorFurniture, AggregationNodesNeedAFreePortNumber) {
  const auto r = generateNetFile(
      FatTreeSpec{.levels = 2, .radix = 254, .hostsPerLeaf = 1, .aggregationNodes = true});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--aggregation-nodes"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("255 ports"), std::string::npos) << r.error().message;
}

// --- I/O hosts --------------------------------------------------------------

TEST(GeneratorFurniture, IoHostsGoRoundRobinOverTheSpinesOnPortsAfterTheRadix) {
  const Generated g(FatTreeSpec{.levels = 2, .radix = 8, .ioHosts = {{1, 5}}});
  ASSERT_EQ(g.cas("io").size(), 5u);
  // 5 over 4 spines: two extra ports each, spine0 takes the fifth.
  for (int s = 0; s < 4; ++s) EXPECT_EQ(g.node(fmt::format("spine{}", s)).numPorts(), 10);
  for (int n = 0; n < 4; ++n)
    EXPECT_EQ(g.far(fmt::format("spine{}", n), 9), (End{fmt::format("io1_{}", n), 1}));
  EXPECT_EQ(g.far("spine0", 10), (End{"io1_4", 1}));
  EXPECT_EQ(g.far("spine1", 10), End{});
  EXPECT_EQ(g.node("leaf0").numPorts(), 8);  // other levels keep their radix
  EXPECT_EQ(g.node("io1_0").numPorts(), 1);
}

TEST(GeneratorFurniture, IoHostsOnTheCoresOfAThreeLevelTree) {
  const Generated g(FatTreeSpec{.levels = 3, .radix = 8, .ioHosts = {{2, 4}}});
  for (int c = 0; c < 16; ++c) {
    const std::string core = fmt::format("core{}", c);
    EXPECT_EQ(g.node(core).numPorts(), 9) << core;
    EXPECT_EQ(g.far(core, 9), (c < 4 ? End{fmt::format("io2_{}", c), 1} : End{})) << core;
  }
  EXPECT_EQ(g.node("agg0_0").numPorts(), 8);
  EXPECT_EQ(g.node("edge0_0").numPorts(), 8);
}

TEST(GeneratorFurniture, IoHostsOnAggregationSwitchesDifferByAtMostOnePerSwitch) {
  const Generated g(FatTreeSpec{.levels = 3, .radix = 8, .ioHosts = {{1, 40}}});
  std::map<std::string, int> perSwitch;
  for (const std::string& io : g.cas("io1_")) {
    const End sw = g.far(io, 1);
    EXPECT_TRUE(startsWith(sw.node, "agg")) << io;
    EXPECT_GT(sw.port, 8) << io;
    ++perSwitch[sw.node];
  }
  ASSERT_EQ(perSwitch.size(), 32u);
  for (const auto& [sw, n] : perSwitch) EXPECT_TRUE(n == 1 || n == 2) << sw;
  // In generation order: the 33rd goes to the first aggregation switch again.
  EXPECT_EQ(g.far("agg0_0", 10), (End{"io1_32", 1}));
  EXPECT_EQ(g.node("agg7_3").numPorts(), 10);
}

TEST(GeneratorFurniture, IoHostsOfSeveralLevelsDoNotDependOnTheirOrder) {
  const Generated a(FatTreeSpec{.levels = 3, .radix = 8, .ioHosts = {{2, 3}, {1, 2}}});
  const Generated b(FatTreeSpec{.levels = 3, .radix = 8, .ioHosts = {{1, 2}, {2, 3}}});
  EXPECT_EQ(a.text(), b.text());
  EXPECT_EQ(a.cas("io1_").size(), 2u);
  EXPECT_EQ(a.cas("io2_").size(), 3u);
}

// --- Director pods ----------------------------------------------------------

TEST(GeneratorFurniture, DirectorPodsHaveNoEdgesAndHostsOnTheirAggregationSwitches) {
  const Generated g(FatTreeSpec{.levels = 3, .radix = 8, .directorPods = 1});
  EXPECT_EQ(g.switches().size(), 80u - 4u);
  EXPECT_FALSE(g.has("edge0_0"));
  EXPECT_TRUE(g.has("edge1_0"));
  for (int a = 0; a < 4; ++a) {
    const std::string agg = fmt::format("agg0_{}", a);
    for (int h = 0; h < 4; ++h)
      EXPECT_EQ(g.far(agg, h + 1), (End{fmt::format("d0_{}_{}", a, h), 1})) << agg;
    for (int up = 5; up <= 8; ++up) EXPECT_TRUE(startsWith(g.far(agg, up).node, "core")) << agg;
  }
  EXPECT_EQ(g.cas("d").size(), 16u);
  EXPECT_EQ(g.cas("h").size(), 7u * 4u * 4u);
  EXPECT_EQ(g.far("edge1_0", 1), (End{"h1_0_0", 1}));  // the other pods as before
}

TEST(GeneratorFurniture, DirectorPodHostsSitOneSwitchLevelBelowTheCoresOthersTwo) {
  const Generated g(FatTreeSpec{.levels = 3, .radix = 8, .directorPods = 2});
  auto touchesCore = [&](const std::string& sw) {
    for (int p = 1; p <= g.node(sw).numPorts(); ++p)
      if (startsWith(g.far(sw, p).node, "core")) return true;
    return false;
  };
  for (const std::string& host : g.cas()) {
    const std::string sw = g.far(host, 1).node;
    if (startsWith(host, "d")) {
      EXPECT_TRUE(touchesCore(sw)) << host << " on " << sw;
    } else {
      EXPECT_FALSE(touchesCore(sw)) << host << " on " << sw;
      EXPECT_TRUE(touchesCore(g.far(sw, 5).node)) << host << " above " << sw;
    }
  }
}

// --- Rails ------------------------------------------------------------------

TEST(GeneratorFurniture, TwoLevelRailsPutHcaROfEveryServerOnLeafROfItsGroup) {
  const Generated g(FatTreeSpec{.levels = 2, .radix = 8, .rails = 4});
  EXPECT_EQ(g.cas().size(), 32u);  // as many HCAs as hosts without rails
  for (int group = 0; group < 2; ++group)
    for (int s = 0; s < 4; ++s)
      for (int r = 0; r < 4; ++r)
        EXPECT_EQ(g.far(fmt::format("leaf{}", group * 4 + r), s + 1),
                  (End{fmt::format("h{}_{} mlx5_{}", group, s, r), 1}));
}

TEST(GeneratorFurniture, ThreeLevelRailGroupsAreConsecutiveEdgesNumberedOverTheFabric) {
  const Generated g(FatTreeSpec{.levels = 3, .radix = 8, .rails = 2});
  EXPECT_EQ(g.cas().size(), 128u);
  for (int pod = 0; pod < 8; ++pod)
    for (int group = 0; group < 2; ++group)
      for (int s = 0; s < 4; ++s)
        for (int r = 0; r < 2; ++r)
          EXPECT_EQ(g.far(fmt::format("edge{}_{}", pod, group * 2 + r), s + 1),
                    (End{fmt::format("h{}_{} mlx5_{}", pod * 2 + group, s, r), 1}));
}

TEST(GeneratorFurniture, ARailGroupHoldsHostsPerLeafServers) {
  const Generated g(FatTreeSpec{.levels = 2, .radix = 8, .hostsPerLeaf = 2, .rails = 2});
  EXPECT_EQ(g.cas().size(), 8u * 2u);
  EXPECT_EQ(g.far("leaf3", 2), (End{"h1_1 mlx5_1", 1}));
  EXPECT_EQ(g.far("leaf3", 3), (End{"spine0", 4}));  // the up-links follow the hosts
  EXPECT_EQ(g.far("leaf3", 7), End{});               // and leave the rest spare
}

TEST(GeneratorFurniture, OneRailIsNoRails) {
  const FatTreeSpec plain{.levels = 3, .radix = 8};
  FatTreeSpec one = plain;
  one.rails = 1;
  EXPECT_EQ(Generated(one).text(), Generated(plain).text());
}

// --- All of it together -----------------------------------------------------

// --levels 3 --radix 8 --rails 4 --aggregation-nodes --io-hosts 2:4
const FatTreeSpec kFurnished{
    .levels = 3, .radix = 8, .aggregationNodes = true, .ioHosts = {{2, 4}}, .rails = 4};

TEST(GeneratorFurniture, CombinedTreeHasEveryPieceInItsPlace) {
  const Generated g(kFurnished);
  EXPECT_EQ(g.switches().size(), 80u);
  EXPECT_EQ(g.cas().size(), 128u + 4u + 80u);
  EXPECT_EQ(g.fabric().node(0).description, "h0_0 mlx5_0");  // ibsim's SM node: a compute host
  for (const std::string& sw : g.switches()) {
    const int ports = startsWith(sw, "core") ? 10 : 9;  // radix, I/O port on cores, AN last
    ASSERT_EQ(g.node(sw).numPorts(), ports) << sw;
    EXPECT_EQ(g.far(sw, ports), (End{an(sw), 1})) << sw;
    EXPECT_EQ(g.node(an(sw)).systemImageGuid, g.node(sw).systemImageGuid) << sw;
  }
  for (int c = 0; c < 16; ++c)
    EXPECT_EQ(g.far(fmt::format("core{}", c), 9),
              (c < 4 ? End{fmt::format("io2_{}", c), 1} : End{}));
  for (int pod = 0; pod < 8; ++pod)
    for (int s = 0; s < 4; ++s)
      for (int r = 0; r < 4; ++r)
        EXPECT_EQ(g.far(fmt::format("edge{}_{}", pod, r), s + 1),
                  (End{fmt::format("h{}_{} mlx5_{}", pod, s, r), 1}));
}

TEST(GeneratorFurniture, CombinedTreeWithADirectorPodMakesItsHostsRailedServersToo) {
  FatTreeSpec spec = kFurnished;
  spec.directorPods = 1;
  const Generated g(spec);
  EXPECT_EQ(g.switches().size(), 76u);
  EXPECT_EQ(g.cas().size(), 7u * 16u + 16u + 4u + 76u);
  EXPECT_EQ(g.fabric().node(0).description, "d0_0_0 mlx5_0");
  // The director pod: one rail group of its 4 aggregation switches.
  for (int s = 0; s < 4; ++s)
    for (int r = 0; r < 4; ++r)
      EXPECT_EQ(g.far(fmt::format("agg0_{}", r), s + 1),
                (End{fmt::format("d0_0_{} mlx5_{}", s, r), 1}));
  EXPECT_EQ(g.far("agg0_0", 9), (End{an("agg0_0"), 1}));
  // Ordinary rail groups count from the first ordinary pod.
  EXPECT_EQ(g.far("edge1_2", 3), (End{"h0_2 mlx5_2", 1}));
  EXPECT_EQ(g.far("edge7_3", 4), (End{"h6_3 mlx5_3", 1}));
}

// --- Every option with every other --------------------------------------------

struct Case {
  const char* what;
  FatTreeSpec spec;
  Degradation cut{};
};

class FurnishedTree : public ::testing::TestWithParam<Case> {
 protected:
  const FatTreeSpec& spec_ = GetParam().spec;
  const Generated g_{spec_, GetParam().cut};

  int level(const std::string& sw) const {
    if (startsWith(sw, "core")) return 2;
    if (startsWith(sw, "agg")) return 1;
    return startsWith(sw, "spine") ? 1 : 0;
  }
  int ioPorts(int lvl) const {
    for (const IoHosts& io : spec_.ioHosts)
      if (io.level == lvl) {
        int switches = 0;
        for (const std::string& sw : g_.switches()) switches += level(sw) == lvl;
        return (io.count + switches - 1) / switches;
      }
    return 0;
  }
};

TEST_P(FurnishedTree, SwitchesDeclareRadixThenIoPortsThenTheAggregationNode) {
  for (const std::string& sw : g_.switches()) {
    const int ports = spec_.radix + ioPorts(level(sw)) + (spec_.aggregationNodes ? 1 : 0);
    ASSERT_EQ(g_.node(sw).numPorts(), ports) << sw;
    if (spec_.aggregationNodes) {
      EXPECT_EQ(g_.far(sw, ports), (End{an(sw), 1})) << sw;
      EXPECT_EQ(g_.node(an(sw)).systemImageGuid, g_.node(sw).systemImageGuid) << sw;
    }
  }
}

TEST_P(FurnishedTree, IoHostsSitOnTheirLevelsExtraPorts) {
  std::size_t total = 0;
  for (const IoHosts& io : spec_.ioHosts) {
    const auto hosts = g_.cas(fmt::format("io{}_", io.level));
    EXPECT_EQ(hosts.size(), static_cast<std::size_t>(io.count));
    total += hosts.size();
    for (const std::string& h : hosts) {
      const End sw = g_.far(h, 1);
      EXPECT_EQ(level(sw.node), io.level) << h;
      EXPECT_GT(sw.port, spec_.radix) << h;
      EXPECT_LE(sw.port, spec_.radix + ioPorts(io.level)) << h;
    }
  }
  EXPECT_EQ(g_.cas("io").size(), total);
}

// HCA r of a server on port s+1 of the r-th switch of its group: the same
// port on every rail, and switches next to each other in the file.
TEST_P(FurnishedTree, ServersHaveOneHcaPerRailOnConsecutiveSwitches) {
  const int rails = std::max(spec_.rails, 1);
  std::map<std::string, std::vector<End>> servers;
  for (const std::string& hca : g_.cas()) {
    if (startsWith(hca, "io") || startsWith(hca, kAggregationNode)) continue;
    const auto rail = railOf(hca);
    ASSERT_EQ(rail.has_value(), rails > 1) << hca;
    auto& ends = servers[rail ? rail->server : hca];
    ends.resize(static_cast<std::size_t>(rails));
    ends.at(static_cast<std::size_t>(rail ? rail->rail : 0)) = g_.far(hca, 1);
  }
  ASSERT_FALSE(servers.empty());
  for (const auto& [server, ends] : servers) {
    const std::uint64_t first = g_.node(ends[0].node).guid.value;
    for (int r = 0; r < rails; ++r) {
      EXPECT_EQ(ends[r].port, ends[0].port) << server << " rail " << r;
      EXPECT_EQ(g_.node(ends[r].node).guid.value, first + std::uint64_t(r)) << server;
    }
  }
}

TEST_P(FurnishedTree, StartsWithAComputeHost) {
  const std::string& first = g_.fabric().node(0).description;
  EXPECT_TRUE(startsWith(first, "h") || startsWith(first, "d")) << first;
}

TEST_P(FurnishedTree, DegradationCutsOnlyInterSwitchCablesAndKeepsTheSwitchesTogether) {
  const Generated whole(spec_);
  EXPECT_EQ(g_.switchCables(), whole.switchCables() - GetParam().cut.links);
  EXPECT_TRUE(g_.switchesConnected());
  for (const std::string& ca : whole.cas()) EXPECT_EQ(g_.far(ca, 1), whole.far(ca, 1)) << ca;
}

INSTANTIATE_TEST_SUITE_P(
    Generator, FurnishedTree,
    ::testing::Values(
        Case{"TwoLevelEverything",
             {.levels = 2, .radix = 8, .aggregationNodes = true, .ioHosts = {{1, 3}}, .rails = 2}},
        Case{"TwoLevelTrunk2",
             {.levels = 2,
              .radix = 12,
              .trunk = 2,
              .aggregationNodes = true,
              .ioHosts = {{1, 7}},
              .rails = 3}},
        Case{"TwoLevelOversubscribed",
             {.levels = 2,
              .radix = 12,
              .oversubscription = 2,
              .aggregationNodes = true,
              .ioHosts = {{1, 5}},
              .rails = 4},
             {.links = 5, .seed = 3}},
        Case{"TwoLevelHostsPerLeafDegraded",
             {.levels = 2, .radix = 8, .hostsPerLeaf = 3, .aggregationNodes = true, .rails = 2},
             {.links = 4, .seed = 9}},
        Case{"ThreeLevelEverything",
             {.levels = 3,
              .radix = 8,
              .aggregationNodes = true,
              .ioHosts = {{2, 4}},
              .directorPods = 1,
              .rails = 4},
             {.links = 6, .seed = 7}},
        Case{"ThreeLevelTrunk2BothIoLevels",
             {.levels = 3,
              .radix = 8,
              .trunk = 2,
              .aggregationNodes = true,
              .ioHosts = {{1, 3}, {2, 5}},
              .directorPods = 1,
              .rails = 2}},
        Case{"ThreeLevelOversubscribed",
             {.levels = 3,
              .radix = 12,
              .oversubscription = 2,
              .aggregationNodes = true,
              .ioHosts = {{2, 30}},
              .directorPods = 2,
              .rails = 2},
             {.links = 10, .seed = 1}},
        Case{"ThreeLevelHostsPerLeaf",
             {.levels = 3, .radix = 8, .hostsPerLeaf = 2, .directorPods = 1, .rails = 4}},
        Case{"ThreeLevelDirectorsOnly", {.levels = 3, .radix = 8, .directorPods = 7}},
        Case{"ThreeLevelIoOnly", {.levels = 3, .radix = 8, .ioHosts = {{1, 1}}}}),
    [](const auto& info) { return std::string(info.param.what); });

// --- Errors -----------------------------------------------------------------

struct Bad {
  const char* what;
  FatTreeSpec spec;
  const char* option;    // as the message names it
  const char* expected;  // words of what was expected instead
};

class RejectedFurniture : public ::testing::TestWithParam<Bad> {};

TEST_P(RejectedFurniture, FailsNamingTheOptionAndWhatWasExpected) {
  const auto r = generateNetFile(GetParam().spec);
  ASSERT_FALSE(r) << "accepted";
  EXPECT_NE(r.error().message.find(GetParam().option), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(GetParam().expected), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Generator, RejectedFurniture,
    ::testing::Values(
        Bad{"RailsNotDividingTheLeaves",
            {.levels = 2, .radix = 8, .rails = 3},
            "--rails 3",
            "divide the 8 leaves"},
        Bad{"RailsNotDividingTheEdgesOfAPod",
            {.levels = 3, .radix = 12, .rails = 4},
            "--rails 4",
            "divide the 6 edge switches of a pod"},
        Bad{"RailsNotDividingADirectorPod",
            {.levels = 3, .radix = 12, .oversubscription = 2, .directorPods = 1, .rails = 3},
            "--rails 3",
            "divide the 4 aggregation switches of a pod"},
        Bad{"NegativeRails", {.rails = -2}, "--rails -2", "expected 0"},
        Bad{"DirectorPodsInTwoLevels",
            {.levels = 2, .directorPods = 1},
            "--director-pods 1",
            "--levels 3"},
        Bad{"EveryPodADirector",
            {.levels = 3, .radix = 8, .directorPods = 8},
            "--director-pods 8",
            "at most 7"},
        Bad{"NegativeDirectorPods",
            {.levels = 3, .directorPods = -1},
            "--director-pods -1",
            "expected 0"},
        Bad{"IoOnTheLeaves", {.levels = 3, .ioHosts = {{0, 4}}}, "--io-hosts 0:4", "LEVEL must be"},
        Bad{"IoAboveTheTop",
            {.levels = 2, .ioHosts = {{2, 4}}},
            "--io-hosts 2:4",
            "LEVEL must be 1 (the spines)"},
        Bad{"NoIoHosts", {.ioHosts = {{1, 0}}}, "--io-hosts 1:0", "COUNT must be at least 1"},
        Bad{"IoLevelTwice",
            {.levels = 3, .ioHosts = {{1, 2}, {1, 3}}},
            "--io-hosts 1:3",
            "given twice"},
        Bad{"IoPortsBeyondTheSwitch",
            {.levels = 2, .radix = 8, .ioHosts = {{1, 4 * 247}}},
            "--io-hosts 1:988",
            "255 ports"},
        Bad{"IoPortsAndAggregationNodeBeyondTheSwitch",
            {.levels = 2, .radix = 8, .aggregationNodes = true, .ioHosts = {{1, 4 * 246}}},
            "--io-hosts 1:984",
            "and the aggregation node port make 255 ports"},
        Bad{"IoHostsBeyondTheLids",
            {.levels = 3, .radix = 48, .ioHosts = {{2, 20000}}},
            "fat tree levels=3 radix=48",
            "unicast LIDs"}),
    [](const auto& info) { return std::string(info.param.what); });

}  // namespace
}  // namespace ibsm
