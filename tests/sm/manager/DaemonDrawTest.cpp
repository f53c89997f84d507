// What the daemon answers to `ibsm draw`, from the values it keeps: the
// last sweep's fabric and report, and the health view.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ibsm/TopologyGenerator.h>

#include <memory>

#include "sm/manager/DaemonDraw.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(DaemonDraw, NothingToDrawBeforeASweepPlannedTheFabric) {
  EXPECT_EQ(drawLastSweep(std::nullopt, {}).rfind("error: no sweep", 0), 0u);
}

TEST(DaemonDraw, DrawsTheLastSweepsFabricWithItsLoadsAndTheConditionsItCanPlace) {
  SweepResult last;
  auto plan = std::make_shared<SubnetPlan>();
  plan->fabric = ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 4});
  const Fabric& f = plan->fabric;
  const NodeId leaf = f.switches().front();
  std::uint8_t up = 1;
  while (!f.node(leaf).ports[up].remote || !f.node(f.node(leaf).ports[up].remote->node).isSwitch())
    ++up;
  last.report.linkLoad.perLink = {{f.node(leaf).guid, up, 42}};
  last.plan = plan;
  last.switches = f.switches().size();
  health::HealthView health;
  health::HealthEntry downgraded;
  downgraded.condition = health::Condition::Downgraded;
  downgraded.port = {f.node(leaf).guid, up};
  downgraded.detail = "4x expected, 1x active";
  health.unhealthy.push_back(downgraded);
  // Seen by the health book on a switch the last sweep did not plan: left out.
  health::HealthEntry elsewhere;
  elsewhere.port = {Guid{0x42}, 1};
  health.unhealthy.push_back(elsewhere);
  const std::string svg = drawLastSweep(last, health);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u) << svg.substr(0, 200);
  EXPECT_THAT(svg, HasSubstr("class=\"link l7 unhealthy\""));
  EXPECT_THAT(svg, HasSubstr("downgraded"));
  EXPECT_THAT(svg, HasSubstr("4x expected, 1x active"));
  EXPECT_THAT(svg, Not(HasSubstr("0x0000000000000042")));
  EXPECT_THAT(svg, HasSubstr(fmt::format("data-name=\"{}\"", f.node(leaf).description)));
}

}  // namespace
}  // namespace ibsm::sm::manager
