// ftree's apart pairs on two VLs (issue 33, FatTreeApartVl.h): with two
// data VLs the pairs toward aggregation nodes, upper CAs and switch LIDs take
// the fewest switch hops, each pair on the SL the engine names for it, and
// every pair walked on its own SL (PairSlWalk.h, independent of the engine)
// arrives, is never dropped, and the channel dependencies of all pairs on
// their SLs form no cycle. The compute columns stay what one VL gives them,
// and with one VL (RoutingOptions::maxVls 1, or ports of VLCap 1) the
// tables are today's, byte for byte.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>
#include <ibsm/TopologyGenerator.h>

#include <set>
#include <string>

#include "routing/engines/ftree/FatTreeApartVlTables.h"
#include "tests/routing/engines/FatTreeChecks.h"
#include "tests/routing/engines/PairSlWalk.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::routeFtree;
using testing::routeFtreeVl;
using testing::switchHopsFrom;
using testing::walkPairsOnTheirSls;

struct VlCase {
  std::string name;
  FatTreeSpec spec;
  Degradation cut{};
  bool full() const { return cut.links == 0; }
};
void PrintTo(const VlCase& c, std::ostream* os) {
  *os << c.name;
}

bool isComputeCa(const Fabric& fabric, NodeId id) {
  const std::string& d = fabric.node(id).description;
  return !fabric.node(id).isSwitch() && !d.starts_with("io") &&
         d.find("Aggregation Node") == std::string::npos;
}

// Every switch's port 0, every CA port that holds a LID.
NodeId switchOfEnd(const Fabric& fabric, PortRef end) {
  return fabric.node(end.node).isSwitch() ? end.node : fabric.port(end).remote->node;
}

class ApartVlKinds : public ::testing::TestWithParam<VlCase> {
 protected:
  const Fabric fabric_ = generatedFabric(GetParam().spec, GetParam().cut);
  const RoutingResult oneVl_ = routeFtreeVl(fabric_, RoutingOptions{.rootGuids = {}, .maxVls = 1});
  const RoutingResult vls_ = routeFtreeVl(fabric_, RoutingOptions{.rootGuids = {}, .maxVls = 8});
};

TEST_P(ApartVlKinds, UsesTwoVlsAndNamesThePairsThatTurn) {
  EXPECT_EQ(vls_.vlsUsed, GetParam().full() ? 2 : 3)
      << fmt::format("{}", fmt::join(vls_.notes, "\n"));
  EXPECT_FALSE(vls_.sl2vl.empty());
  EXPECT_FALSE(vls_.pairSls.empty());
  EXPECT_TRUE(std::ranges::is_sorted(vls_.pairSls));
  std::set<std::uint8_t> sls;
  for (const PairSl& p : vls_.pairSls) sls.insert(p.sl);
  // Where cables were cut: SL 3 (the hub order's detours on VL 2), no SL 2.
  const std::set<std::uint8_t> expected =
      GetParam().full() ? std::set<std::uint8_t>{1, 2} : std::set<std::uint8_t>{1, 3};
  EXPECT_EQ(sls, expected);
}

// Plain "ftree" takes the second VL as "ftree-vl" does, where two data VLs
// are allowed (the multicast trees that must turn go on the SL no turn
// drops: FatTreeApartVlMulticastTest), and keeps the one-VL tables where
// only one is.
TEST_P(ApartVlKinds, PlainFtreeTakesTheSecondVlWhereAllowed) {
  const RoutingResult plain = routeFtree(fabric_, RoutingOptions{.rootGuids = {}, .maxVls = 8});
  EXPECT_EQ(plain.engine, "ftree");
  EXPECT_EQ(vls_.engine, "ftree-vl");
  EXPECT_EQ(plain.vlsUsed, vls_.vlsUsed);
  EXPECT_GE(plain.vlsUsed, 2);
  EXPECT_EQ(plain.pairSls, vls_.pairSls);
  EXPECT_EQ(plain.sl2vl.size(), vls_.sl2vl.size());
  ASSERT_EQ(plain.lfts.size(), vls_.lfts.size());
  for (std::size_t n = 0; n < plain.lfts.size(); ++n)
    EXPECT_EQ(plain.lfts[n].port, vls_.lfts[n].port) << "node " << n;
  const RoutingResult plainOne = routeFtree(fabric_, RoutingOptions{.rootGuids = {}, .maxVls = 1});
  EXPECT_EQ(plainOne.vlsUsed, 1);
  EXPECT_TRUE(plainOne.sl2vl.empty());
  EXPECT_TRUE(plainOne.pairSls.empty());
  for (std::size_t n = 0; n < plainOne.lfts.size(); ++n)
    EXPECT_EQ(plainOne.lfts[n].port, oneVl_.lfts[n].port) << "node " << n;
}

