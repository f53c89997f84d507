// dragonfly: recognises dragonflies and dragonfly+ from their cabling, routes
// them minimally (at most 3 switch hops on a full fabric), balances the
// parallel global links, and makes the routes deadlock-free with VLs that the
// route report's per-VL channel dependency graph confirms, full or degraded.
#include <gtest/gtest.h>
#include <ibsm/Dragonfly.h>
#include <ibsm/Engines.h>
#include <ibsm/Lids.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "routing/multicast/McSl.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;

RoutingOptions withVls(std::uint8_t vls) {
  RoutingOptions options;
  options.maxVls = vls;
  return options;
}
const RoutingOptions kEightVls = withVls(8);

RoutingResult routeDragonfly(const Fabric& fabric, const RoutingOptions& options = kEightVls) {
  const auto result = makeDragonflyEngine()->route(fabric, options);
  if (!result) ADD_FAILURE() << "dragonfly refused: " << result.error().message;
  return result ? *result : RoutingResult{};
}

TEST(DragonflyShape, RecognisesAFullDragonfly) {
  const auto shape = recogniseDragonfly(generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2}));
  ASSERT_TRUE(shape) << shape.error().message;
  EXPECT_EQ(shape->kind, DragonflyKind::Dragonfly);
  EXPECT_EQ(shape->groups, 9u);
  EXPECT_EQ(shape->switchesPerGroup, 4u);
  EXPECT_EQ(shape->hostsPerSwitch.min, 2u);
  EXPECT_EQ(shape->hostsPerSwitch.max, 2u);
  EXPECT_EQ(shape->globalsPerSwitch.max, 2u);
  EXPECT_EQ(shape->globalsPerGroupPair.min, 1u);
  EXPECT_EQ(shape->globalsPerGroupPair.max, 1u);
  EXPECT_EQ(shape->missingLocalLinks, 0u);
  EXPECT_EQ(shape->unlinkedGroupPairs, 0u);
  EXPECT_EQ(describe(*shape),
            "dragonfly: 9 groups of 4 routers, 2 hosts and 2 global links per router, 1 global "
            "links per group pair, 0 local links missing, 0 group pairs unlinked");
}

TEST(DragonflyShape, RecognisesADragonflyPlus) {
  const auto shape = recogniseDragonfly(generatedFabric(DragonflyPlusSpec{
      .groups = 5, .leaves = 2, .spines = 2, .hostsPerLeaf = 2, .globalPerSpine = 2}));
  ASSERT_TRUE(shape) << shape.error().message;
  EXPECT_EQ(shape->kind, DragonflyKind::DragonflyPlus);
  EXPECT_EQ(shape->groups, 5u);
  EXPECT_EQ(shape->switchesPerGroup, 4u);
  EXPECT_EQ(shape->leavesPerGroup, 2u);
  EXPECT_EQ(shape->missingLocalLinks, 0u);
}

TEST(DragonflyShape, CountsTheCablesADegradedDragonflyLacks) {
  // One global cable per group pair: every cut is a missing local link or an
  // unlinked group pair.
  const auto shape = recogniseDragonfly(
      generatedFabric(DragonflySpec{.a = 6, .p = 2, .h = 2}, Degradation{.links = 5, .seed = 7}));
  ASSERT_TRUE(shape) << shape.error().message;
  EXPECT_EQ(shape->groups, 13u);
  EXPECT_EQ(shape->missingLocalLinks + shape->unlinkedGroupPairs, 5u);
}

TEST(DragonflyShape, RecognisesTheSampleCapturesAsDiscovered) {
  // ibnetdiscover output carries no group names: the cabling alone tells.
  const auto df = recogniseDragonfly(testing::sampleFabric("dragonfly-a4-p2-h2.ibnetdiscover"));
  ASSERT_TRUE(df) << df.error().message;
  EXPECT_EQ(df->kind, DragonflyKind::Dragonfly);
  EXPECT_EQ(df->groups, 9u);
  const auto plus =
      recogniseDragonfly(testing::sampleFabric("dragonfly-plus-5groups.ibnetdiscover"));
  ASSERT_TRUE(plus) << plus.error().message;
  EXPECT_EQ(plus->kind, DragonflyKind::DragonflyPlus);
  EXPECT_EQ(plus->groups, 5u);
}

