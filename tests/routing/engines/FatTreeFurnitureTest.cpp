// ftree on fat trees as they are built: SHARP aggregation nodes on every
// switch, I/O hosts on spines and cores, director chips taking hosts beside
// top-of-rack switches (leaves of uneven height), rail-optimised servers,
// and their combinations. Every check walks the LFTs; of the engine only the
// documented shape (recogniseFatTree) is used.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/FatTree.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <ranges>
#include <set>
#include <string>
#include <vector>

#include "tests/routing/engines/FatTreeChecks.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::Hop;
using testing::interSwitchHops;
using testing::leafFloor;
using testing::levelsOf;
using testing::upPorts;

struct FurnitureCase {
  std::string name;
  FatTreeSpec spec;
  Degradation cut{};
  bool full{true};  // complete and regular: D-mod-K, shift permutations free
};
void PrintTo(const FurnitureCase& c, std::ostream* os) {
  *os << c.name;
}

std::size_t ioCount(const FatTreeSpec& spec) {
  std::size_t n = 0;
  for (const IoHosts& io : spec.ioHosts) n += static_cast<std::size_t>(io.count);
  return n;
}

// The rail of a compute CA from its "<host> mlx5_<r>" NodeDescription.
int railOf(const Fabric& fabric, PortRef ca) {
  const std::string& d = fabric.node(ca.node).description;
  const auto at = d.rfind(" mlx5_");
  return at == std::string::npos ? -1 : std::stoi(d.substr(at + 6));
}

// "h3_12 mlx5_2" as (3, 12, 2): the numbers of a generated server name.
std::vector<int> naturalKey(const std::string& name) {
  std::vector<int> key;
  for (std::size_t i = 0; i < name.size();) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    key.push_back(std::stoi(name.substr(i, end - i)));
    i = end;
  }
  return key;
}

class FurnishedFatTree : public ::testing::TestWithParam<FurnitureCase> {
 protected:
  const Fabric fabric_ = generatedFabric(GetParam().spec, GetParam().cut);
  const Result<RoutingResult> auto_ = makeAutoEngine()->route(fabric_, {});
  const RoutingResult& result_ = *auto_;
  const Result<FatTreeShape> shape_ = recogniseFatTree(fabric_);
  const std::map<NodeId, std::size_t> level_ = levelsOf(fabric_);
  mutable std::map<NodeId, std::set<NodeId>> above_;

  void SetUp() override {
    ASSERT_TRUE(auto_) << auto_.error().message;
    ASSERT_TRUE(shape_) << shape_.error().message;
  }

  // Directed inter-switch hop -> compute CA->CA routes over it.
  std::map<Hop, std::uint64_t> computeLoads() const {
    std::map<Hop, std::uint64_t> load;
    for (const PortRef dst : shape_->caOrder)
      for (const PortRef src : shape_->caOrder)
        if (src != dst)
          for (const Hop& h : interSwitchHops(fabric_, result_, src, fabric_.port(dst).lid))
            ++load[h];
    return load;
  }

  // The switch and every switch above it in the levels ftree reads.
  const std::set<NodeId>& above(NodeId sw) const {
    if (auto it = above_.find(sw); it != above_.end()) return it->second;
    std::set<NodeId>& out = above_[sw];
    std::vector<NodeId> todo{sw};
    out.insert(sw);
    while (!todo.empty()) {
      const NodeId s = todo.back();
      todo.pop_back();
      for (const Port& p : fabric_.node(s).ports)
        if (p.remote && fabric_.node(p.remote->node).isSwitch() &&
            level_.at(p.remote->node) > level_.at(s) && out.insert(p.remote->node).second)
          todo.push_back(p.remote->node);
    }
    return out;
  }

  // Busiest-link floor of compute leaves that share no switch above them
  // (hosts on the line cards of two different directors, which meet only
  // through a top-of-rack switch): on one VL all such flows turn in the one
  // leaf the up*/down* order allows, so its cables carry them all.
  double valleyFloor() const {
    std::map<NodeId, std::size_t> hosts;
    for (const PortRef ca : shape_->caOrder) ++hosts[fabric_.port(ca).remote->node];
    double flows = 0;
    for (const NodeId a : shape_->leaves)
      for (const NodeId b : shape_->leaves) {
        const bool shared =
            std::ranges::any_of(above(a), [&](NodeId s) { return above(b).contains(s); });
        if (a != b && !shared) flows += double(hosts[a]) * double(hosts[b]);
      }
    std::size_t cables = 0;
    for (const NodeId leaf : shape_->leaves)
      cables = std::max(cables, upPorts(fabric_, leaf, level_).size());
    return cables == 0 ? 0 : flows / double(cables);
  }
};

TEST_P(FurnishedFatTree, IsPickedByAutoAsAFatTree) {
  EXPECT_EQ(result_.engine, "ftree") << (result_.notes.empty() ? "" : result_.notes.front());
}

