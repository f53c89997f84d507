// The held columns' flows and lengths (FatTreeHintedFlows.h), pushed 64
// columns at a time through the previous tables in hub order, are what a
// walk of every source leaf's chain counts: the same load on every cable
// and LMC layer (a watched cable's kept per column), the same CA routes,
// longer routes and kept entries, on 1, 2 and 8 threads.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "routing/engines/ftree/FatTreeDegraded.h"
#include "routing/engines/ftree/FatTreeDegradedPlan.h"
#include "routing/engines/ftree/FatTreeDestinations.h"
#include "routing/engines/ftree/FatTreeHeldColumns.h"
#include "routing/engines/ftree/FatTreeHintedFlows.h"
#include "routing/graph/BitParallelBfs.h"
#include "tests/routing/engines/FatTreeChecks.h"
#include "tests/routing/support/DamagedTrees.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using routing::SwitchGraph;
using routing::SwitchIndex;
using namespace routing::ftree;
using Load = BalancedRoutes::Load;

// (layer, cable) -> routes; and the tally.
struct Counted {
  std::map<std::pair<std::uint8_t, CableId>, std::uint64_t> load;
  std::map<std::pair<std::size_t, CableId>, std::uint64_t> watched;  // (held column, cable)
  std::uint64_t caRoutes{0}, longer{0}, kept{0};
};

// Every source leaf's chain toward every held column, hop by hop.
Counted walked(const FatTreeLayout& layout, const SwitchGraph& graph,
               const std::vector<Lft>& previous, const std::vector<Destination>& dests,
               const std::vector<std::size_t>& held, const std::vector<bool>& watch) {
  Counted out;
  std::vector<std::uint16_t> fewest;
  std::vector<SwitchIndex> queue;
  for (std::size_t k = 0; k < held.size(); ++k) {
    const Destination& d = dests[held[k]];
    routing::hopsFromOne(
        layout.switches(), d.leaf,
        [&](SwitchIndex s, auto&& f) {
          for (CableId c = layout.cableBegin(s); c < layout.cableEnd(s); ++c) f(layout.to[c]);
        },
        fewest, queue);
    for (const SwitchIndex source : layout.leaves) {
      const std::uint64_t sources = layout.computeCas[source] - (source == d.leaf ? 1 : 0);
      out.caRoutes += sources;
      if (source == d.leaf || sources == 0) continue;
      std::uint16_t hops = 0;
      for (SwitchIndex s = source; s != d.leaf; ++hops) {
        const std::uint8_t port = previous[graph.nodeId(s)].port[d.lid.value];
        CableId c = kNoCable;
        for (CableId x = layout.cableBegin(s); x < layout.cableEnd(s); ++x)
          if (layout.port[x] == port) c = x;
        if (c == kNoCable) throw std::runtime_error("a held chain left the tree");
        if (watch[c])
          out.watched[{k, c}] += sources;
        else
          out.load[{d.layer, c}] += sources;
        s = layout.to[c];
      }
      if (hops > fewest[source]) out.longer += sources;
    }
    out.kept += layout.switches();
  }
  return out;
}

// A fat tree routed by ftree (its tables the previous ones), then cut at
// `cuts` random cables, and what the hinted routing starts from: the
// frame read off the previous tables (null when none), the CA
// destinations and the degraded D-mod-K (nullopt when none).
struct CutTree {
  CutTree(int levels, int radix, int cuts, std::uint8_t lmc, std::uint64_t seed)
      : cut(cutOf(levels, radix, cuts, lmc, seed, previous)),
        graph(cut),
        frame(fatTreeFrame(cut, graph, previous, {})),
        dests(frame ? caDestinations(frame->layout, graph, cut) : std::vector<Destination>{}),
        degraded(frame ? DegradedDmodk::make(frame->layout, frame->reach, dests) : std::nullopt) {}
  static Fabric cutOf(int levels, int radix, int cuts, std::uint8_t lmc, std::uint64_t seed,
                      std::vector<Lft>& previous) {
    const Fabric full =
        testing::generatedFabric(FatTreeSpec{.levels = levels, .radix = radix}, {}, lmc);
    previous = testing::routeFtree(full).lfts;
    std::mt19937 rng(static_cast<std::mt19937::result_type>(seed));
    return testing::cutCables(full, cuts, rng);
  }

  std::vector<Lft> previous;
  Fabric cut;
  SwitchGraph graph;
  std::shared_ptr<FatTreeFrame> frame;
  std::vector<Destination> dests;
  std::optional<DegradedDmodk> degraded;
};

Counted pushed(const std::vector<HeldFlows>& work) {
  Counted out;
  for (const HeldFlows& w : work) {
    for (std::size_t layer = 0; layer < w.loads.size(); ++layer)
      for (CableId c = 0; c < w.loads[layer].size(); ++c)
        if (w.loads[layer][c] != 0)
          out.load[{static_cast<std::uint8_t>(layer), c}] += w.loads[layer][c];
    for (const Watched& x : w.watched) out.watched[{x.held, x.cable}] += x.flow;
    out.caRoutes += w.tally.caRoutes;
    out.longer += w.tally.longer;
    out.kept += w.tally.keptFromPrevious;
  }
  return out;
}

