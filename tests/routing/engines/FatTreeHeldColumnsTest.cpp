// FatTreeHeldColumns: a LID's previous column "holds whole" when from every
// switch its chain climbs, then only descends in the hub order over cables
// that exist and delivers on the owner's port. The bit-parallel pass must
// say exactly that, lane by lane, as a plain walk of every chain says it:
// on ftree's own tables of the tree they were made for, on trees that lost
// cables since, and on tables with entries spoilt at random (loops, dead
// ports, wrong delivery ports).
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include "routing/engines/ftree/FatTreeHeldColumns.h"
#include "routing/graph/PreviousChains.h"
#include "routing/graph/SwitchGraph.h"
#include "tests/routing/support/DamagedTrees.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::routing::ftree {
namespace {

std::vector<Lft> ftreeTables(const Fabric& f) {
  auto r = defaultRegistry().route(f, {"ftree"}, {.rootGuids = {}, .threads = 1});
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(r->lfts);
}

std::vector<HeldLane> lanesOf(const SwitchGraph& graph) {
  std::vector<HeldLane> out;
  for (SwitchIndex s = 0; s < graph.size(); ++s)
    for (const Endpoint& e : graph.endpoints(s))
      for (std::uint32_t k = 0; e.base.value != 0 && k < (1u << e.lmc); ++k)
        out.push_back({Lid{static_cast<std::uint16_t>(e.base.value + k)}, s, e.switchPort});
  std::ranges::sort(out, {}, [](const HeldLane& l) { return l.lid.value; });
  return out;
}

// The plain walk: every switch's chain holds (PreviousChains) and its
// positions in `order` fall, then only rise.
bool holdsWhole(const SwitchGraph& graph, const std::vector<SwitchIndex>& order,
                PreviousChains& chains, const HeldLane& lane) {
  std::vector<std::size_t> position(graph.size());
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  chains.judge(lane.lid, lane.sw, lane.port);
  for (SwitchIndex s = 0; s < graph.size(); ++s) {
    if (!chains.holds(s)) return false;
    bool descending = false;
    for (SwitchIndex at = s; chains.next(at) != kNoSwitch; at = chains.next(at)) {
      const bool down = position[chains.next(at)] > position[at];
      if (descending && !down) return false;
      descending = descending || down;
    }
  }
  return true;
}

using testing::cutCables;
using testing::spoilEntries;

// Lanes whose bits the pass and the walk disagree on; counts the whole ones.
std::size_t disagreements(const Fabric& now, const std::vector<Lft>& previous, std::size_t& whole,
                          std::size_t& lanes) {
  const SwitchGraph graph(now);
  const auto held = heldColumns(now, graph, previous, {});
  if (!held) throw std::runtime_error("no fat tree");
  PreviousChains chains(graph, previous);
  const auto all = lanesOf(graph);
  HeldColumns::Scratch scratch;
  std::size_t wrong = 0;
  for (std::size_t first = 0; first < all.size(); first += 64) {
    const std::span<const HeldLane> tile(all.data() + first,
                                         std::min<std::size_t>(64, all.size() - first));
    const std::uint64_t bits = held->wholeLanes(tile, scratch);
    for (std::size_t i = 0; i < tile.size(); ++i) {
      const bool walked = holdsWhole(graph, held->order(), chains, tile[i]);
      wrong += walked != (((bits >> i) & 1u) != 0);
      whole += walked;
    }
  }
  lanes += all.size();
  return wrong;
}

TEST(FatTreeHeldColumns, EveryColumnOfFtreesTablesHoldsWholeOnItsOwnTree) {
  for (const std::uint8_t lmc : {0, 2}) {
    const Fabric full = testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8}, {}, lmc);
    std::size_t whole = 0, lanes = 0;
    EXPECT_EQ(disagreements(full, ftreeTables(full), whole, lanes), 0u);
    EXPECT_EQ(whole, lanes) << "lmc " << int{lmc};
  }
}

TEST(FatTreeHeldColumns, SaysWhatTheWalkSaysOnCutTreesAndSpoiltTables) {
  std::mt19937 rng(31);
  for (const int radix : {8, 12}) {
    for (const std::uint8_t lmc : {0, 2}) {
      const Fabric full =
          testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = radix}, {}, lmc);
      const std::vector<Lft> before = ftreeTables(full);
      for (const int cuts : {1, 3, 8}) {
        const Fabric now = cutCables(full, cuts, rng);
        std::vector<Lft> previous = before;
        if (cuts == 3) spoilEntries(previous, 40, rng);
        std::size_t whole = 0, lanes = 0;
        EXPECT_EQ(disagreements(now, previous, whole, lanes), 0u)
            << "radix " << radix << " lmc " << int{lmc} << " cuts " << cuts;
        EXPECT_GT(whole, 0u) << "some columns miss the cut cables";
        EXPECT_LT(whole, lanes) << "some columns crossed a cut cable";
      }
    }
  }
}

}  // namespace
}  // namespace ibsm::routing::ftree
