// MasterSweep with a partition planner, against the in-memory fake fabric:
// the planner's tables are what the ports hold after a sweep; a planner
// that refuses the fabric leaves every PKey table alone (no half plan); new
// settings change only the blocks whose tables changed; and a reroute after
// a lost cable keeps the partitions without sending a PKey SMP. The planner
// here is a hand-made function: what it decides is partition/'s business
// (tests/partition), how the sweep uses it is this file's.
#include <gtest/gtest.h>
#include <ibsm/Mad.h>
#include <spdlog/sinks/ostream_sink.h>

#include <filesystem>
#include <sstream>

#include "sm/manager/MasterSweep.h"
#include "sm/manager/SaFeed.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::manager {
namespace {

using ibsm::testing::FakeFabricTransport;

constexpr std::uint16_t kTenant = 0x8a0a;  // full member of 0x0a0a

// Every CA port in 0x7fff (the SM's port full); the CAs `tenants` picks
// (by node GUID: the planner sees the discovered fabric, numbered in
// discovery order) also full members of 0x0a0a.
PartitionPlanner planner(std::function<bool(Guid)> tenants) {
  return [tenants](const Fabric& fabric, Guid smPort) -> Result<partition::PartitionPlan> {
    partition::PartitionPlan plan;
    for (const NodeId ca : fabric.endNodes()) {
      const PortRef port{ca, 1};
      std::vector<std::uint16_t> keys{
          static_cast<std::uint16_t>(fabric.port(port).guid == smPort ? 0xffff : 0x7fff)};
      if (tenants(fabric.node(ca).guid)) keys.push_back(kTenant);
      plan.tables.ports.push_back({.port = port, .pkeys = keys});
    }
    return plan;
  };
}

class MasterSweepPartitions : public ::testing::Test {
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
           ("ibsm-partsweep-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    store_.emplace(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  MasterSweep& sweepWith(PartitionPlanner p) {
    SweepSettings settings;
    settings.partitions = std::move(p);
    sweep_.emplace(*engine_, *store_, settings, nullptr);
    return *sweep_;
  }
  std::size_t pkeySmps(std::size_t from, std::optional<Method> method = std::nullopt) const {
    std::size_t n = 0;
    const auto& sent = wire_->sent();
    for (std::size_t i = from; i < sent.size(); ++i)
      n += sent[i].smp.header.attributeId == AttributeId::PKeyTable &&
           (!method || sent[i].smp.header.method == *method);
    return n;
  }
  // The non-empty entries of a port's table, in order.
  std::vector<std::uint16_t> held(PortRef port) const {
    std::vector<std::uint16_t> keys;
    for (const std::uint16_t k : wire_->pkeys(port))
      if (k != 0) keys.push_back(k);
    return keys;
  }
  std::vector<NodeId> cas() const { return wire_->fabric().endNodes(); }
  Guid guid(NodeId node) const { return wire_->fabric().node(node).guid; }

  PortRef smPort_;
  std::optional<FakeFabricTransport> wire_;
  std::optional<MadEngine> engine_;
  std::filesystem::path dir_;
  std::optional<StateStore> store_;
  std::optional<MasterSweep> sweep_;
};

TEST_F(MasterSweepPartitions, PortsHoldThePlannersTablesAfterASweep) {
  const NodeId tenant = cas()[3];
  auto& sweep = sweepWith(planner([g = guid(tenant)](Guid ca) { return ca == g; }));
  auto result = sweep.run();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->up);
  EXPECT_EQ(held(smPort_), (std::vector<std::uint16_t>{0xffff}));
  EXPECT_EQ(held({tenant, 1}), (std::vector<std::uint16_t>{0x7fff, kTenant}));
  EXPECT_EQ(held({cas()[4], 1}), (std::vector<std::uint16_t>{0x7fff}));
  // One Set per CA port whose fresh table (0xffff) differs: all but the SM's.
  EXPECT_EQ(pkeySmps(0, Method::Set), cas().size() - 1);
}