TEST(DragonflyShape, RefusesFatTreesAndSaysWhy) {
  for (const int levels : {2, 3}) {
    const auto shape =
        recogniseDragonfly(generatedFabric(FatTreeSpec{.levels = levels, .radix = 8}));
    ASSERT_FALSE(shape) << levels;
    EXPECT_FALSE(shape.error().message.empty());
  }
}

struct Case {
  std::string name;
  TopologySpec spec;
  Degradation cut;
};

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

class DragonflyRoutes : public ::testing::TestWithParam<Case> {};

TEST_P(DragonflyRoutes, RouteEveryPairOnAcyclicVls) {
  const Fabric f = generatedFabric(GetParam().spec, GetParam().cut);
  const RoutingResult r = routeDragonfly(f);
  EXPECT_EQ(r.engine, "dragonfly") << fmt::format("{}", fmt::join(r.notes, "\n"));
  const RouteReport report = analyseRoutes(f, r);
  EXPECT_EQ(report.unreachablePairs(), 0u);
  EXPECT_TRUE(report.creditLoops.acyclic)
      << fmt::format("{}", fmt::join(report.creditLoops.cycle, " -> "));
  for (const auto& vl : report.creditLoops.perVl) EXPECT_TRUE(vl.acyclic) << int(vl.vl);
  EXPECT_LE(report.creditLoops.vlsAnalysed,
            r.vlsUsed + routing::treesHaveAVlOfTheirOwn(
                            r.sl2vl));  // the multicast trees' VL above the layers (McSl.h)
  const bool full = GetParam().cut.links == 0;
  if (full) {
    EXPECT_LE(report.hops.max, 3u);
    // Dragonfly: local, global, local on two VLs. Dragonfly+ spines without
    // a global link to a group send their own traffic through a third group:
    // one VL more (none when every spine reaches every group).
    if (std::holds_alternative<DragonflyPlusSpec>(GetParam().spec)) {
      EXPECT_GE(r.vlsUsed, 2);
      EXPECT_LE(r.vlsUsed, 3);
    } else {
      EXPECT_EQ(r.vlsUsed, 2);
    }
    EXPECT_FALSE(r.sl2vl.empty());
  }
}

// Per ordered group pair, the (source switch, destination CA LID) routes that
// leave the source group on each of its global cables to the destination group.
class DragonflyBalance : public ::testing::TestWithParam<Case> {};

TEST_P(DragonflyBalance, SpreadRoutesEvenlyOverParallelGlobalLinks) {
  const Fabric f = generatedFabric(GetParam().spec);
  const RoutingResult r = routeDragonfly(f);
  const auto shape = recogniseDragonfly(f);
  ASSERT_TRUE(shape);
  const auto group = [&](NodeId n) { return shape->groupOf[n]; };
  std::map<std::tuple<std::uint32_t, std::uint32_t, NodeId, std::uint8_t>, std::uint64_t> load;
  for (const NodeId s : f.switches())
    for (std::uint8_t p = 1; p <= f.node(s).numPorts(); ++p) {
      const auto& remote = f.node(s).ports[p].remote;
      if (remote && f.node(remote->node).isSwitch() && group(remote->node) != group(s))
        load[{group(s), group(remote->node), s, p}] = 0;
    }
  const LidIndex lids(f);
  for (const NodeId s : f.switches()) {
    if (shape->roleOf[s] == DragonflyRole::Spine) continue;  // sources are switches with hosts
    for (const NodeId ca : f.endNodes()) {
      const Port& port = f.node(ca).ports[1];
      const NodeId d = port.remote->node;
      if (group(d) == group(s)) continue;
      NodeId at = s;
      for (int hop = 0; hop < 8 && group(at) == group(s); ++hop) {
        const std::uint8_t out = r.lfts[at].at(port.lid);
        ASSERT_NE(out, kNoRoute);
        const NodeId next = f.node(at).ports[out].remote->node;
        if (group(next) != group(s)) ++load[{group(s), group(d), at, out}];
        at = next;
      }
    }
  }
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint64_t, std::uint64_t>> span;
  for (const auto& [key, routes] : load) {
    auto [it, fresh] = span.try_emplace({std::get<0>(key), std::get<1>(key)}, routes, routes);
    it->second.first = std::min(it->second.first, routes);
    it->second.second = std::max(it->second.second, routes);
  }
  for (const auto& [pair, range] : span)
    EXPECT_LE(range.second - range.first, 1u) << "groups " << pair.first << " -> " << pair.second
                                              << ": " << range.first << ".." << range.second;
}

