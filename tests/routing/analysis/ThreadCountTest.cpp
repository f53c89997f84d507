// routing.threads changes how fast, never what: routing and the analysis of
// its tables on one thread and on four give the same tables, byte for byte,
// and the same report (its JSON, every figure and example in it). The
// fabrics are small, but each takes a path of the parallel walk of its own:
// a fat tree with a cable cut (ftree off its closed form), one with LMC
// (several LIDs of a port in one unit of work), a dragonfly with its SL2VL
// tables (dependencies per VL), and tables broken on purpose so that every
// kind of unreachable pair, LFT loops and a credit loop are spread over the
// destinations the workers share out.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>

#include <string>
#include <variant>
#include <vector>

#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

struct Case {
  std::string name;
  TopologySpec spec;
  Degradation cut{};
  std::uint8_t lmc{0};
  std::string engine;
  std::uint8_t maxVls{1};
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.name;
}

RoutingResult routeOn(const Fabric& f, const Case& c, unsigned threads) {
  RoutingOptions options;
  options.maxVls = c.maxVls;
  options.threads = threads;
  auto result = defaultRegistry().route(f, {c.engine}, options);
  EXPECT_TRUE(result) << (result ? "" : result.error().message);
  return result ? std::move(*result) : RoutingResult{};
}

void expectSameTables(const RoutingResult& a, const RoutingResult& b) {
  EXPECT_EQ(a.engine, b.engine);
  ASSERT_EQ(a.lfts.size(), b.lfts.size());
  for (std::size_t id = 0; id < a.lfts.size(); ++id)
    EXPECT_EQ(a.lfts[id].port, b.lfts[id].port) << "node " << id;
  ASSERT_EQ(a.sl2vl.size(), b.sl2vl.size());
  for (std::size_t i = 0; i < a.sl2vl.size(); ++i) {
    EXPECT_EQ(a.sl2vl[i].sw, b.sl2vl[i].sw);
    EXPECT_EQ(a.sl2vl[i].inPort, b.sl2vl[i].inPort);
    EXPECT_EQ(a.sl2vl[i].outPort, b.sl2vl[i].outPort);
    EXPECT_EQ(a.sl2vl[i].vl, b.sl2vl[i].vl);
  }
  EXPECT_EQ(a.vlsUsed, b.vlsUsed);
  EXPECT_EQ(a.notes, b.notes);
}

class ThreadCount : public ::testing::TestWithParam<Case> {};

TEST_P(ThreadCount, RoutesAndReportsAlikeOnOneAndFourThreads) {
  const Case& c = GetParam();
  const Fabric f = testing::generatedFabric(c.spec, c.cut, c.lmc);
  const RoutingResult one = routeOn(f, c, 1);
  const RoutingResult four = routeOn(f, c, 4);
  expectSameTables(one, four);

  const RouteReport report = analyseRoutes(f, one, 1);
  EXPECT_GT(report.routedPairs(), 0u);
  const std::string json = reportJson(report);
  EXPECT_EQ(reportJson(analyseRoutes(f, four, 4)), json);
  EXPECT_EQ(reportJson(analyseRoutes(f, one, 2)), json);
  EXPECT_EQ(reportJson(analyseRoutes(f, one, 8)), json);
}

INSTANTIATE_TEST_SUITE_P(Fabrics, ThreadCount,
                         ::testing::Values(Case{.name = "FatTreeRadix12CableCut",
                                                .spec = FatTreeSpec{.levels = 3, .radix = 12},
                                                .cut = {.links = 1, .seed = 1},
                                                .engine = "ftree"},
                                           Case{.name = "FatTreeRadix8Lmc2",
                                                .spec = FatTreeSpec{.levels = 3, .radix = 8},
                                                .lmc = 2,
                                                .engine = "ftree"},
                                           Case{.name = "DragonflyWithSl2Vl",
                                                .spec = DragonflySpec{.a = 4, .p = 2, .h = 2},
                                                .engine = "dragonfly",
                                                .maxVls = 2},
                                           Case{.name = "DragonflyCablesCutMinHop",
                                                .spec = DragonflySpec{.a = 4, .p = 2, .h = 2},
                                                .cut = {.links = 6, .seed = 3},
                                                .engine = "minhop"}),
                         [](const auto& info) { return info.param.name; });

// Breaks the entries of every few LIDs a different way: no entry, a port
// the switch lacks, delivery to the switch itself, and two cabled switches
// sending the LID to each other (an LFT loop, and a credit loop).
RoutingResult broken(const Fabric& f, RoutingResult r) {
  const std::vector<NodeId> switches = f.switches();
  for (std::size_t k = 0; k < switches.size(); ++k) {
    const NodeId s = switches[k];
    Lft& lft = r.lfts[s];
    for (std::size_t lid = 1 + k % 5; lid < lft.port.size(); lid += 5 + k % 7) {
      switch ((lid + k) % 4) {
        case 0:
          lft.port[lid] = kNoRoute;
          break;
        case 1:
          lft.port[lid] = static_cast<std::uint8_t>(f.node(s).numPorts() + 1);
          break;
        case 2:
          lft.port[lid] = 0;
          break;
        default:
          for (std::uint8_t p = 1; p <= f.node(s).numPorts(); ++p) {
            const auto& remote = f.node(s).ports[p].remote;
            if (!remote || !f.node(remote->node).isSwitch()) continue;
            lft.port[lid] = p;
            r.lfts[remote->node].port[lid] = remote->port;
            break;
          }
      }
    }
  }
  return r;
}

TEST(ThreadCountBroken, ChoosesTheSameExamplesAndCycleOnAnyThreadCount) {
  const Case c{.name = "broken", .spec = FatTreeSpec{.levels = 3, .radix = 8}, .engine = "ftree"};
  const Fabric f = testing::generatedFabric(c.spec);
  const RoutingResult tables = broken(f, routeOn(f, c, 1));

  const RouteReport report = analyseRoutes(f, tables, 1);
  for (const std::uint64_t pairs : report.unreachableByReason) EXPECT_GT(pairs, 0u);
  EXPECT_GT(report.lidsWithLoops, 0u);
  EXPECT_FALSE(report.creditLoops.acyclic);
  EXPECT_EQ(report.unreachableExamples.size(), RouteReport::kMaxExamples);
  const std::string json = reportJson(report);
  for (const unsigned threads : {2u, 3u, 4u, 8u})
    EXPECT_EQ(reportJson(analyseRoutes(f, tables, threads)), json) << threads << " threads";

  const CreditLoopReport alone = findCreditLoops(f, tables, 1);
  for (const unsigned threads : {2u, 4u}) {
    const CreditLoopReport again = findCreditLoops(f, tables, threads);
    EXPECT_EQ(again.acyclic, alone.acyclic);
    EXPECT_EQ(again.dependencies, alone.dependencies);
    EXPECT_EQ(again.cycle, alone.cycle);
  }
  EXPECT_EQ(alone.cycle, report.creditLoops.cycle);
}

}  // namespace
}  // namespace ibsm