TEST_P(FurnishedFatTree, RecognisesEachPieceOfFurniture) {
  const FatTreeSpec& spec = GetParam().spec;
  EXPECT_EQ(shape_->aggregationNodes.size(),
            spec.aggregationNodes ? fabric_.switches().size() : 0u);
  EXPECT_EQ(shape_->upperCas.size(), ioCount(spec));
  EXPECT_EQ(shape_->rails, spec.rails > 1 ? std::uint32_t(spec.rails) : 0u);
  EXPECT_EQ(shape_->unevenLeaves, spec.directorPods > 0);
  for (const PortRef an : shape_->aggregationNodes)
    EXPECT_NE(fabric_.node(an.node).description.find("Aggregation Node"), std::string::npos);
  for (const PortRef io : shape_->upperCas)
    EXPECT_TRUE(fabric_.node(io.node).description.starts_with("io"));
  // Every other CA port is a compute CA, dealt in caOrder.
  std::size_t caPorts = 0;
  for (const NodeId id : fabric_.endNodes())
    for (const Port& p : fabric_.node(id).ports) caPorts += p.connected();
  EXPECT_EQ(shape_->caOrder.size() + shape_->aggregationNodes.size() + shape_->upperCas.size(),
            caPorts);
}

TEST_P(FurnishedFatTree, RoutesEveryPairOfEveryKindWithoutCreditLoopsOnOneVl) {
  const auto report = analyseRoutes(fabric_, result_);
  for (std::size_t k = 0; k < kPairKinds; ++k) {
    EXPECT_EQ(report.pairs[k].unreachable, 0u) << toString(PairKind(k));
    EXPECT_GT(report.pairs[k].routed, 0u) << toString(PairKind(k));
  }
  EXPECT_TRUE(report.creditLoops.acyclic);
  EXPECT_EQ(report.creditLoops.vlsNeeded, 1);
}

// Every route between a compute CA and any CA (compute, aggregation node,
// upper CA) whose switches share a switch above them is as short as the
// shortest path. Pairs that share none (the aggregation nodes of two
// spines; hosts on line cards of two directors) have their shortest path
// turn down then up in some leaf, which on one VL would close a credit loop
// with the compute routes: they turn in the hub leaf and are only required
// to arrive (the report's check).
TEST_P(FurnishedFatTree, TakesShortestPathsBetweenCasWithACommonAncestor) {
  if (GetParam().cut.links > 0) GTEST_SKIP() << "cables cut: up*/down* may detour";
  std::set<PortRef> compute(shape_->caOrder.begin(), shape_->caOrder.end());
  std::vector<PortRef> all;
  for (const NodeId id : fabric_.endNodes())
    for (std::uint8_t p = 1; p <= fabric_.node(id).numPorts(); ++p)
      if (fabric_.node(id).ports[p].connected()) all.push_back({id, p});
  std::map<NodeId, std::map<NodeId, std::size_t>> hops;  // switch -> switch
  for (const NodeId sw : fabric_.switches()) hops[sw] = testing::switchHopsFrom(fabric_, sw);
  std::size_t checked = 0, longer = 0;
  for (const PortRef src : all)
    for (const PortRef dst : all) {
      if (src == dst || (!compute.contains(src) && !compute.contains(dst))) continue;
      const NodeId a = fabric_.port(src).remote->node, b = fabric_.port(dst).remote->node;
      if (!std::ranges::any_of(above(a), [&](NodeId s) { return above(b).contains(s); })) continue;
      const auto walked = interSwitchHops(fabric_, result_, src, fabric_.port(dst).lid);
      ++checked;
      if (walked.size() != hops[a][b] && ++longer <= 5)
        ADD_FAILURE() << fabric_.node(src.node).description << " -> "
                      << fabric_.node(dst.node).description << ": " << walked.size()
                      << " switch hops, shortest " << hops[a][b];
    }
  EXPECT_GT(checked, 0u);
  EXPECT_EQ(longer, 0u) << "of " << checked << " pairs";
}

TEST_P(FurnishedFatTree, SpreadsComputeLidsEvenlyOverEachSwitchsUpPorts) {
  if (!GetParam().full) GTEST_SKIP() << "not a complete tree";
  ASSERT_TRUE(shape_->completeAndRegular);
  const auto level = levelsOf(fabric_);
  for (const NodeId sw : fabric_.switches()) {
    const auto ups = upPorts(fabric_, sw, level);
    if (ups.empty()) continue;
    std::map<std::uint8_t, int> count;
    for (const std::uint8_t p : ups) count[p] = 0;
    for (const PortRef ca : shape_->caOrder) {
      const auto out = result_.lfts[sw].at(fabric_.port(ca).lid);
      if (count.contains(out)) ++count[out];
    }
    const auto [lo, hi] = std::ranges::minmax(count | std::views::values);
    EXPECT_LE(hi - lo, 1) << fabric_.node(sw).description;
  }
}

