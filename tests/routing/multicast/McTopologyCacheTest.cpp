// McTopologyCache: successive plans on the same switch graph reuse where
// the trees are rooted; a different switch graph (a cable lost) computes it
// again; with or without the cache, a plan is the same.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/Multicast.h>

#include "tests/routing/engines/ShapeFabrics.h"
#include "tests/routing/multicast/McTestGroups.h"

namespace ibsm {
namespace {

using testing::everyCa;
using testing::nodeNamed;

std::vector<McGroupRoute> threeGroups(const Fabric& f) {
  return {everyCa(f, 0xC000), everyCa(f, 0xC001), everyCa(f, 0xC002)};
}

std::vector<std::map<std::uint16_t, McPortMask>> entriesOf(const MulticastPlan& plan) {
  std::vector<std::map<std::uint16_t, McPortMask>> out;
  for (const SwitchMft& m : plan.mfts) out.push_back(m.entries);
  return out;
}

MulticastPlan planned(const Fabric& f, McTopologyCache* cache) {
  MulticastOptions options;
  options.cache = cache;
  auto plan = planMulticast(f, threeGroups(f), options);
  EXPECT_TRUE(plan) << plan.error().message;
  return plan ? std::move(*plan) : MulticastPlan{};
}

TEST(McTopologyCache, ThePlansOfOneSwitchGraphComputeTheRootsOnce) {
  const Fabric f = testing::twoLevelFatTree(4, 2, 2);
  McTopologyCache cache;
  const auto first = planned(f, &cache);
  const auto second = planned(f, &cache);
  EXPECT_EQ(cache.computed(), 1U);
  EXPECT_EQ(cache.reused(), 1U);
  EXPECT_EQ(entriesOf(second), entriesOf(first));
  EXPECT_EQ(entriesOf(first), entriesOf(planned(f, nullptr)));
}

TEST(McTopologyCache, ALostCableComputesThemAgainAndPlansAsWithoutCache) {
  Fabric f = testing::twoLevelFatTree(4, 2, 2);
  McTopologyCache cache;
  (void)planned(f, &cache);
  f.disconnect(PortRef{nodeNamed(f, "leaf0"), 1});  // leaf0's cable to spine0
  const auto after = planned(f, &cache);
  EXPECT_EQ(cache.computed(), 2U);
  EXPECT_EQ(cache.reused(), 0U);
  EXPECT_EQ(entriesOf(after), entriesOf(planned(f, nullptr)));
  EXPECT_THAT(checkMulticast(f, after.mfts, threeGroups(f)), ::testing::IsEmpty());
}

}  // namespace
}  // namespace ibsm
