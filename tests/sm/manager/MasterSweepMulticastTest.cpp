// MasterSweep with a source of groups (GroupSource), against the in-memory
// fake fabric: a multicast pass between sweeps shares the last sweep's plan
// -- fabric, LIDs, LFTs are not copied per pass -- and keeps only its new
// trees; every plan and pass notes the generation and the groups it routed
// (what the daemon's multicast service reads), without the source's help.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include <filesystem>

#include "sm/manager/MasterSweep.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

// Groups a test edits by hand; every edit moves the generation.
class HandGroups final : public GroupSource {
 public:
  std::vector<McGroupRoute> routes() const override { return groups_; }
  std::uint64_t generation() const override { return generation_; }
  void set(std::vector<McGroupRoute> groups) {
    groups_ = std::move(groups);
    ++generation_;
  }

 private:
  std::vector<McGroupRoute> groups_;
  std::uint64_t generation_{0};
};

class MasterSweepMulticast : public ::testing::Test {
 protected:
  void SetUp() override {
    Fabric f = ibsm::testing::generatedFabric(FatTreeSpec{.levels = 2, .radix = 8});
    cas_ = f.endNodes();
    smPort_ = PortRef{cas_.front(), 1};
    wire_.emplace(ibsm::testing::unprogrammed(std::move(f)), smPort_);
    wire_->fabric().port(smPort_).capabilityMask |= capability::kIsSm;
    for (const NodeId sw : wire_->fabric().switches())
      wire_->fabric().node(sw).switchData->multicastFdbCap = 1024;
    MadEngineOptions options;
    options.clock = wire_->clock();
    engine_.emplace(*wire_, options);
    dir_ = std::filesystem::temp_directory_path() /
           ("ibsm-mcsweep-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    store_.emplace(dir_);
    SweepSettings settings;
    settings.plan.engines = {"ftree"};
    sweep_.emplace(
        *engine_, *store_, settings,
        std::make_shared<spdlog::logger>("mc", std::make_shared<spdlog::sinks::null_sink_st>()));
    sweep_->setMulticast(groups_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // One group of the first `n` CA ports after the SM's.
  McGroupRoute groupOf(std::size_t n) const {
    McGroupRoute g{.mgid = ipoibBroadcastMgid(0xffff), .mlid = kFirstMlid, .members = {}};
    for (std::size_t i = 1; i <= n; ++i)
      g.members.push_back({.portGuid = wire_->fabric().port({cas_[i], 1}).guid, .receives = true});
    return g;
  }

  std::vector<NodeId> cas_;
  PortRef smPort_;
  std::optional<ibsm::testing::FakeFabricTransport> wire_;
  std::optional<MadEngine> engine_;
  std::filesystem::path dir_;
  std::optional<StateStore> store_;
  std::optional<MasterSweep> sweep_;
  std::shared_ptr<HandGroups> groups_ = std::make_shared<HandGroups>();
};

TEST_F(MasterSweepMulticast, APassSharesTheSweepsPlanAndKeepsOnlyItsTrees) {
  groups_->set({groupOf(2)});
  auto swept = sweep_->run();
  ASSERT_TRUE(swept && swept->up);
  const SubnetPlan* plan = sweep_->lastPlan().get();
  ASSERT_TRUE(sweep_->multicastPlan());
  EXPECT_EQ(sweep_->multicastPlan().get(), &*plan->multicast) << "the sweep's trees, shared";

  groups_->set({groupOf(4)});
  auto pass = sweep_->programMulticast();
  ASSERT_TRUE(pass && pass->up);
  EXPECT_GT(pass->program.table(program::TableKind::Mft).written, 0U);
  EXPECT_EQ(sweep_->lastPlan().get(), plan) << "the plan is not copied by a pass";
  EXPECT_EQ(pass->plan.get(), plan);
  ASSERT_TRUE(sweep_->multicastPlan());
  EXPECT_NE(sweep_->multicastPlan().get(), &*plan->multicast) << "the pass's own trees";
  EXPECT_EQ(sweep_->multicastPlan()->trees.at(0).receivers, 4U) << "the two new members too";
  EXPECT_EQ(plan->multicast->trees.at(0).receivers, 2U) << "the sweep's plan as it planned";
}

TEST_F(MasterSweepMulticast, EveryPlanAndPassNotesTheGenerationAndGroupsItRouted) {
  groups_->set({groupOf(2)});
  ASSERT_TRUE(sweep_->run());
  EXPECT_EQ(sweep_->multicastPlanned().plans, 1U);
  EXPECT_EQ(sweep_->multicastPlanned().generation, groups_->generation());
  EXPECT_EQ(sweep_->multicastPlanned().groups, 1U);
  EXPECT_EQ(sweep_->multicastPlanned().members, 2U);

  groups_->set({groupOf(3)});
  EXPECT_NE(sweep_->multicastPlanned().generation, groups_->generation()) << "a pass is due";
  ASSERT_TRUE(sweep_->programMulticast());
  EXPECT_EQ(sweep_->multicastPlanned().plans, 2U);
  EXPECT_EQ(sweep_->multicastPlanned().generation, groups_->generation());
  EXPECT_EQ(sweep_->multicastPlanned().members, 3U);
}

}  // namespace
}  // namespace ibsm::sm::manager