TEST_P(FurnishedFatTree, RoutesShiftPermutationsWithoutContentionPerRail) {
  if (!GetParam().full) GTEST_SKIP() << "not a complete tree";
  if (GetParam().spec.rails < 2) {
    testing::expectShiftPermutationsFree(fabric_, result_, shape_->caOrder, "all compute CAs");
    return;
  }
  // A rail's CAs in the order operators number its servers: by server
  // name, digits by value (h2 before h10), whatever leaf port each uses.
  std::map<int, std::vector<PortRef>> rails;
  for (const PortRef ca : shape_->caOrder) rails[railOf(fabric_, ca)].push_back(ca);
  for (auto& [rail, cas] : rails)
    std::ranges::sort(cas, [&](PortRef a, PortRef b) {
      return naturalKey(fabric_.node(a.node).description) <
             naturalKey(fabric_.node(b.node).description);
    });
  ASSERT_EQ(rails.size(), std::size_t(GetParam().spec.rails));
  for (const auto& [rail, order] : rails)
    testing::expectShiftPermutationsFree(fabric_, result_, order, "rail " + std::to_string(rail));
}

TEST_P(FurnishedFatTree, KeepsTheBusiestComputeLinkWithinOnePointSixOfTheMean) {
  const auto loads = computeLoads();
  std::size_t links = 0;
  for (const NodeId sw : fabric_.switches())
    for (const Port& p : fabric_.node(sw).ports)
      links += p.remote && fabric_.node(p.remote->node).isSwitch();
  std::uint64_t total = 0, max = 0;
  Hop busiest{};
  for (const auto& [hop, n] : loads) {
    total += n;
    if (n > max) busiest = hop;
    max = std::max(max, n);
  }
  const double mean = double(total) / double(links);
  EXPECT_LE(double(max), std::max(1.6 * mean, 1.05 * leafFloor(fabric_)) + valleyFloor())
      << "max/mean " << double(max) / mean << " on " << fabric_.node(busiest.sw).description << "["
      << int(busiest.port) << "]";
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, FurnishedFatTree,
    ::testing::Values(
        FurnitureCase{"AggregationNodes2L", {.levels = 2, .radix = 8, .aggregationNodes = true}},
        FurnitureCase{"AggregationNodes3L", {.levels = 3, .radix = 8, .aggregationNodes = true}},
        FurnitureCase{"IoOnSpines2L", {.levels = 2, .radix = 8, .ioHosts = {{1, 4}}}},
        FurnitureCase{"IoOnCores3L", {.levels = 3, .radix = 8, .ioHosts = {{2, 4}}}},
        FurnitureCase{"IoOnAggregation3L", {.levels = 3, .radix = 8, .ioHosts = {{1, 8}}}},
        FurnitureCase{"Rails2L", {.levels = 2, .radix = 8, .rails = 4}},
        FurnitureCase{"Rails3L", {.levels = 3, .radix = 8, .rails = 4}},
        FurnitureCase{
            "RailsAggregationNodesIoOnCores",
            {.levels = 3, .radix = 8, .aggregationNodes = true, .ioHosts = {{2, 4}}, .rails = 4}},
        FurnitureCase{"RailsAggregationNodesIoRadix12",
                      {.levels = 3,
                       .radix = 12,
                       .aggregationNodes = true,
                       .ioHosts = {{2, 6}, {1, 3}},
                       .rails = 6}},
        FurnitureCase{"DirectorPod", {.levels = 3, .radix = 8, .directorPods = 1}, {}, false},
        FurnitureCase{"DirectorPods2", {.levels = 3, .radix = 8, .directorPods = 2}, {}, false},
        FurnitureCase{"DirectorPods2Rails",
                      {.levels = 3, .radix = 8, .directorPods = 2, .rails = 4},
                      {},
                      false},
        FurnitureCase{"DirectorPodsEverything",
                      {.levels = 3,
                       .radix = 8,
                       .aggregationNodes = true,
                       .ioHosts = {{2, 4}},
                       .directorPods = 2,
                       .rails = 4},
                      {},
                      false},
        FurnitureCase{"AggregationNodesCut6",
                      {.levels = 3, .radix = 8, .aggregationNodes = true},
                      {6, 1},
                      false},
        FurnitureCase{
            "IoOnCoresCut8", {.levels = 3, .radix = 12, .ioHosts = {{2, 6}}}, {8, 2}, false},
        FurnitureCase{
            "RailsEverythingCut8",
            {.levels = 3, .radix = 12, .aggregationNodes = true, .ioHosts = {{2, 6}}, .rails = 6},
            {8, 1},
            false},
        FurnitureCase{
            "DirectorPodCut4", {.levels = 3, .radix = 8, .directorPods = 1}, {4, 3}, false}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace ibsm