TEST_P(ApartVlKinds, EveryPairArrivesOnItsSlFreeOfCreditLoops) {
  const auto walk = walkPairsOnTheirSls(fabric_, vls_);
  EXPECT_GT(walk.pairs, 0u);
  EXPECT_EQ(walk.delivered, walk.pairs);
  EXPECT_EQ(walk.dropped, 0u);
  EXPECT_GT(walk.onSl[1], 0u);
  EXPECT_TRUE(walk.acyclic);
}

// Pairs (CA or switch sources, every LID) longer than the fewest switch hops.
std::size_t longerThanFewest(const Fabric& fabric, const testing::PairSlWalk& walk) {
  std::map<NodeId, std::map<NodeId, std::size_t>> fewest;
  std::map<std::uint16_t, NodeId> switchOfLid;
  for (NodeId id = 0; id < fabric.size(); ++id)
    for (const Port& p : fabric.node(id).ports)
      if (p.lid.value != 0 && (fabric.node(id).isSwitch() ? p.number == 0 : p.remote.has_value()))
        for (unsigned l = 0; l < (1u << p.lmc); ++l)
          switchOfLid[p.lid.value + l] = switchOfEnd(fabric, {id, p.number});
  std::size_t longer = 0;
  for (const auto& [pair, hops] : walk.hops) {
    const NodeId from = switchOfEnd(fabric, pair.first);
    if (!fewest.contains(from)) fewest[from] = switchHopsFrom(fabric, from);
    longer += hops != fewest[from].at(switchOfLid.at(pair.second));
  }
  return longer;
}

// Every pair, compute or apart, from a CA or a switch, on the fewest switch
// hops on a full tree; where cables were cut, fewer longer pairs than on one
// VL (the hub order's detours stay where some switch has no other way).
TEST_P(ApartVlKinds, EveryPairTakesTheFewestSwitchHops) {
  const auto walk = walkPairsOnTheirSls(fabric_, vls_);
  EXPECT_EQ(walk.hops.size(), walk.pairs);
  const std::size_t longer = longerThanFewest(fabric_, walk);
  const std::size_t before = longerThanFewest(fabric_, walkPairsOnTheirSls(fabric_, oneVl_));
  EXPECT_GT(before, 0u);
  if (GetParam().full())
    EXPECT_EQ(longer, 0u);
  else
    EXPECT_LT(longer, before);
}

// On a full tree (a tree that lost cables reroutes the compute columns whose
// hub-order detours have no shape two VLs keep free of credit loops).
TEST_P(ApartVlKinds, KeepsTheComputeColumnsOfOneVl) {
  if (!GetParam().full()) GTEST_SKIP() << "cables cut";
  std::size_t columns = 0;
  for (NodeId id = 0; id < fabric_.size(); ++id) {
    if (!isComputeCa(fabric_, id)) continue;
    for (const Port& p : fabric_.node(id).ports) {
      if (p.lid.value == 0 || !p.remote) continue;
      ++columns;
      for (const NodeId sw : fabric_.switches())
        ASSERT_EQ(vls_.lfts[sw].at(p.lid), oneVl_.lfts[sw].at(p.lid))
            << fabric_.node(sw).description << " toward " << fabric_.node(id).description;
    }
  }
  EXPECT_GT(columns, 0u);
}

// The report walks every pair on every SL (a host that picks the wrong SL):
// dropped at worst, never a credit loop.
TEST_P(ApartVlKinds, NoSlClosesACreditLoop) {
  const RouteReport report = analyseRoutes(fabric_, vls_, 1);
  EXPECT_TRUE(report.creditLoops.acyclic)
      << "cycle: " << fmt::format("{}", fmt::join(report.creditLoops.cycle, " => "));
}

