// The generator is checked on its text, with a reader of its own here, so
// these tests do not lean on the net file parser they help to test.
#include <gtest/gtest.h>
#include <ibsm/TopologyGenerator.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ibsm {
namespace {

struct Record {
  bool isSwitch{false};
  int ports{0};
  std::string name;
  std::map<int, std::pair<std::string, int>> links;  // port -> remote name, remote port
};

struct Net {
  std::vector<Record> records;
  std::map<std::string, std::size_t> byName;

  const Record& at(const std::string& name) const { return records.at(byName.at(name)); }
  int count(bool switches) const {
    int n = 0;
    for (const auto& r : records) n += r.isSwitch == switches;
    return n;
  }
  int switchCables() const {
    int ends = 0;
    for (const auto& r : records)
      if (r.isSwitch)
        for (const auto& [port, remote] : r.links) ends += at(remote.first).isSwitch;
    return ends / 2;
  }
};

// Reads the net file subset the generator writes; anything else fails the test.
// (sscanf rather than std::regex: GCC 12's regex trips -Wmaybe-uninitialized
// in sanitizer builds.)
Net read(const std::string& text) {
  Net net;
  std::istringstream in(text);
  std::string line;
  char type[16];
  char name[256];
  int a = 0;
  int b = 0;
  int end = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto whole = [&] { return end == static_cast<int>(line.size()); };
    end = 0;
    if (std::sscanf(line.c_str(), "%15s %d \"%255[^\"]\"%n", type, &a, name, &end) == 3 &&
        whole() && (type == std::string("Switch") || type == std::string("Hca"))) {
      net.records.push_back(Record{type == std::string("Switch"), a, name, {}});
      EXPECT_TRUE(net.byName.emplace(name, net.records.size() - 1).second) << "twice: " << line;
      continue;
    }
    end = 0;
    if (std::sscanf(line.c_str(), "[%d]\t\"%255[^\"]\"[%d]%n", &a, name, &b, &end) == 3 &&
        (whole() || line[static_cast<std::size_t>(end)] == '\t') && !net.records.empty()) {
      auto& links = net.records.back().links;
      EXPECT_TRUE(links.emplace(a, std::pair{std::string(name), b}).second)
          << net.records.back().name << " uses a port twice: " << line;
      continue;
    }
    ADD_FAILURE() << "unexpected line: " << line;
  }
  return net;
}

// Every cable is listed from both ends, on ports the nodes declare.
void expectConsistent(const Net& net) {
  for (const auto& r : net.records)
    for (const auto& [port, remote] : r.links) {
      EXPECT_GE(port, 1) << r.name;
      EXPECT_LE(port, r.ports) << r.name;
      ASSERT_TRUE(net.byName.contains(remote.first)) << r.name << " -> " << remote.first;
      const Record& far = net.at(remote.first);
      ASSERT_TRUE(far.links.contains(remote.second)) << far.name << "[" << remote.second << "]";
      EXPECT_EQ(far.links.at(remote.second), std::pair(r.name, port))
          << r.name << "[" << port << "]";
    }
}

bool switchesConnected(const Net& net) {
  std::set<std::string> seen;
  std::queue<std::string> todo;
  for (const auto& r : net.records)
    if (r.isSwitch) {
      todo.push(r.name);
      seen.insert(r.name);
      break;
    }
  for (; !todo.empty(); todo.pop())
    for (const auto& [port, remote] : net.at(todo.front()).links)
      if (net.at(remote.first).isSwitch && seen.insert(remote.first).second)
        todo.push(remote.first);
  return static_cast<int>(seen.size()) == net.count(true);
}

std::string generated(const TopologySpec& spec, Degradation d = {}) {
  const auto text = generateNetFile(spec, d);
  EXPECT_TRUE(text) << text.error().message;
  return text.value_or("");
}

