// The SA's snapshot shares the plan it was made from: a sweep's plan is
// immutable (shared_ptr<const SubnetPlan>), so the snapshot answers from its
// fabric, LFTs and PKey tables where they are, and keeps the plan alive after
// the sweep that made it has let it go.
#include <gtest/gtest.h>

#include <memory>

#include "sm/sa/SaSubnet.h"
#include "tests/sm/sa/SaFixture.h"

namespace ibsm::sm::sa {
namespace {

std::shared_ptr<const SubnetPlan> sharedPlan() {
  SubnetPlan plan = testing::planOf(FatTreeSpec{.levels = 2, .radix = 4});
  PKeyTables tables;
  tables.ports.push_back({.port = {plan.fabric.endNodes().front(), 1}, .pkeys = {0xFFFF, 0x8001}});
  plan.pkeys = std::move(tables);
  return std::make_shared<const SubnetPlan>(std::move(plan));
}

TEST(SaSubnet, AnswersFromThePlansFabricLftsAndPKeysWithoutCopyingThem) {
  const auto plan = sharedPlan();
  const PortRef smPort{plan->fabric.endNodes().front(), 1};
  const auto subnet = SaSubnet::build({.plan = plan, .smPort = smPort}, {});

  EXPECT_EQ(&subnet->fabric(), &plan->fabric);
  std::size_t switches = 0;
  for (NodeId id = 0; id < plan->fabric.size(); ++id) {
    if (!plan->fabric.node(id).isSwitch()) continue;
    ++switches;
    EXPECT_EQ(subnet->lft(id), &plan->routing.lfts.at(id)) << "switch " << id;
  }
  EXPECT_GT(switches, 0U);
  EXPECT_EQ(subnet->pkeys(smPort).data(), plan->pkeys->ports.front().pkeys.data());
}

TEST(SaSubnet, KeepsThePlanAliveAfterTheSweepDroppedIt) {
  auto plan = sharedPlan();
  const PortRef smPort{plan->fabric.endNodes().front(), 1};
  const Guid smGuid = plan->fabric.port(smPort).guid;
  const auto subnet = SaSubnet::build({.plan = plan, .smPort = smPort}, {});
  const std::weak_ptr<const SubnetPlan> held = plan;
  plan.reset();  // the daemon's next sweep replaces its plan

  EXPECT_FALSE(held.expired());
  EXPECT_EQ(subnet->portOfGuid(smGuid), smPort);
  EXPECT_EQ(subnet->pkeys(smPort).size(), 2U);
}

}  // namespace
}  // namespace ibsm::sm::sa
