// Routing under change on trees that lost cables: the fast paths (columns
// that hold whole found 64 at a time before the walk, FatTreeHeldColumns.h;
// the verdict's columns that climb then descend in the hub order weighed 64
// at a time, OrderedLoads.h) must change no figure and no entry. Checked
// against the plain walks on random cuts of trees of several radices, with
// one LID a port and four, and on 1, 2 and 8 threads.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/MadAttributes.h>
#include <ibsm/StableRoutes.h>

#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "routing/engines/ftree/FatTreeHeldColumns.h"
#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"
#include "routing/plan/CreditLoopJudge.h"
#include "tests/routing/support/DamagedTrees.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

RoutingResult route(const Fabric& f, RoutingOptions options) {
  auto r = defaultRegistry().route(f, {"ftree"}, options);
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(*r);
}

using testing::cutCables;
using testing::spoilEntries;

std::vector<std::uint32_t> hubOrder(const Fabric& f, const std::vector<Lft>& previous) {
  const routing::SwitchGraph graph(f);
  const auto held = routing::ftree::heldColumns(f, graph, previous, {});
  if (!held) throw std::runtime_error("no fat tree");
  return held->order();
}

void expectSameVerdict(const Fabric& f, const RoutingResult& tables,
                       const std::vector<std::uint32_t>& order, const char* what) {
  const TablesVerdict walked = judgeTables(f, tables, 1, LoopCheck::ByConstruction);
  for (const unsigned threads : {1u, 2u, 8u}) {
    const TablesVerdict fast = judgeTables(f, tables, threads, LoopCheck::ByConstruction, order);
    EXPECT_EQ(fast.busiest, walked.busiest) << what << ", threads " << threads;
    EXPECT_EQ(fast.unreachable, walked.unreachable) << what << ", threads " << threads;
    EXPECT_EQ(fast.busiestFloor, walked.busiestFloor) << what;
  }
}

// The broken (switch, LID) entries and their blocks, by the plain walk.
std::pair<std::uint64_t, std::uint64_t> brokenByWalk(const Fabric& f,
                                                     const std::vector<Lft>& previous) {
  const routing::SwitchGraph graph(f);
  routing::PreviousChains chains(graph, previous);
  std::uint64_t broken = 0;
  std::set<std::pair<NodeId, std::uint32_t>> blocks;
  for (routing::SwitchIndex t = 0; t < graph.size(); ++t)
    for (const routing::Endpoint& e : graph.endpoints(t))
      for (std::uint32_t k = 0; e.base.value != 0 && k < (1u << e.lmc); ++k) {
        const Lid lid{static_cast<std::uint16_t>(e.base.value + k)};
        chains.judge(lid, t, e.switchPort);
        for (routing::SwitchIndex s = 0; s < graph.size(); ++s)
          if (!chains.holds(s) && chains.hadRoute(s)) {
            ++broken;
            blocks.emplace(graph.nodeId(s), lid.value / kLftBlockSize);
          }
      }
  return {broken, blocks.size()};
}

TEST(OrderedVerdict, WeighsTablesAsTheWalkDoes) {
  std::mt19937 rng(32);
  for (const int radix : {8, 12}) {
    for (const std::uint8_t lmc : {0, 2}) {
      const Fabric full =
          testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = radix}, {}, lmc);
      const RoutingResult before = route(full, {.rootGuids = {}, .threads = 1});
      const auto order = hubOrder(full, before.lfts);
      expectSameVerdict(full, before, order, "the tree's own tables");
      // Tables with loops, dead ports and wrong deliveries: most columns
      // still ordered, the others walked.
      RoutingResult spoilt = before;
      spoilEntries(spoilt.lfts, 60, rng);
      expectSameVerdict(full, spoilt, order, "spoilt tables");
      const Fabric now = cutCables(full, 4, rng);
      expectSameVerdict(now, before, hubOrder(now, before.lfts), "tables of the tree before a cut");
    }
  }
}

TEST(OrderedVerdict, RoutingUnderChangeMovesNothingTheWalksWouldNot) {
  std::mt19937 rng(31);
  for (const int radix : {8, 12, 16}) {
    for (const std::uint8_t lmc : {0, 2}) {
      if (radix == 16 && lmc == 2) continue;  // time
      const Fabric full =
          testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = radix}, {}, lmc);
      const std::vector<Lft> previous = route(full, {.rootGuids = {}, .threads = 1}).lfts;
      for (const int cuts : {1, 8}) {
        const Fabric now = cutCables(full, cuts, rng);
        // ftree walking the hint itself: no verdicts handed over.
        const RoutingResult alone =
            route(now, {.rootGuids = {}, .previous = previous, .threads = 1});
        const auto [broken, blocks] = brokenByWalk(now, previous);
        std::optional<RoutingResult> first;
        StableRoutesStats firstStats;
        for (const unsigned threads : {1u, 2u, 8u}) {
          StableRoutesStats stats;
          const auto r = routeUnderChange(now, defaultRegistry(), {"ftree"},
                                          {.rootGuids = {}, .threads = threads}, previous,
                                          classifyChange(full, now), stats);
          ASSERT_TRUE(r.has_value()) << r.error().message;
          const std::string at = "radix " + std::to_string(radix) + " lmc " + std::to_string(lmc) +
                                 " cuts " + std::to_string(cuts) + " threads " +
                                 std::to_string(threads);
          EXPECT_EQ(stats.broken, broken) << at;
          EXPECT_EQ(stats.brokenBlocks, blocks) << at;
          // One cut leaves most pods' columns whole (8 can touch every pod).
          if (cuts == 1) {
            EXPECT_GT(stats.wholeLids, 0u) << at;
          }
          // The verdict adds the routes of the columns ftree copied whole
          // (pushed by the hint pass) rather than walk them: the same decision
          // and figures as the plain walk of the same tables.
          const TablesVerdict plain = judgeTables(now, alone, 1);
          if (plain.unreachable == 0 &&
              static_cast<double>(plain.busiest) <= 1.1 * static_cast<double>(plain.busiestFloor)) {
            EXPECT_TRUE(stats.stabilised) << at;
            EXPECT_FALSE(stats.freshComputed) << at;
            EXPECT_EQ(stats.busiest, static_cast<double>(plain.busiest)) << at;
          }
          if (stats.stabilised) {
            EXPECT_EQ(stats.busiest, judgeTables(now, *r, 1).busiest) << at;
            for (const NodeId s : now.switches())
              for (std::size_t lid = 1; lid < alone.lfts[s].port.size(); ++lid)
                ASSERT_EQ(r->lfts[s].port[lid], alone.lfts[s].port[lid]) << at << " lid " << lid;
          }
          if (!first) {
            first = *r;
            firstStats = stats;
            continue;
          }
          EXPECT_TRUE(std::ranges::equal(r->lfts, first->lfts, {}, &Lft::port, &Lft::port)) << at;
          EXPECT_EQ(stats.kept, firstStats.kept) << at;
          EXPECT_EQ(stats.busiest, firstStats.busiest) << at;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ibsm