INSTANTIATE_TEST_SUITE_P(
    Fabrics, DragonflyRoutes,
    ::testing::Values(
        Case{"df_a4p2h2", DragonflySpec{.a = 4, .p = 2, .h = 2}, {}},
        Case{"df_a4p2h2_g5_parallel", DragonflySpec{.a = 4, .p = 2, .h = 2, .g = 5}, {}},
        Case{"df_a6p3h3", DragonflySpec{.a = 6, .p = 3, .h = 3}, {}},
        Case{"df_a8p2h2_g6_parallel", DragonflySpec{.a = 8, .p = 2, .h = 2, .g = 6}, {}},
        Case{"df_a4p2h2_cut3", DragonflySpec{.a = 4, .p = 2, .h = 2}, {.links = 3, .seed = 1}},
        Case{"df_a6p3h3_cut8", DragonflySpec{.a = 6, .p = 3, .h = 3}, {.links = 8, .seed = 2}},
        Case{"df_a8p2h2_g6_cut6",
             DragonflySpec{.a = 8, .p = 2, .h = 2, .g = 6},
             {.links = 6, .seed = 3}},
        Case{"dfplus_5g_2l2s", DragonflyPlusSpec{5, 2, 2, 2, 2}, {}},
        Case{"dfplus_9g_4l4s", DragonflyPlusSpec{9, 4, 4, 2, 2}, {}},
        Case{"dfplus_4g_3l2s_parallel", DragonflyPlusSpec{4, 3, 2, 2, 3}, {}},
        Case{"dfplus_5g_2l2s_cut2", DragonflyPlusSpec{5, 2, 2, 2, 2}, {.links = 2, .seed = 4}},
        Case{"dfplus_9g_4l4s_cut6", DragonflyPlusSpec{9, 4, 4, 2, 2}, {.links = 6, .seed = 5}}),
    caseName);

// Balance is promised on full fabrics only.
INSTANTIATE_TEST_SUITE_P(
    FullFabrics, DragonflyBalance,
    ::testing::Values(
        Case{"df_a4p2h2", DragonflySpec{.a = 4, .p = 2, .h = 2}, {}},
        Case{"df_a4p2h2_g5_parallel", DragonflySpec{.a = 4, .p = 2, .h = 2, .g = 5}, {}},
        Case{"df_a6p3h3", DragonflySpec{.a = 6, .p = 3, .h = 3}, {}},
        Case{"df_a8p2h2_g6_parallel", DragonflySpec{.a = 8, .p = 2, .h = 2, .g = 6}, {}},
        Case{"dfplus_5g_2l2s", DragonflyPlusSpec{5, 2, 2, 2, 2}, {}},
        Case{"dfplus_9g_4l4s", DragonflyPlusSpec{9, 4, 4, 2, 2}, {}},
        Case{"dfplus_4g_3l2s_parallel", DragonflyPlusSpec{4, 3, 2, 2, 3}, {}}),
    caseName);