TEST_F(MasterSweepPartitions, APartitionsSlReachesThePlanAndTheSasSnapshot) {
  const NodeId tenant = cas()[3];
  auto tables = planner([g = guid(tenant)](Guid ca) { return ca == g; });
  auto& sweep = sweepWith([tables](const Fabric& f, Guid sm) -> Result<partition::PartitionPlan> {
    auto plan = tables(f, sm);
    partition::PlannedPartition withSl;
    withSl.name = "tenant";
    withSl.pkey = kTenant & 0x7fff;
    withSl.sl = 4;
    plan->partitions.push_back(withSl);
    partition::PlannedPartition withoutSl;
    withoutSl.name = "Default";
    withoutSl.pkey = 0x7fff;
    plan->partitions.push_back(withoutSl);
    return plan;
  });
  auto result = sweep.run();
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_TRUE(result->plan);
  EXPECT_EQ(result->plan->partitionSl, (std::map<std::uint16_t, std::uint8_t>{{0x0a0a, 4}}));
  const auto snapshot = saSnapshot(*result, sweep.held(), SmInfo{}, sa::SaSettings{});
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(snapshot->slOfPKey(kTenant), 4);
  EXPECT_FALSE(snapshot->slOfPKey(0xffff));
}

TEST_F(MasterSweepPartitions, APlannerThatRefusesLeavesEveryTableAlone) {
  auto& sweep = sweepWith([](const Fabric&, Guid) -> Result<partition::PartitionPlan> {
    return fail("partitions.conf:3: port \"h1\"[1] needs 33 PKeys, PartitionCap is 32");
  });
  auto result = sweep.run();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->up) << "the subnet comes up; only its PKeys wait for a plan";
  EXPECT_EQ(pkeySmps(0), 0u);
  EXPECT_EQ(held({cas()[3], 1}), (std::vector<std::uint16_t>{0xffff}));
}

TEST_F(MasterSweepPartitions, NewSettingsWriteOnlyTheChangedBlocks) {
  const NodeId a = cas()[3];
  const NodeId b = cas()[40];
  auto& sweep = sweepWith(planner([g = guid(a)](Guid ca) { return ca == g; }));
  ASSERT_TRUE(sweep.run());
  const std::size_t mark = wire_->sent().size();

  // SIGHUP: the tenant moves from a to b.
  SweepSettings moved;
  moved.partitions = planner([g = guid(b)](Guid ca) { return ca == g; });
  sweep.setSettings(moved);
  auto again = sweep.run();
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(pkeySmps(mark, Method::Set), 2u);
  EXPECT_EQ(pkeySmps(mark, Method::Get), 0u) << "the tables are known from the first sweep";
  EXPECT_EQ(held({a, 1}), (std::vector<std::uint16_t>{0x7fff}));
  EXPECT_EQ(held({b, 1}), (std::vector<std::uint16_t>{0x7fff, kTenant}));
}

TEST_F(MasterSweepPartitions, AQuietSecondSweepSendsNoPKeySmp) {
  auto& sweep = sweepWith(planner([](Guid) { return true; }));
  ASSERT_TRUE(sweep.run());
  const std::size_t mark = wire_->sent().size();
  auto again = sweep.run();
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(pkeySmps(mark), 0u);
}

TEST_F(MasterSweepPartitions, APlannerThatRefusesLaterKeepsTheLastTables) {
  const NodeId tenant = cas()[5];
  auto& sweep = sweepWith(planner([g = guid(tenant)](Guid ca) { return ca == g; }));
  ASSERT_TRUE(sweep.run());
  const std::size_t mark = wire_->sent().size();
  SweepSettings broken;
  broken.partitions = [](const Fabric&, Guid) -> Result<partition::PartitionPlan> {
    return fail("beyond PartitionCap");
  };
  sweep.setSettings(broken);
  ASSERT_TRUE(sweep.run());
  EXPECT_EQ(pkeySmps(mark, Method::Set), 0u);
  EXPECT_EQ(held({tenant, 1}), (std::vector<std::uint16_t>{0x7fff, kTenant}));
}

