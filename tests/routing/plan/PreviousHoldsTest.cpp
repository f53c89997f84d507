// RoutingOptions::previousHolds: routing under change judges the previous
// chains once and hands the verdicts to ftree's hint, which reads them
// instead of walking the chains again. The verdicts handed over must change
// nothing: the tables are those of ftree judging the hint itself, on any
// number of threads (with the verdicts judged, the switch LIDs' columns run
// on several). Nor may copying the columns that hold whole (their previous
// column is the answer: PreviousHolds::whole): byte for byte the tables and
// the engine's notes (kept entries, hub-routed entries, longer routes) of
// routing each column, on many cut trees, with one LID a port and four;
// switch LIDs among them, which ftree copies switch by switch
// (copyWholeColumns) after the closed form counted their hub-routed entries.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/StableRoutes.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tests/routing/support/DamagedTrees.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;

RoutingResult route(const Fabric& f, RoutingOptions options) {
  auto r = defaultRegistry().route(f, {"ftree"}, options);
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(*r);
}

// The entries toward every LID a port of `f` holds (LIDs no port holds keep
// their previous value under change, by design, and are left out).
std::size_t differing(const Fabric& f, const RoutingResult& a, const RoutingResult& b) {
  std::vector<Lid> lids;
  for (NodeId n = 0; n < f.size(); ++n)
    for (const Port& p : f.node(n).ports)
      if (p.lid.value != 0 && (f.node(n).isSwitch() ? p.number == 0 : true)) lids.push_back(p.lid);
  std::size_t out = 0;
  for (const NodeId s : f.switches())
    for (const Lid lid : lids) out += a.lfts[s].port.at(lid.value) != b.lfts[s].port.at(lid.value);
  return out;
}

void expectSameTablesAsTheHintAlone(const Fabric& full, const Fabric& cut) {
  const std::vector<Lft> previous = route(full, {}).lfts;
  const RoutingResult alone = route(cut, {.rootGuids = {}, .previous = previous, .threads = 1});
  ASSERT_TRUE(alone.followedPrevious);
  for (const unsigned threads : {1u, 2u, 3u}) {
    StableRoutesStats stats;
    const auto shared =
        routeUnderChange(cut, defaultRegistry(), {"ftree"}, {.rootGuids = {}, .threads = threads},
                         previous, classifyChange(full, cut), stats);
    ASSERT_TRUE(shared.has_value()) << shared.error().message;
    ASSERT_TRUE(stats.stabilised) << stats.why;
    EXPECT_GT(stats.broken, 0u) << "the cut moves some entries";
    EXPECT_EQ(differing(cut, alone, *shared), 0u) << "threads " << threads;
  }
}

TEST(PreviousHoldsHint, GiveFtreeTheTablesItsOwnWalkGivesOnACutTree) {
  const Fabric full = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  Fabric cut = full;
  testing::removeCables(cut, {{"edge1_2", "agg1_0"}});
  expectSameTablesAsTheHintAlone(full, cut);
}

TEST(PreviousHoldsHint, GiveFtreeTheTablesItsOwnWalkGivesWithSeveralLidsAPort) {
  const Fabric full = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}, {}, 1);
  Fabric cut = full;
  testing::removeCables(cut, {{"edge0_1", "agg0_1"}, {"agg2_0", "core0"}});
  expectSameTablesAsTheHintAlone(full, cut);
}

// Switch LIDs of `f` whose column in `r` is the previous one at every
// switch: those ftree copies switch by switch under change (their
// previous column holds whole) rather than apply one at a time.
std::size_t switchColumnsAsBefore(const Fabric& f, const std::vector<Lft>& previous,
                                  const RoutingResult& r) {
  std::size_t out = 0;
  for (const NodeId t : f.switches()) {
    const Lid lid = f.node(t).ports.front().lid;
    if (lid.value == 0) continue;
    out += std::ranges::all_of(f.switches(), [&](NodeId s) {
      return r.lfts[s].port.at(lid.value) == previous[s].port.at(lid.value);
    });
  }
  return out;
}

// The engine's notes of `alone` (routing every column) all among `shared`'s.
std::size_t notesMissing(const RoutingResult& alone, const RoutingResult& shared) {
  return static_cast<std::size_t>(std::ranges::count_if(alone.notes, [&](const std::string& n) {
    return std::ranges::find(shared.notes, n) == shared.notes.end();
  }));
}

TEST(PreviousHoldsHint, ColumnsHeldWholeCopiedGiveTheTablesRoutingEachColumnGives) {
  std::mt19937 rng(33);
  std::size_t copied = 0, switchLids = 0;
  for (const int radix : {8, 12}) {
    for (const std::uint8_t lmc : {0, 2}) {
      const Fabric full = generatedFabric(FatTreeSpec{.levels = 3, .radix = radix}, {}, lmc);
      const std::vector<Lft> previous = route(full, {}).lfts;
      for (const int cuts : {1, 1, 2, 3, 5}) {
        const Fabric cut = testing::cutCables(full, cuts, rng);
        const std::string what = "radix " + std::to_string(radix) + " lmc " + std::to_string(lmc) +
                                 " cuts " + std::to_string(cuts);
        // Without the verdicts the hint walks every chain and copies nothing.
        const RoutingResult alone =
            route(cut, {.rootGuids = {}, .previous = previous, .threads = 1});
        for (const unsigned threads : {1u, 2u, 8u}) {
          StableRoutesStats stats;
          const auto shared = routeUnderChange(cut, defaultRegistry(), {"ftree"},
                                               {.rootGuids = {}, .threads = threads}, previous,
                                               classifyChange(full, cut), stats);
          ASSERT_TRUE(shared.has_value()) << shared.error().message;
          if (!shared->followedPrevious) continue;  // fresh tables: nothing copied
          copied += stats.wholeLids;
          switchLids += switchColumnsAsBefore(cut, previous, *shared);
          EXPECT_EQ(differing(cut, alone, *shared), 0u) << what << " threads " << threads;
          EXPECT_EQ(notesMissing(alone, *shared), 0u) << what << " threads " << threads;
        }
      }
    }
  }
  EXPECT_GT(copied, 0u) << "some columns held whole and were copied";
  EXPECT_GT(switchLids, 0u) << "switch LIDs among them";
}

}  // namespace
}  // namespace ibsm
