// The QoS policy in the live SM's plan: every sweep resolves it on the
// swept fabric beside the partition plan (MasterSweep::planPKeys), so
// `partition:` selectors name the partition's full members and SELF the
// SM's own port; without a policy the plan carries none, as before.
#include <gtest/gtest.h>

#include <filesystem>

#include "sm/manager/MasterSweep.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using ibsm::testing::FakeFabricTransport;

constexpr std::string_view kPolicy = R"(port-groups
  port-group
    name: tenants
    partition: tenant
  end-port-group
  port-group
    name: sm
    node-type: SELF
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: DEFAULT
    sl: 0
  end-qos-level
end-qos-levels
)";

class MasterSweepQos : public ::testing::Test {
 protected:
  void SetUp() override {
    Fabric f = ibsm::testing::sampleFabric("fat-tree-3level-k8.net");
    smPort_ = PortRef{f.endNodes().front(), 1};
    wire_.emplace(ibsm::testing::unprogrammed(std::move(f)), smPort_);
    wire_->fabric().port(smPort_).capabilityMask |= capability::kIsSm;
    MadEngineOptions options;
    options.clock = wire_->clock();
    engine_.emplace(*wire_, options);
    dir_ = std::filesystem::temp_directory_path() /
           ("ibsm-qossweep-" + std::to_string(::getpid()) +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    store_.emplace(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The second CA a full member of "tenant", a third one a limited member.
  static PartitionPlanner tenantPlanner() {
    return [](const Fabric& fabric, Guid) -> Result<partition::PartitionPlan> {
      partition::PartitionPlan plan;
      const auto cas = fabric.endNodes();
      partition::PlannedPartition tenant;
      tenant.name = "tenant";
      tenant.pkey = 0x0a0a;
      tenant.members.push_back(
          {PortRef{cas[1], 1}, fabric.port({cas[1], 1}).guid, partition::Membership::Full});
      tenant.members.push_back(
          {PortRef{cas[2], 1}, fabric.port({cas[2], 1}).guid, partition::Membership::Limited});
      plan.partitions.push_back(tenant);
      return plan;
    };
  }

  Result<SweepResult> sweep(PartitionPlanner partitions, bool withPolicy) {
    SweepSettings settings;
    settings.partitions = std::move(partitions);
    if (withPolicy) {
      auto policy = qos::parseQosPolicy(kPolicy, "qos-policy.conf");
      EXPECT_TRUE(policy) << policy.error().message;
      settings.qosPolicy = std::make_shared<const qos::QosPolicy>(std::move(*policy));
    }
    sweep_.emplace(*engine_, *store_, settings, nullptr);
    return sweep_->run();
  }
  Guid portGuid(std::size_t ca) const {
    return wire_->fabric().port({wire_->fabric().endNodes()[ca], 1}).guid;
  }

  PortRef smPort_;
  std::optional<FakeFabricTransport> wire_;
  std::optional<MadEngine> engine_;
  std::filesystem::path dir_;
  std::optional<StateStore> store_;
  std::optional<MasterSweep> sweep_;
};

TEST_F(MasterSweepQos, ThePlanCarriesThePolicyResolvedOnTheSweptFabric) {
  auto result = sweep(tenantPlanner(), true);
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_TRUE(result->plan);
  const auto& qos = result->plan->qos;
  ASSERT_NE(qos, nullptr);
  EXPECT_EQ(qos->members.at("tenants"), std::set<Guid>{portGuid(1)});  // full members only
  EXPECT_EQ(qos->members.at("sm"), std::set<Guid>{wire_->fabric().port(smPort_).guid});
  EXPECT_EQ(qos::matchQos(*qos, {.source = portGuid(1), .destination = portGuid(2)})->name,
            "DEFAULT");
}

TEST_F(MasterSweepQos, WithoutPartitionsManagedPartitionSelectorsNameNoPort) {
  auto result = sweep(nullptr, true);
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_NE(result->plan->qos, nullptr);
  EXPECT_TRUE(result->plan->qos->members.at("tenants").empty());
  EXPECT_EQ(result->plan->qos->members.at("sm").size(), 1u);
}

TEST_F(MasterSweepQos, WithoutAPolicyThePlanHasNone) {
  auto result = sweep(tenantPlanner(), false);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->plan->qos, nullptr);
}

}  // namespace
}  // namespace ibsm::sm::manager