// With LMC 1 the base LID is reached minimally and a CA's second LID apart
// from it (DragonflyLmcTest): on a dragonfly with one cable per group pair,
// through a third group (local, global, global, local) for some sources,
// never by more than two global links; both on at most 3 VLs without a
// credit loop, or, with the later LIDs on an SL of their own (pairSls named),
// within the 8 VLs allowed.
TEST(DragonflyEngine, RoutesTheSecondLidOfAnLmcRangeThroughAThirdGroup) {
  for (const TopologySpec& spec : {TopologySpec{DragonflySpec{.a = 4, .p = 2, .h = 2}},
                                   TopologySpec{DragonflySpec{.a = 6, .p = 2, .h = 3}},
                                   TopologySpec{DragonflyPlusSpec{5, 2, 2, 2, 2}}}) {
    const Fabric f = generatedFabric(spec, {}, /*lmc=*/1);
    const RoutingResult r = routeDragonfly(f);
    ASSERT_EQ(r.engine, "dragonfly") << fmt::format("{}", fmt::join(r.notes, "\n"));
    EXPECT_LE(r.vlsUsed, r.pairSls.empty() ? 3 : 8);
    const RouteReport report = analyseRoutes(f, r);
    EXPECT_EQ(report.unreachablePairs(), 0u);
    EXPECT_TRUE(report.creditLoops.acyclic);
    const auto shape = recogniseDragonfly(f);
    ASSERT_TRUE(shape);
    std::map<int, std::uint64_t> byGlobals[2];  // [LID offset][global hops] -> routes
    for (const NodeId s : f.switches()) {
      if (shape->roleOf[s] == DragonflyRole::Spine) continue;
      for (const NodeId ca : f.endNodes()) {
        const Port& port = f.node(ca).ports[1];
        if (shape->groupOf[port.remote->node] == shape->groupOf[s]) continue;
        for (const int offset : {0, 1}) {
          const Lid lid{static_cast<std::uint16_t>(port.lid.value + offset)};
          int globals = 0;
          NodeId at = s;
          for (int hop = 0; hop < 8 && at != port.remote->node; ++hop) {
            const std::uint8_t out = r.lfts[at].at(lid);
            ASSERT_NE(out, kNoRoute);
            const NodeId next = f.node(at).ports[out].remote->node;
            globals += shape->groupOf[next] != shape->groupOf[at];
            at = next;
          }
          ++byGlobals[offset][globals];
        }
      }
    }
    EXPECT_EQ(byGlobals[0].size(), 1u);  // base LIDs: one global link, always
    EXPECT_EQ(byGlobals[0].begin()->first, 1);
    if (shape->kind == DragonflyKind::Dragonfly) {
      EXPECT_GT(byGlobals[1][2], 0u);  // second LIDs: through a third group
    }
    EXPECT_LE(byGlobals[1].rbegin()->first, 2);
  }
}

TEST(DragonflyEngine, FallsBackToUpDownOnOneVlAndSaysWhatItCosts) {
  const Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  const RoutingResult r = routeDragonfly(f, withVls(1));
  EXPECT_EQ(r.engine, "updn");
  ASSERT_GE(r.notes.size(), 3u);
  EXPECT_EQ(r.notes[1],
            "dragonfly fell back to updn on 1 VL: the routes need 2 VLs, the ports declare 8 and 1 "
            "are allowed (maxVls)");
  EXPECT_TRUE(r.notes[2].starts_with("cost: mean switch hops ")) << r.notes[2];
  EXPECT_TRUE(r.sl2vl.empty());
  const RouteReport report = analyseRoutes(f, r);
  EXPECT_EQ(report.unreachablePairs(), 0u);
  EXPECT_TRUE(report.creditLoops.acyclic);
}

TEST(DragonflyEngine, HonoursTheVlsThePortsDeclare) {
  Fabric f = generatedFabric(DragonflySpec{.a = 4, .p = 2, .h = 2});
  for (NodeId n = 0; n < f.size(); ++n)
    for (Port& p : f.node(n).ports) p.vlCap = 1;  // VL0 only
  const RoutingResult r = routeDragonfly(f);
  EXPECT_EQ(r.engine, "updn");
  ASSERT_GE(r.notes.size(), 2u);
  EXPECT_NE(r.notes[1].find("the ports declare 1"), std::string::npos) << r.notes[1];
}

TEST(DragonflyEngine, SaysWhichRoutesDetourOnADegradedFabric) {
  const Fabric f =
      generatedFabric(DragonflySpec{.a = 6, .p = 3, .h = 3}, Degradation{.links = 8, .seed = 2});
  const RoutingResult r = routeDragonfly(f);
  const auto said = std::find_if(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.find("detour around missing links") != n.npos;
  });
  ASSERT_NE(said, r.notes.end()) << fmt::format("{}", fmt::join(r.notes, "\n"));
  EXPECT_FALSE(said->starts_with("0 of")) << *said;
}

TEST(DragonflyEngine, AutoPicksDragonflyButStillFtreeOnAFatTree) {
  const Fabric df = generatedFabric(DragonflyPlusSpec{5, 2, 2, 2, 2});
  const auto a = makeAutoEngine()->route(df, kEightVls);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->engine, "dragonfly");
  EXPECT_EQ(a->notes.front(), "auto chose dragonfly: the fabric is a dragonfly");
  const Fabric tree = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  const auto t = makeAutoEngine()->route(tree, kEightVls);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->engine, "ftree");
}

TEST(DragonflyEngine, RefusesWhatIsNotADragonfly) {
  const auto r = makeDragonflyEngine()->route(generatedFabric(FatTreeSpec{.levels = 2, .radix = 8}),
                                              kEightVls);
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().message.starts_with("not a dragonfly: ")) << r.error().message;
}

}  // namespace
}  // namespace ibsm
