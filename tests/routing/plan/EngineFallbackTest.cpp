// The rule for tables with a credit loop (routing/plan/CreditLoopJudge.h),
// on planSubnet, which the live SM and the dry run both call: while another
// engine follows in the list, such tables count as a refusal and the next
// engine routes; the last engine's tables are taken as they are, and so are
// the first looped tables when every engine after them refuses the fabric.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <ibsm/Report.h>
#include <ibsm/StableRoutes.h>
#include <ibsm/SubnetPlan.h>

#include <string>
#include <vector>

#include "tests/support/FabricFixtures.h"

namespace ibsm {
namespace {

using testing::generatedFabric;
using testing::ringFabric;

SubnetPlan plan(const Fabric& fabric, std::vector<std::string> engines) {
  PlanInputs inputs;
  inputs.engines = std::move(engines);
  auto p = planSubnet(fabric, inputs, defaultRegistry());
  if (!p) throw std::runtime_error(p.error().message);
  return std::move(*p);
}

bool loopFree(const SubnetPlan& p) {
  return analyseRoutes(p.fabric, p.routing).creditLoops.acyclic;
}

// The radix-8 three-level tree of the issue: minhop's tables have a credit
// loop there, updn's have none.
const Fabric& fatTree() {
  static const Fabric f = generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
  return f;
}

TEST(EngineFallback, MinhopAloneOnTheFatTreeHasACreditLoop) {
  const SubnetPlan p = plan(fatTree(), {"minhop"});
  EXPECT_EQ(p.routing.engine, "minhop");
  EXPECT_FALSE(loopFree(p)) << "the premise of the cases below";
  EXPECT_TRUE(p.routing.fallbacks.empty());
  EXPECT_FALSE(p.routing.objection) << "the last engine's tables are taken unjudged";
}

TEST(EngineFallback, LoopedTablesCountAsARefusalWhileAnotherEngineFollows) {
  const SubnetPlan p = plan(fatTree(), {"minhop", "updn"});
  EXPECT_EQ(p.routing.engine, "updn");
  EXPECT_TRUE(loopFree(p));
  ASSERT_EQ(p.routing.fallbacks.size(), 1u);
  EXPECT_TRUE(p.routing.fallbacks[0].starts_with("minhop: its tables have a credit loop (cycle: "))
      << p.routing.fallbacks[0];
  // The report carries the refusal as the dry run prints it.
  EXPECT_EQ(analyseRoutes(p.fabric, p.routing).fallbacks, p.routing.fallbacks);
}

TEST(EngineFallback, LoopFreeTablesOfTheFirstEngineAreTaken) {
  const SubnetPlan p = plan(fatTree(), {"updn", "minhop"});
  EXPECT_EQ(p.routing.engine, "updn");
  EXPECT_TRUE(p.routing.fallbacks.empty());
}

TEST(EngineFallback, LoopedTablesAreTakenWhenEveryLaterEngineRefusesTheFabric) {
  // A ring of five switches: minhop's shortest paths chase each other round
  // it; ftree refuses a ring (not a fat tree).
  const Fabric ring = ringFabric(5);
  const SubnetPlan p = plan(ring, {"minhop", "ftree"});
  EXPECT_EQ(p.routing.engine, "minhop");
  EXPECT_FALSE(loopFree(p));
  ASSERT_TRUE(p.routing.objection);
  EXPECT_TRUE(p.routing.objection->starts_with("its tables have a credit loop"))
      << *p.routing.objection;
  ASSERT_EQ(p.routing.fallbacks.size(), 1u) << "ftree's refusal, not minhop's own";
  EXPECT_TRUE(p.routing.fallbacks[0].starts_with("ftree: ")) << p.routing.fallbacks[0];
  // Every pair stays routed: connectivity first.
  EXPECT_EQ(analyseRoutes(p.fabric, p.routing).unreachablePairs(), 0u);
}

TEST(EngineFallback, RoutesUnderChangeFollowTheSameRule) {
  // The live SM's later sweeps route through routeUnderChange (capacity
  // back: fresh tables): the looped candidate is passed over there too.
  const SubnetPlan first = plan(fatTree(), {"minhop", "updn"});
  StableRoutesStats stats;
  auto again = routeUnderChange(first.fabric, defaultRegistry(), {"minhop", "updn"}, {},
                                first.routing.lfts, FabricChange::CapacityGained, stats);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->engine, "updn");
  EXPECT_TRUE(findCreditLoops(first.fabric, *again).acyclic);
}

TEST(EngineFallback, FindCreditLoopsSaysWhatTheFullReportSays) {
  for (const std::string engine : {"minhop", "updn"}) {
    const SubnetPlan p = plan(fatTree(), {engine});
    const CreditLoopReport alone = findCreditLoops(p.fabric, p.routing);
    const CreditLoopReport full = analyseRoutes(p.fabric, p.routing).creditLoops;
    EXPECT_EQ(alone.acyclic, full.acyclic) << engine;
    EXPECT_EQ(alone.cycle, full.cycle) << engine;
    EXPECT_EQ(alone.dependencies, full.dependencies) << engine;
  }
}

}  // namespace
}  // namespace ibsm