TEST_P(ApartVlKinds, OneVlKeepsTodaysTables) {
  const RoutingResult byDefault = routeFtreeVl(fabric_);
  EXPECT_EQ(oneVl_.vlsUsed, 1);
  EXPECT_TRUE(oneVl_.sl2vl.empty());
  EXPECT_TRUE(oneVl_.pairSls.empty());
  for (const NodeId sw : fabric_.switches())
    ASSERT_EQ(oneVl_.lfts[sw].port, byDefault.lfts[sw].port);
  Fabric vl0Only = fabric_;
  for (const NodeId id : vl0Only.switches())
    for (Port& p : vl0Only.node(id).ports) p.vlCap = 1;
  const RoutingResult capped = routeFtreeVl(vl0Only, RoutingOptions{.rootGuids = {}, .maxVls = 8});
  EXPECT_TRUE(capped.pairSls.empty());
  for (const NodeId sw : fabric_.switches()) ASSERT_EQ(capped.lfts[sw].port, oneVl_.lfts[sw].port);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ApartVlKinds,
    ::testing::Values(
        VlCase{"AggregationNodes", FatTreeSpec{.levels = 3, .radix = 8, .aggregationNodes = true}},
        VlCase{"IoOnSpines", FatTreeSpec{.levels = 3, .radix = 8, .ioHosts = {{1, 4}}}},
        VlCase{"IoOnCores", FatTreeSpec{.levels = 3, .radix = 8, .ioHosts = {{2, 4}}}},
        VlCase{"RailsAggregationNodesIo", FatTreeSpec{.levels = 3,
                                                      .radix = 8,
                                                      .aggregationNodes = true,
                                                      .ioHosts = {{1, 2}, {2, 2}},
                                                      .rails = 2}},
        VlCase{"AggregationNodesCablesCut",
               FatTreeSpec{.levels = 3, .radix = 8, .aggregationNodes = true},
               Degradation{.links = 4, .seed = 1}}),
    [](const ::testing::TestParamInfo<VlCase>& info) { return info.param.name; });

// A tree of compute CAs alone has no apart pair: its tables stay the one-VL
// ones whatever VLs the ports have (scripts/stable-routes-figures.sh's trees).
TEST(ApartVlPlainTree, KeepsTheOneVlTables) {
  const Fabric fabric = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  const RoutingResult many = routeFtreeVl(fabric, RoutingOptions{.rootGuids = {}, .maxVls = 8});
  const RoutingResult one = routeFtreeVl(fabric, RoutingOptions{.rootGuids = {}, .maxVls = 1});
  EXPECT_EQ(many.vlsUsed, 1);
  EXPECT_TRUE(many.sl2vl.empty());
  EXPECT_TRUE(many.pairSls.empty());
  for (const NodeId sw : fabric.switches()) ASSERT_EQ(many.lfts[sw].port, one.lfts[sw].port);
}

// The SL2VL table of FatTreeApartVl.h, as its comment states it.
TEST(ApartVlTable, DropsEachSlWhereItsShapesNeverGo) {
  using routing::ftree::apartVl;
  using routing::ftree::InKind;
  using routing::ftree::OutKind;
  EXPECT_EQ(apartVl(0, InKind::kFromAbove, OutKind::kUp), 15);
  EXPECT_EQ(apartVl(0, InKind::kFromBelow, OutKind::kUp), 0);
  EXPECT_EQ(apartVl(1, InKind::kFromAbove, OutKind::kUp), 1);
  EXPECT_EQ(apartVl(1, InKind::kFromBelow, OutKind::kUp), 1);
  EXPECT_EQ(apartVl(1, InKind::kSource, OutKind::kUp), 0);
  EXPECT_EQ(apartVl(1, InKind::kFromBelow, OutKind::kDown), 15);
  EXPECT_EQ(apartVl(2, InKind::kFromAbove, OutKind::kUp), 1);
  EXPECT_EQ(apartVl(2, InKind::kFromBelow, OutKind::kUp), 15);
  EXPECT_EQ(apartVl(2, InKind::kFromBelow, OutKind::kDown), 0);
  for (std::uint8_t sl = 0; sl < 16; ++sl)
    for (const auto in : {InKind::kSource, InKind::kFromBelow, InKind::kFromAbove}) {
      // VL 1 only ever climbs, but for the multicast SL's trees.
      if (sl != routing::ftree::kMulticastSl) {
        EXPECT_NE(apartVl(sl, in, OutKind::kDown), 1);
      }
      EXPECT_EQ(apartVl(sl, in, OutKind::kToCa), 0);
    }
}

// The multicast SL: every turn carries it, on VL 1 between switches.
TEST(ApartVlTable, CarriesTheMulticastSlAtEveryTurn) {
  using routing::ftree::apartVl;
  using routing::ftree::InKind;
  using routing::ftree::kMulticastSl;
  using routing::ftree::OutKind;
  for (const auto in : {InKind::kSource, InKind::kFromBelow, InKind::kFromAbove}) {
    EXPECT_EQ(apartVl(kMulticastSl, in, OutKind::kUp), 1);
    EXPECT_EQ(apartVl(kMulticastSl, in, OutKind::kDown), 1);
  }
}

}  // namespace
}  // namespace ibsm