std::string sample(const std::string& file) {
  std::ifstream in(std::string(IBSM_TEST_TOPOLOGIES) + "/" + file);
  EXPECT_TRUE(in) << file;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// --- Shapes -----------------------------------------------------------------

struct Shape {
  const char* what;
  TopologySpec spec;
  int switches;
  int hosts;
  int switchCables;
};

class GeneratedShape : public ::testing::TestWithParam<Shape> {};

TEST_P(GeneratedShape, HasTheExpectedNodesAndCablesAllListedFromBothEnds) {
  const Net net = read(generated(GetParam().spec));
  EXPECT_EQ(net.count(true), GetParam().switches);
  EXPECT_EQ(net.count(false), GetParam().hosts);
  EXPECT_EQ(net.switchCables(), GetParam().switchCables);
  expectConsistent(net);
  EXPECT_TRUE(switchesConnected(net));
}

TEST_P(GeneratedShape, StartsWithAHostSoTheSmAttachesToACa) {
  const Net net = read(generated(GetParam().spec));
  ASSERT_FALSE(net.records.empty());
  EXPECT_FALSE(net.records.front().isSwitch);
}

INSTANTIATE_TEST_SUITE_P(
    Generator, GeneratedShape,
    ::testing::Values(
        Shape{"FatTree3k8", FatTreeSpec{.levels = 3, .radix = 8}, 80, 128, 256},
        Shape{"FatTree3k12", FatTreeSpec{.levels = 3, .radix = 12}, 180, 432, 864},
        Shape{"FatTree3k24", FatTreeSpec{.levels = 3, .radix = 24}, 720, 3456, 6912},
        Shape{"FatTree3k36", FatTreeSpec{.levels = 3, .radix = 36}, 1620, 11664, 23328},
        // Trunk 2: 4 pods of 2 edge + 2 agg, 4 cores, every cable doubled.
        Shape{"FatTree3k8Trunk2", FatTreeSpec{.levels = 3, .radix = 8, .trunk = 2}, 20, 32, 64},
        // 2:1 at radix 12: 8 hosts and 4 aggs per edge, so 4 aggs per pod reach 24 cores.
        Shape{"FatTree3k12Over2", FatTreeSpec{.levels = 3, .radix = 12, .oversubscription = 2}, 144,
              576, 576},
        Shape{"FatTree2k12", FatTreeSpec{.levels = 2, .radix = 12}, 18, 72, 72},
        Shape{"FatTree2k12Trunk2", FatTreeSpec{.levels = 2, .radix = 12, .trunk = 2}, 9, 36, 36},
        // 3:1 at radix 12: 9 hosts and 3 up-links per leaf, 12 leaves, 3 spines.
        Shape{"FatTree2k12Over3", FatTreeSpec{.levels = 2, .radix = 12, .oversubscription = 3}, 15,
              108, 36},
        Shape{"FatTree2k8OneHost", FatTreeSpec{.levels = 2, .radix = 8, .hostsPerLeaf = 1}, 12, 8,
              32},
        // 9 groups of 4: 6 local cables each, one global cable per group pair.
        Shape{"Dragonfly", DragonflySpec{.a = 4, .p = 2, .h = 2}, 36, 72, 9 * 6 + 36},
        // 5 groups, 8 global ports each: two cables per pair.
        Shape{"DragonflyG5", DragonflySpec{.a = 4, .p = 2, .h = 2, .g = 5}, 20, 40, 5 * 6 + 20},
        Shape{"DragonflyPlus", DragonflyPlusSpec{}, 20, 20, 5 * 4 + 10},
        Shape{"DragonflyPlusG3",
              DragonflyPlusSpec{
                  .groups = 3, .leaves = 3, .spines = 2, .hostsPerLeaf = 1, .globalPerSpine = 3},
              15, 9, 3 * 6 + 9}),
    [](const auto& info) { return std::string(info.param.what); });

TEST(Generator, KeepsEveryPortWithinTheSwitchRadix) {
  for (const TopologySpec& spec :
       {TopologySpec{FatTreeSpec{.levels = 3, .radix = 12, .trunk = 3}},
        TopologySpec{FatTreeSpec{.levels = 2, .radix = 10, .oversubscription = 4}},
        TopologySpec{DragonflySpec{.a = 3, .p = 1, .h = 3, .g = 4}}}) {
    const Net net = read(generated(spec));
    for (const auto& r : net.records) {
      if (!r.links.empty()) {
        EXPECT_LE(r.links.rbegin()->first, r.ports) << r.name;
      }
    }
    expectConsistent(net);
  }
}

// --- The sample fabrics (tests/data/topologies) -----------------------------

// scripts/make-test-topologies.sh makes them with `ibsm topo generate`; these
// tests keep the committed files and the generator in step.

TEST(Generator, ReproducesTheThreeLevelK8SampleByteForByte) {
  EXPECT_EQ(generated(FatTreeSpec{.levels = 3, .radix = 8}), sample("fat-tree-3level-k8.net"));
}

TEST(Generator, ReproducesTheFurnishedSamplesByteForByte) {
  EXPECT_EQ(
      generated(FatTreeSpec{
          .levels = 3, .radix = 8, .aggregationNodes = true, .ioHosts = {{2, 4}}, .rails = 4}),
      sample("fat-tree-3level-k8-rails4-an-io.net"));
  EXPECT_EQ(generated(FatTreeSpec{.levels = 3, .radix = 8, .directorPods = 1}),
            sample("fat-tree-3level-k8-director1.net"));
}

TEST(Generator, ReproducesTheDragonflySampleByteForByte) {
  EXPECT_EQ(generated(DragonflySpec{.a = 4, .p = 2, .h = 2}), sample("dragonfly-a4-p2-h2.net"));
}

TEST(Generator, ReproducesTheDragonflyPlusSampleByteForByte) {
  EXPECT_EQ(generated(DragonflyPlusSpec{
                .groups = 5, .leaves = 2, .spines = 2, .hostsPerLeaf = 2, .globalPerSpine = 2}),
            sample("dragonfly-plus-5groups.net"));
}

TEST(Generator, ReproducesTheDegradedSampleByteForByte) {
  EXPECT_EQ(generated(FatTreeSpec{.levels = 3, .radix = 8}, {.links = 6, .seed = 7}),
            sample("fat-tree-3level-k8-degraded6.net"));
}

TEST(Generator, ReproducesTheTwoLevelTrunkSampleExceptItsSlowLink) {
  const std::string slow = sample("fat-tree-2level-k12-trunk2-slowlink.net");
  std::string plain = slow;
  for (auto at = plain.find("\tw=1\n"); at != std::string::npos; at = plain.find("\tw=1\n", at))
    plain.erase(at, 4);
  ASSERT_NE(slow, plain) << "the sample no longer marks a slow link";
  EXPECT_EQ(generated(FatTreeSpec{.levels = 2, .radix = 12, .trunk = 2}), plain);
}

// --- Dragonfly global links -------------------------------------------------

// The group of a router or spine named "g<group>r<n>" / "g<group>s<n>" / "g<group>l<n>".
std::optional<int> groupOf(const std::string& name) {
  int group = 0;
  int n = 0;
  char kind = 0;
  int end = 0;
  if (std::sscanf(name.c_str(), "g%d%c%d%n", &group, &kind, &n, &end) == 3 &&
      end == static_cast<int>(name.size()))
    return group;
  return std::nullopt;
}

// Cables between each pair of groups.
std::map<std::pair<int, int>, int> globalCablesPerPair(const Net& net) {
  std::map<std::pair<int, int>, int> pairs;
  for (const auto& r : net.records)
    for (const auto& [port, remote] : r.links) {
      const auto a = groupOf(r.name);
      const auto b = groupOf(remote.first);
      if (a && b && *a < *b) ++pairs[{*a, *b}];
    }
  return pairs;
}

TEST(Generator, DragonflyLinksEveryPairOfGroupsAsEvenlyAsThePortsAllow) {
  for (int g = 2; g <= 9; ++g) {
    const auto pairs =
        globalCablesPerPair(read(generated(DragonflySpec{.a = 4, .p = 1, .h = 2, .g = g})));
    ASSERT_EQ(static_cast<int>(pairs.size()), g * (g - 1) / 2) << "g=" << g;
    int fewest = 1 << 30;
    int most = 0;
    int total = 0;
    for (const auto& [pair, n] : pairs) {
      fewest = std::min(fewest, n);
      most = std::max(most, n);
      total += n;
    }
    EXPECT_LE(most - fewest, 1) << "g=" << g;
    // All 8 global ports of a group are used, except one when both the
    // remainder and the group count are odd.
    const int remainder = 8 % (g - 1);
    const int unused = (remainder % 2 == 1 && g % 2 == 1) ? 1 : 0;
    EXPECT_EQ(total, g * (8 - unused) / 2) << "g=" << g;
  }
}

TEST(Generator, DragonflyPlusLinksEveryPairOfGroups) {
  const auto pairs = globalCablesPerPair(read(generated(DragonflyPlusSpec{
      .groups = 4, .leaves = 2, .spines = 3, .hostsPerLeaf = 1, .globalPerSpine = 2})));
  ASSERT_EQ(pairs.size(), 6u);
  for (const auto& [pair, n] : pairs) EXPECT_EQ(n, 2) << pair.first << "-" << pair.second;
}

// --- Degradation ------------------------------------------------------------

const FatTreeSpec kK8{.levels = 3, .radix = 8};

TEST(Generator, SameSeedCutsTheSameCables) {
  EXPECT_EQ(generated(kK8, {.links = 6, .seed = 42}), generated(kK8, {.links = 6, .seed = 42}));
}

TEST(Generator, DifferentSeedsCutDifferentCables) {
  EXPECT_NE(generated(kK8, {.links = 6, .seed = 1}), generated(kK8, {.links = 6, .seed = 2}));
}

TEST(Generator, DegradationRemovesExactlyThatManyCablesFromBothEnds) {
  for (const std::uint64_t seed : {1u, 7u, 1234u}) {
    const Net net = read(generated(kK8, {.links = 6, .seed = seed}));
    EXPECT_EQ(net.switchCables(), 256 - 6);
    EXPECT_EQ(net.count(false), 128);
    expectConsistent(net);
    EXPECT_TRUE(switchesConnected(net));
  }
}

TEST(Generator, CanDegradeDownToASpanningTreeButNoFurther) {
  // 80 switches stay connected by 79 cables: 256 - 79 may go.
  const Net tree = read(generated(kK8, {.links = 177, .seed = 5}));
  EXPECT_EQ(tree.switchCables(), 79);
  EXPECT_TRUE(switchesConnected(tree));
  const auto tooMany = generateNetFile(kK8, {.links = 178, .seed = 5});
  ASSERT_FALSE(tooMany);
  EXPECT_NE(tooMany.error().message.find("links=178"), std::string::npos)
      << tooMany.error().message;
  EXPECT_NE(tooMany.error().message.find("at most 177"), std::string::npos);
}

TEST(Generator, DegradedDragonfliesStayConnected) {
  for (const std::uint64_t seed : {3u, 4u}) {
    const Net net =
        read(generated(DragonflySpec{.a = 4, .p = 2, .h = 2}, {.links = 40, .seed = seed}));
    EXPECT_EQ(net.switchCables(), 90 - 40);
    EXPECT_TRUE(switchesConnected(net));
  }
}

// --- Errors -----------------------------------------------------------------

struct BadSpec {
  const char* what;
  TopologySpec spec;
  Degradation degrade;
  const char* mentions;  // the parameter the message must name
};

class RejectedSpec : public ::testing::TestWithParam<BadSpec> {};

TEST_P(RejectedSpec, FailsNamingTheParameter) {
  const auto r = generateNetFile(GetParam().spec, GetParam().degrade);
  ASSERT_FALSE(r) << "accepted";
  EXPECT_NE(r.error().message.find(GetParam().mentions), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Generator, RejectedSpec,
    ::testing::Values(
        BadSpec{"OddRadix", FatTreeSpec{.levels = 3, .radix = 7}, {}, "radix=7"},
        BadSpec{"HugeRadix", FatTreeSpec{.levels = 2, .radix = 256}, {}, "radix=256"},
        BadSpec{"FourLevels", FatTreeSpec{.levels = 4}, {}, "levels=4"},
        BadSpec{"TrunkNotDividingUplinks", FatTreeSpec{.radix = 8, .trunk = 3}, {}, "trunk=3"},
        BadSpec{"TrunkTooWide", FatTreeSpec{.levels = 3, .radix = 8, .trunk = 8}, {}, "trunk=8"},
        BadSpec{"NoOversubscription", FatTreeSpec{.oversubscription = 0}, {}, "oversubscription=0"},
        BadSpec{"TooManyHosts", FatTreeSpec{.radix = 8, .hostsPerLeaf = 5}, {}, "hostsPerLeaf=5"},
        BadSpec{"MoreNodesThanLids", FatTreeSpec{.levels = 3, .radix = 64}, {}, "unicast LIDs"},
        BadSpec{"OneRouterPerGroup", DragonflySpec{.a = 1}, {}, "a=1"},
        BadSpec{"NoGlobalLinks", DragonflySpec{.h = 0}, {}, "h=0"},
        BadSpec{"TooManyGroups", DragonflySpec{.a = 4, .h = 2, .g = 10}, {}, "g=10"},
        BadSpec{"PlusTooManyGroups", DragonflyPlusSpec{.groups = 6}, {}, "groups=6"},
        BadSpec{"PlusNoSpines", DragonflyPlusSpec{.spines = 0}, {}, "spines=0"},
        BadSpec{"NegativeDegradation", FatTreeSpec{}, {.links = -1}, "links=-1"}),
    [](const auto& info) { return std::string(info.param.what); });

}  // namespace
}  // namespace ibsm
