// ftree where compute leaves stand at uneven heights (director chassis whose
// line-card chips take hosts one level above the top-of-rack switches).
// Every check walks the LFTs; every bound comes from the fabric: the hosts of
// a leaf and the hosts they exchange routes with, over the leaf's up cables.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/FatTree.h>
#include <ibsm/Report.h>

#include <algorithm>
#include <cmath>
#include <map>
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
using testing::levelsOf;
using testing::upPorts;

struct Busiest {
  std::uint64_t tree{0};  // over the pairs whose leaves share a switch above them
  std::uint64_t all{0};   // over every compute pair
};

struct DirectorCase {
  std::string name;
  FatTreeSpec spec;
};
void PrintTo(const DirectorCase& c, std::ostream* os) {
  *os << c.name;
}

class DirectorPods : public ::testing::TestWithParam<DirectorCase> {
 protected:
  const Fabric fabric_ = generatedFabric(GetParam().spec);
  const Result<RoutingResult> auto_ = makeAutoEngine()->route(fabric_, {});
  const Result<FatTreeShape> shape_ = recogniseFatTree(fabric_);
  const std::map<NodeId, std::size_t> level_ = levelsOf(fabric_);
  std::map<NodeId, std::set<NodeId>> above_;  // a leaf and every switch above it
  std::map<NodeId, std::uint64_t> hosts_;     // compute CA ports per leaf

  void SetUp() override {
    ASSERT_TRUE(auto_) << auto_.error().message;
    ASSERT_TRUE(shape_) << shape_.error().message;
    ASSERT_TRUE(shape_->unevenLeaves);
    for (const PortRef ca : shape_->caOrder) ++hosts_[leafOf(ca)];
    for (const NodeId leaf : shape_->leaves) {
      std::vector<NodeId> todo{leaf};
      above_[leaf].insert(leaf);
      while (!todo.empty()) {
        const NodeId s = todo.back();
        todo.pop_back();
        for (const Port& p : fabric_.node(s).ports)
          if (p.remote && fabric_.node(p.remote->node).isSwitch() &&
              level_.at(p.remote->node) > level_.at(s) &&
              above_[leaf].insert(p.remote->node).second)
            todo.push_back(p.remote->node);
      }
    }
  }

  NodeId leafOf(PortRef ca) const { return fabric_.port(ca).remote->node; }
  bool share(NodeId a, NodeId b) const {
    return std::ranges::any_of(above_.at(a), [&](NodeId s) { return above_.at(b).contains(s); });
  }

  // Per leaf, its hosts times the hosts elsewhere it shares an ancestor
  // with, over its up cables: what its busiest up (and down) cable must carry.
  double treeFloor() const {
    double floor = 0;
    for (const auto& [leaf, h] : hosts_) {
      std::uint64_t partners = 0;
      for (const auto& [other, g] : hosts_) partners += other != leaf && share(leaf, other) ? g : 0;
      const auto ups = upPorts(fabric_, leaf, level_).size();
      floor = std::max(floor, double(h * partners) / double(ups));
    }
    return floor;
  }

  // The pairs whose leaves share no ancestor: on one VL they all turn in one
  // leaf, whose up cables they share.
  double valleyFloor() const {
    double flows = 0;
    std::size_t cables = 0;
    for (const auto& [a, h] : hosts_) {
      cables = std::max(cables, upPorts(fabric_, a, level_).size());
      for (const auto& [b, g] : hosts_) flows += a != b && !share(a, b) ? double(h * g) : 0;
    }
    return flows / double(cables);
  }

  Busiest busiest() const {
    std::map<Hop, std::uint64_t> tree, all;
    for (const PortRef dst : shape_->caOrder)
      for (const PortRef src : shape_->caOrder) {
        if (src == dst) continue;
        const bool shared = share(leafOf(src), leafOf(dst));
        for (const Hop& h : interSwitchHops(fabric_, *auto_, src, fabric_.port(dst).lid)) {
          ++all[h];
          tree[h] += shared;
        }
      }
    Busiest out;
    for (const auto& [hop, n] : tree) out.tree = std::max(out.tree, n);
    for (const auto& [hop, n] : all) out.all = std::max(out.all, n);
    return out;
  }
};

TEST_P(DirectorPods, DealsThePairsWithACommonAncestorAtTheLeafFloor) {
  const double floor = treeFloor();
  ASSERT_GT(floor, 0);
  EXPECT_LE(double(busiest().tree), std::ceil(floor));
}

TEST_P(DirectorPods, AddsOnlyThePairsWithoutOneOnTopOfItOnOneVl) {
  const auto report = analyseRoutes(fabric_, *auto_);
  EXPECT_TRUE(report.creditLoops.acyclic);
  EXPECT_EQ(report.creditLoops.vlsNeeded, 1);
  EXPECT_EQ(report.unreachablePairs(), 0u);
  EXPECT_LE(double(busiest().all), std::ceil(treeFloor()) + std::ceil(valleyFloor()));
}

TEST_P(DirectorPods, ReachesEveryCaByTheFewestSwitchHopsWhereAnAncestorIsShared) {
  std::size_t longer = 0, checked = 0;
  for (const PortRef dst : shape_->caOrder) {
    const auto hops = testing::switchHopsFrom(fabric_, leafOf(dst));
    for (const PortRef src : shape_->caOrder) {
      if (src == dst || !share(leafOf(src), leafOf(dst))) continue;
      ++checked;
      const auto walked = interSwitchHops(fabric_, *auto_, src, fabric_.port(dst).lid);
      longer += walked.size() != hops.at(leafOf(src));
    }
  }
  EXPECT_GT(checked, 0u);
  EXPECT_EQ(longer, 0u) << "of " << checked;
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, DirectorPods,
    ::testing::Values(DirectorCase{"Radix8Pods1", {.levels = 3, .radix = 8, .directorPods = 1}},
                      DirectorCase{"Radix8Pods2", {.levels = 3, .radix = 8, .directorPods = 2}},
                      DirectorCase{"Radix12Pods2", {.levels = 3, .radix = 12, .directorPods = 2}},
                      DirectorCase{"Radix8Pods2Rails",
                                   {.levels = 3, .radix = 8, .directorPods = 2, .rails = 4}},
                      DirectorCase{"Radix12Trunk2Pods2",
                                   {.levels = 3, .radix = 12, .trunk = 2, .directorPods = 2}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace ibsm
