// QoS classes on the dragonfly's VL layers in the live SM's plan: with
// qos.enabled each class gets its own block of the engine's layers, and
// those tables become the routing's SL2VL, the ones programmed and judged
// for credit loops; classes that do not fit the ports' VLs are refused for
// the sweep: no QoS table is planned (the ports keep theirs) while the
// engine's own layers still are, and the subnet comes up.
#include <gtest/gtest.h>

#include <filesystem>

#include "sm/manager/MasterSweep.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using ibsm::testing::FakeFabricTransport;

class MasterSweepQosVls : public ::testing::Test {
 protected:
  void SetUp() override {
    Fabric f = ibsm::testing::sampleFabric("dragonfly-a4-p2-h2.net");
    const PortRef smPort{f.endNodes().front(), 1};
    wire_.emplace(ibsm::testing::unprogrammed(std::move(f)), smPort);
    wire_->fabric().port(smPort).capabilityMask |= capability::kIsSm;
    MadEngineOptions options;
    options.clock = wire_->clock();
    engine_.emplace(*wire_, options);
    dir_ = std::filesystem::temp_directory_path() /
           ("ibsm-qosvls-" + std::to_string(::getpid()) +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    store_.emplace(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Result<SweepResult> sweep(std::string_view sl2vl) {
    SweepSettings settings;
    settings.plan.engines = {"dragonfly"};
    settings.plan.routing.maxVls = 8;
    settings.qos.enabled = true;
    settings.qos.all.sl2vl = *qos::parseSl2VlOption(sl2vl);
    sweep_.emplace(*engine_, *store_, settings, nullptr);
    return sweep_->run();
  }

  std::optional<FakeFabricTransport> wire_;
  std::optional<MadEngine> engine_;
  std::filesystem::path dir_;
  std::optional<StateStore> store_;
  std::optional<MasterSweep> sweep_;
};

TEST_F(MasterSweepQosVls, TwoClassesMultiplyTheEnginesLayersInTheTablesProgrammed) {
  auto result = sweep("0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1");
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_TRUE(result->plan);
  const SubnetPlan& plan = *result->plan;
  EXPECT_EQ(plan.routing.engine, "dragonfly");
  ASSERT_TRUE(plan.qosTables);
  ASSERT_TRUE(plan.qosTables->layers);
  EXPECT_EQ(plan.qosTables->layers->vlsNeeded, 4);
  EXPECT_EQ(plan.routing.vlsUsed, 4);
  for (const Sl2VlEntry& e : plan.routing.sl2vl) {
    EXPECT_LE(e.vl[0], 1) << "SL 0 is in the first class: VLs 0-1";
    EXPECT_GE(e.vl[8], 2) << "SL 8 is in the second class: VLs 2-3";
  }
  EXPECT_TRUE(result->report.creditLoops.acyclic);
  EXPECT_EQ(result->report.creditLoops.sls, (std::vector<std::uint8_t>{0, 8}));
  EXPECT_TRUE(result->up);
}

TEST_F(MasterSweepQosVls, ClassesThatDoNotFitLeaveQosTablesUnplannedAndTheEnginesLayersInPlace) {
  // 5 classes x 2 layers: 10 VLs, the sample's ports run 8.
  auto result = sweep("0,0,0,1,1,1,2,2,2,3,3,3,4,4,4,4");
  ASSERT_TRUE(result) << result.error().message;
  const SubnetPlan& plan = *result->plan;
  EXPECT_FALSE(plan.qosTables);
  EXPECT_EQ(plan.routing.vlsUsed, 2);
  ASSERT_FALSE(plan.routing.sl2vl.empty());
  for (const Sl2VlEntry& e : plan.routing.sl2vl) EXPECT_LE(e.vl[8], 1);
  EXPECT_TRUE(result->report.creditLoops.acyclic);
  EXPECT_TRUE(result->up);
}

}  // namespace
}  // namespace ibsm::sm::manager
