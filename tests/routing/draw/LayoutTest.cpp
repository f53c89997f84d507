// routing/draw from a Fabric, without the CLI: the arrangement chosen by the
// fabric's shape, loads and marks landing on the right cables, refusals of
// inputs that name another fabric, and the SVG's escaping and colour bins.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/TopologyGenerator.h>

#include <set>

#include "routing/draw/Layout.h"
#include "routing/draw/Svg.h"
#include "tests/support/FabricFixtures.h"

namespace {

using namespace ibsm;
using ::testing::HasSubstr;

TEST(Layout, ChoosesTheArrangementByShape) {
  const Fabric tree = ibsm::testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  const Fabric fly = ibsm::testing::sampleFabric("dragonfly-a4-p2-h2.net");
  const Fabric plus = ibsm::testing::sampleFabric("dragonfly-plus-5groups.net");
  const Fabric ring = ibsm::testing::ringFabric(7);
  EXPECT_EQ(draw::layoutFabric(tree, {})->arrangement, draw::Arrangement::Levels);
  EXPECT_EQ(draw::layoutFabric(fly, {})->arrangement, draw::Arrangement::Groups);
  EXPECT_EQ(draw::layoutFabric(plus, {})->arrangement, draw::Arrangement::Groups);
  EXPECT_EQ(draw::layoutFabric(ring, {})->arrangement, draw::Arrangement::Distance);
  for (const Fabric* f : {&tree, &fly, &plus, &ring}) {
    const auto layout = draw::layoutFabric(*f, {});
    ASSERT_TRUE(layout);
    EXPECT_EQ(layout->switches.size(), f->switches().size());
    std::set<std::pair<double, double>> places;
    for (const auto& s : layout->switches) {
      places.emplace(s.at.x, s.at.y);
      EXPECT_GT(s.at.x, 0);
      EXPECT_LT(s.at.x, layout->width);
      EXPECT_GT(s.at.y, 0);
      EXPECT_LT(s.at.y, layout->height);
    }
    EXPECT_EQ(places.size(), f->switches().size()) << "two switches on one spot";
  }
}

TEST(Layout, LoadsLandOnTheirBundleAndTheBusiestIsDrawnLast) {
  const Fabric tree =
      ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 4, .trunk = 2});
  std::vector<draw::LinkLoadEntry> loads;
  std::uint64_t routes = 1;
  for (NodeId s : tree.switches())
    for (std::uint8_t p = 1; p < tree.node(s).ports.size(); ++p)
      if (const auto& r = tree.node(s).ports[p].remote; r && tree.node(r->node).isSwitch())
        loads.push_back({tree.node(s).guid, p, routes++});
  const auto layout = draw::layoutFabric(tree, {.loads = loads, .marks = {}});
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->maxRoutes, routes - 1);
  for (const auto& b : layout->bundles) EXPECT_EQ(b.cables, 2u);  // trunks bundled
  EXPECT_EQ(layout->bundles.back().maxRoutes, routes - 1);
  EXPECT_EQ(draw::loadBin(layout->maxRoutes, layout->maxRoutes), draw::kLoadBins - 1);
}

TEST(Layout, InputsOfAnotherFabricAreRefusedNamingTheEntry) {
  const Fabric tree = ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 4});
  const auto load =
      draw::layoutFabric(tree, {.loads = std::vector<draw::LinkLoadEntry>{{Guid{0x42}, 1, 5}},
                                .marks = {},
                                .loadsFrom = "r.json"});
  ASSERT_FALSE(load);
  EXPECT_THAT(load.error().message, HasSubstr("r.json: linkLoad.perLink[0]: 0x0000000000000042"));
  const auto mark = draw::layoutFabric(
      tree, {.loads = {}, .marks = {{Guid{0x42}, 1, "errors", ""}}, .marksFrom = "h.json"});
  ASSERT_FALSE(mark);
  EXPECT_THAT(mark.error().message, HasSubstr("h.json: unhealthy[0].port"));
}

TEST(Svg, LoadBinsAreEqualSlicesWithTheBusiestOnTop) {
  EXPECT_EQ(draw::loadBin(0, 100), -1);
  EXPECT_EQ(draw::loadBin(1, 100), 0);
  EXPECT_EQ(draw::loadBin(12, 100), 0);
  EXPECT_EQ(draw::loadBin(13, 100), 1);
  EXPECT_EQ(draw::loadBin(100, 100), 7);
  EXPECT_EQ(draw::loadBin(1, 1), 7);
}

TEST(Svg, NamesAreEscapedAndBrokenBytesReplaced) {
  EXPECT_EQ(draw::xmlText("a<b>&\"c\""), "a&lt;b&gt;&amp;&quot;c&quot;");
  EXPECT_EQ(draw::xmlText("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(draw::xmlText("bad\xff\x01"), "bad??");
  EXPECT_EQ(draw::xmlText("cut\xc3"), "cut?");
}

}  // namespace