// CA ports in 0x7fff and the switch ports facing them enforcing it.
partition::PartitionPlan enforcingPlan(const Fabric& fabric) {
  partition::PartitionPlan plan;
  for (const NodeId ca : fabric.endNodes()) {
    const PortRef port{ca, 1};
    plan.tables.ports.push_back({.port = port, .pkeys = {0xffff}});
    if (const auto& sw = fabric.port(port).remote)
      plan.tables.ports.push_back({.port = *sw, .pkeys = {0xffff}, .enforce = true});
  }
  return plan;
}

// What the sweep remembers as held (the base of the next reroute) must be
// what the ports hold: enforcement on where the switch took it, off where
// it acknowledged the Set but kept its bits (ibsim). Otherwise every
// reroute would send those PortInfo Sets again.
TEST_F(MasterSweepPartitions, TheSettledSubnetHoldsTheEnforcementThePortsTook) {
  for (const bool ignored : {false, true}) {
    SCOPED_TRACE(ignored ? "switches keep their bits" : "switches take the Set");
    SetUp();
    for (const NodeId sw : wire_->fabric().switches())
      wire_->fabric().node(sw).switchData->enforcesPartitions = true;
    wire_->ignoreEnforcementSets(ignored);
    auto& sweep = sweepWith(
        [](const Fabric& f, Guid) -> Result<partition::PartitionPlan> { return enforcingPlan(f); });
    auto result = sweep.run();
    ASSERT_TRUE(result) << result.error().message;
    ASSERT_TRUE(sweep.held().hasObservation());
    const discovery::DiscoveredSubnet& settled = sweep.held().observed();
    std::size_t enforcing = 0;
    std::size_t facingCas = 0;
    for (const NodeId ca : settled.fabric.endNodes()) {
      const auto sw = settled.fabric.port({ca, 1}).remote;
      if (!sw) continue;
      ++facingCas;
      const PortInfo& held = settled.portInfo.at(*sw);
      enforcing += held.partitionEnforcementInbound && held.partitionEnforcementOutbound;
    }
    ASSERT_GT(facingCas, 0u);
    EXPECT_EQ(enforcing, ignored ? 0u : facingCas);
    TearDown();
  }
}

// ibsim keeps every switch port's enforcement bits: one line for the
// sweep (how many, a few named), not one per host-facing port; the count is
// the sweep's (ibsm status: _enforcement_kept).
TEST_F(MasterSweepPartitions, PortsThatKeepTheirEnforcementBitsAreSummedUpInOneLine) {
  for (const NodeId sw : wire_->fabric().switches())
    wire_->fabric().node(sw).switchData->enforcesPartitions = true;
  wire_->ignoreEnforcementSets(true);
  std::ostringstream logText;
  auto logger = std::make_shared<spdlog::logger>(
      "quirks", std::make_shared<spdlog::sinks::ostream_sink_st>(logText));
  SweepSettings settings;
  settings.partitions = [](const Fabric& f, Guid) -> Result<partition::PartitionPlan> {
    return enforcingPlan(f);
  };
  MasterSweep sweep(*engine_, *store_, settings, logger);
  auto result = sweep.run();
  ASSERT_TRUE(result) << result.error().message;
  std::size_t facingCas = 0;
  for (const NodeId ca : wire_->fabric().endNodes())
    facingCas += wire_->fabric().port({ca, 1}).connected();
  ASSERT_GT(facingCas, 3U);
  EXPECT_EQ(result->program.quirksLearned, facingCas);
  const std::string log = logText.str();
  std::size_t lines = 0;
  for (auto at = log.find("PROG-0307 "); at != std::string::npos;
       at = log.find("PROG-0307 ", at + 1))
    ++lines;
  EXPECT_EQ(lines, 1U) << log;
  EXPECT_NE(log.find(fmt::format("PROG-0307 {} switch ports kept", facingCas)), std::string::npos)
      << log;

  // Not asked again, so not said again.
  logText.str("");
  auto again = sweep.run();
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->program.quirksLearned, 0U);
  EXPECT_EQ(logText.str().find("PROG-0307"), std::string::npos);
}

}  // namespace
}  // namespace ibsm::sm::manager
