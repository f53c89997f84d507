// Where planMulticast() roots its trees: the switches of least eccentricity
// toward the switches with CAs (the farthest such switch is nearest), taken
// in turn by consecutive MLIDs. Judged against a BFS from every switch done
// here, on shapes whose centre is not obvious and on graphs of more than
// 256 switches (the planner measures 256 at a time).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Multicast.h>

#include <set>

#include "tests/routing/engines/ShapeFabrics.h"
#include "tests/routing/multicast/McTestGroups.h"

namespace ibsm {
namespace {

using testing::everyCa;

// Hops from `from` to every switch (-1: unreachable).
std::map<NodeId, int> hopsFrom(const Fabric& f, NodeId from) {
  std::map<NodeId, int> hops{{from, 0}};
  std::vector<NodeId> queue{from};
  for (std::size_t i = 0; i < queue.size(); ++i)
    for (const Port& p : f.node(queue[i]).ports)
      if (p.remote && f.node(p.remote->node).isSwitch() && !hops.contains(p.remote->node)) {
        hops[p.remote->node] = hops[queue[i]] + 1;
        queue.push_back(p.remote->node);
      }
  return hops;
}

// The switches whose farthest CA-bearing switch is nearest (one component).
std::set<NodeId> leastEccentric(const Fabric& f) {
  std::set<NodeId> withCas;
  for (const NodeId id : f.endNodes())
    for (const Port& p : f.node(id).ports)
      if (p.remote) withCas.insert(p.remote->node);
  std::map<int, std::set<NodeId>> byEccentricity;
  for (NodeId s = 0; s < f.size(); ++s) {
    if (!f.node(s).isSwitch()) continue;
    int ecc = 0;
    for (const auto& [t, h] : hopsFrom(f, s))
      if (withCas.contains(t)) ecc = std::max(ecc, h);
    byEccentricity[ecc].insert(s);
  }
  return byEccentricity.begin()->second;
}

class RootsOf : public ::testing::TestWithParam<int> {};

TEST_P(RootsOf, ConsecutiveTreesTakeTurnsOverExactlyTheLeastEccentricSwitches) {
  const auto seed = static_cast<unsigned>(GetParam());
  const std::vector<Fabric> shapes{testing::randomGraph(40, 12, seed),
                                   testing::randomGraph(300, 60, seed),
                                   testing::grid(5, 3 + GetParam() % 3, false, 1)};
  for (const Fabric& f : shapes) {
    const auto expected = leastEccentric(f);
    // One group more than there are such switches: the last comes back to
    // the first group's root.
    std::vector<McGroupRoute> groups;
    for (std::size_t i = 0; i <= expected.size(); ++i)
      groups.push_back(everyCa(f, static_cast<std::uint16_t>(0xC000 + i)));
    const auto plan = planMulticast(f, groups);
    ASSERT_TRUE(plan) << plan.error().message;
    std::set<NodeId> roots;
    for (std::size_t i = 0; i < expected.size(); ++i) roots.insert(*plan->trees[i].root);
    EXPECT_EQ(roots, expected);
    EXPECT_EQ(plan->trees.back().root, plan->trees.front().root);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RootsOf, ::testing::Range(1, 5));

}  // namespace
}  // namespace ibsm