TEST(FatTreeHintedFlows, PushedTilesCountWhatAWalkOfEveryLeafsChainCounts) {
  struct Case {
    int levels, radix, cuts;
    std::uint8_t lmc;
    std::uint64_t seed;
  };
  for (const Case c :
       {Case{3, 8, 1, 0, 1}, Case{3, 8, 4, 2, 2}, Case{3, 12, 2, 0, 3}, Case{2, 16, 3, 1, 4}}) {
    SCOPED_TRACE(::testing::Message() << c.levels << " levels, radix " << c.radix << ", " << c.cuts
                                      << " cut, lmc " << int{c.lmc});
    const CutTree t(c.levels, c.radix, c.cuts, c.lmc, c.seed);
    ASSERT_NE(t.frame, nullptr);
    const auto& [previous, cut, graph, frame, dests, degraded] = t;
    const FatTreeLayout& layout = frame->layout;
    ASSERT_TRUE(degraded.has_value());
    const DegradedTree tree{layout, frame->reach, frame->hub, dests, *degraded};
    const HintColumns hint(graph, layout, previous);
    // The columns held whole, found as the judge finds them.
    const HeldColumns whole(graph, frame->hub, previous);
    HeldColumns::Scratch scratch;
    std::vector<std::size_t> held;
    for (std::size_t i = 0; i < dests.size(); ++i) {
      const HeldLane lane{dests[i].lid, dests[i].leaf, dests[i].port};
      if (whole.wholeLanes(std::span(&lane, 1), scratch) == 1) held.push_back(i);
    }
    ASSERT_GT(held.size(), 0u);
    ASSERT_LT(held.size(), dests.size());  // the cut broke some
    // Every third up cable of a switch that lost a cable watched.
    std::vector<bool> watch(layout.cables(), false);
    for (const SwitchIndex s : degraded->shortList())
      for (const CableId x : layout.upCables(s)) watch[x] = x % 3 == 0;
    const Counted expected = walked(layout, graph, previous, dests, held, watch);
    EXPECT_GT(expected.load.size(), 0u);
    for (const unsigned threads : {1u, 2u, 8u}) {
      const Counted got = pushed(countHeldColumns(tree, hint, watch, held, threads));
      EXPECT_EQ(got.load, expected.load) << "threads " << threads;
      EXPECT_EQ(got.watched, expected.watched) << "threads " << threads;
      EXPECT_EQ(got.caRoutes, expected.caRoutes) << "threads " << threads;
      EXPECT_EQ(got.longer, expected.longer) << "threads " << threads;
      EXPECT_EQ(got.kept, expected.kept) << "threads " << threads;
    }
  }
}

// The columns routed one at a time under change count their longer routes
// on the leaf distance table (countLengths) as Lengths::count does with a
// search from their leaf: every destination of a cut tree, its D-mod-K
// column where it keeps one, else the hub order's (Up*/Down* around the
// cuts, some routes longer than the fewest hops), legalised.
TEST(FatTreeHintedFlows, LengthsReadOffTheLeafDistancesAreWhatASearchFromTheLeafCounts) {
  struct Case {
    int levels, cuts;
    std::uint64_t seed;
  };
  std::uint64_t longer = 0;  // over every cut: some routes detour
  for (const Case c : {Case{2, 10, 1}, Case{2, 14, 2}, Case{3, 6, 3}, Case{3, 16, 4}}) {
    SCOPED_TRACE(::testing::Message() << c.levels << " levels, " << c.cuts << " cut");
    const CutTree t(c.levels, 8, c.cuts, 0, c.seed);
    ASSERT_NE(t.frame, nullptr);
    const auto& [previous, cut, graph, frame, dests, degraded] = t;
    const FatTreeLayout& layout = frame->layout;
    const std::vector<bool> every(layout.leaves.size(), true);
    const std::vector<std::uint16_t> dist = leafDistances(layout, every, 2);
    Legaliser legaliser(layout, frame->hub);
    Lengths lengths(layout);
    Tally searched, read;
    std::vector<CableId> column;
    for (std::size_t i = 0; i < dests.size(); ++i) {
      column.assign(layout.switches(), kNoCable);
      bool plain = false;
      if (degraded) {
        const DegradedTree tree{layout, frame->reach, frame->hub, dests, *degraded};
        plain = degraded->plainColumn(i, towardLeaf(tree, dests[i].leaf).dist, column);
      }
      if (!plain) {
        column.assign(layout.switches(), kNoCable);
        column[dests[i].leaf] = kDeliver;
      }
      legaliser.legalise(column, dests[i].leaf);
      lengths.count(dests[i], column, legaliser, searched);
      countLengths(layout, dests[i], column, legaliser, dist, read);
    }
    EXPECT_GT(searched.caRoutes, 0u);
    EXPECT_EQ(read.caRoutes, searched.caRoutes);
    EXPECT_EQ(read.longer, searched.longer);
    longer += searched.longer;
  }
  EXPECT_GT(longer, 0u);
}

}  // namespace
}  // namespace ibsm
