// The pieces the all-pairs walk is made of for speed, each held to the
// plain computation it replaces: ShortestHops (64 BFS in one) against one
// BFS per switch, and NextHops::resolveTogether against resolve() one
// destination at a time, on tables with every kind of broken entry.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include <vector>

#include "routing/analysis/ForwardingView.h"
#include "routing/analysis/NextHops.h"
#include "routing/analysis/ShortestHops.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using analysis::Destination;
using analysis::ForwardingView;
using analysis::NextHops;
using analysis::ShortestHops;

RoutingResult routed(const Fabric& f, const char* engine) {
  auto result = defaultRegistry().route(f, {engine}, {});
  EXPECT_TRUE(result) << (result ? "" : result.error().message);
  return result ? std::move(*result) : RoutingResult{};
}

// Every CA-delivering switch's row equals a BFS from it (the channels run
// both ways, so hops to it are hops from it); returns the rows checked.
std::size_t expectShortestHopsOfEveryTarget(const Fabric& f, const RoutingResult& r,
                                            unsigned threads) {
  const ForwardingView view(f, r);
  const ShortestHops shortest(view, threads);
  std::vector<bool> checked(view.switches(), false);
  std::size_t rows = 0;
  for (const Destination& d : view.destinations()) {
    if (d.ownerIsSwitch || d.sw == analysis::kNoSwitch || checked[d.sw]) continue;
    checked[d.sw] = true;
    ++rows;
    const std::vector<std::uint16_t> bfs = view.graph().hopsFrom(d.sw);
    const auto row = shortest.to(d.sw);
    EXPECT_EQ(std::vector<std::uint16_t>(row.begin(), row.end()), bfs) << "to switch " << d.sw;
  }
  return rows;
}

TEST(ShortestHops, EqualsOneSearchPerSwitchOnARingCutInTwo) {
  // 101 switches: two batches of 64, paths up to 50 hops, and after the
  // cuts two parts that cannot reach each other.
  Fabric f = testing::ringFabric(101);
  testing::removeCables(f, {{"r0", "r1"}, {"r50", "r51"}});
  const RoutingResult r = routed(f, "minhop");
  EXPECT_EQ(expectShortestHopsOfEveryTarget(f, r, 1), 101u);
  EXPECT_EQ(expectShortestHopsOfEveryTarget(f, r, 3), 101u);
}

TEST(ShortestHops, EqualsOneSearchPerSwitchOnAFatTreeWithCablesLost) {
  const Fabric f = testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 12},
                                            Degradation{.links = 3, .seed = 2});
  EXPECT_GT(expectShortestHopsOfEveryTarget(f, routed(f, "ftree"), 2), 64u);
}

// Sends every few LIDs somewhere wrong on some switch: no entry, a port
// past the last, port 0, any port (loops among them).
RoutingResult broken(const Fabric& f, RoutingResult r) {
  const std::vector<NodeId> switches = f.switches();
  for (std::size_t k = 0; k < switches.size(); k += 2) {
    Lft& lft = r.lfts[switches[k]];
    const auto ports = f.node(switches[k]).numPorts();
    for (std::size_t lid = 1 + k % 3; lid < lft.port.size(); lid += 3 + k % 4) {
      const std::size_t pick = (lid + k) % 4;
      lft.port[lid] = pick == 0   ? kNoRoute
                      : pick == 1 ? static_cast<std::uint8_t>(ports + 1)
                      : pick == 2 ? std::uint8_t{0}
                                  : static_cast<std::uint8_t>(1 + (lid * 7 + k) % ports);
    }
  }
  return r;
}

void expectSameHops(const ForwardingView& view, const NextHops& a, const NextHops& b) {
  for (analysis::SwitchIndex s = 0; s < view.switches(); ++s) {
    ASSERT_EQ(a.outcome(s), b.outcome(s)) << "switch " << s;
    ASSERT_EQ(a.channel(s), b.channel(s)) << "switch " << s;
    ASSERT_EQ(a.next(s), b.next(s)) << "switch " << s;
    if (a.outcome(s) == analysis::Outcome::Delivered) {
      ASSERT_EQ(a.hops(s), b.hops(s)) << "switch " << s;
    }
  }
  EXPECT_TRUE(std::ranges::equal(a.order(), b.order()));
  EXPECT_EQ(a.hasLoop(), b.hasLoop());
}

TEST(NextHops, ResolvingTogetherEqualsResolvingOneByOne) {
  const Fabric f = testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  const RoutingResult r = broken(f, routed(f, "ftree"));
  const ForwardingView view(f, r);
  const auto ds = view.destinations();
  std::vector<NextHops> together(5, NextHops(view));
  NextHops alone(view);
  std::size_t loops = 0;
  std::size_t unreachable = 0;
  for (std::size_t first = 0; first < ds.size(); first += together.size()) {
    const std::size_t count = std::min(together.size(), ds.size() - first);
    std::vector<NextHops*> hops;
    std::vector<const Destination*> batch;
    for (std::size_t i = 0; i < count; ++i) {
      hops.push_back(&together[i]);
      batch.push_back(&ds[first + i]);
    }
    NextHops::resolveTogether(hops, batch);
    for (std::size_t i = 0; i < count; ++i) {
      alone.resolve(ds[first + i]);
      expectSameHops(view, together[i], alone);
      loops += alone.hasLoop();
      for (analysis::SwitchIndex s = 0; s < view.switches(); ++s)
        unreachable += alone.outcome(s) != analysis::Outcome::Delivered;
    }
  }
  EXPECT_GT(loops, 0u);  // the broken entries made loops and dead ends
  EXPECT_GT(unreachable, 0u);
}

}  // namespace
}  // namespace ibsm
