// MasterSweep::lightSweep() against the in-memory fake fabric: a quiet
// subnet costs one SMP per switch; a pulled cable is routed around from the
// last discovery, writing exactly the LFT blocks whose contents change; a
// new link is left to a heavy sweep (a sweep a trap asked for:
// MasterTrapLightSweepTest.cpp).
#include <gtest/gtest.h>

#include "tests/sm/manager/LightSweepFixture.h"

namespace ibsm::sm::manager {
namespace {

using namespace light_test;

using ibsm::testing::FakeFabricTransport;

TEST_F(MasterLightSweep, NothingSweptYetCannotRunAndAsksForAHeavySweep) {
  auto light = sweep_->lightSweep();
  ASSERT_TRUE(light);
  EXPECT_FALSE(light->ok);
  EXPECT_TRUE(light->needsHeavy);
  EXPECT_EQ(light->mads, 0u);
}

TEST_F(MasterLightSweep, AQuietFabricCostsExactlyOneSwitchInfoGetPerSwitch) {
  auto heavy = sweep_->run();
  ASSERT_TRUE(heavy);
  ASSERT_TRUE(heavy->up);
  const std::size_t mark = sent().size();
  auto light = sweep_->lightSweep();
  ASSERT_TRUE(light);
  EXPECT_TRUE(light->ok);
  EXPECT_FALSE(light->changed);
  EXPECT_FALSE(light->needsHeavy);
  EXPECT_FALSE(light->reroute);
  const std::size_t switches = fabric().switches().size();
  EXPECT_EQ(light->mads, switches);
  EXPECT_EQ(sent().size() - mark, switches);
  EXPECT_EQ(countSent(sent(), mark, Method::Get, AttributeId::SwitchInfo), switches);
}

TEST_F(MasterLightSweep, ALostCableIsRoutedAroundWritingOnlyTheBlocksThatChange) {
  ASSERT_TRUE(sweep_->run());
  const auto [a, b] = spineCable();
  std::map<NodeId, std::vector<std::uint8_t>> before;
  for (const NodeId sw : fabric().switches()) before[sw] = wire_->fake().lft(sw);

  fabric().disconnect(a);
  wire_->flag(a.node);
  wire_->flag(b.node);
  const std::size_t mark = sent().size();
  const auto timeoutsBefore = engine_->counters().timeouts;
  auto light = sweep_->lightSweep();
  ASSERT_TRUE(light);
  EXPECT_TRUE(light->ok);
  EXPECT_TRUE(light->changed);
  EXPECT_FALSE(light->needsHeavy);
  // Switches behind the cable are asked by a route around it, not left to time out.
  EXPECT_EQ(engine_->counters().timeouts, timeoutsBefore);
  ASSERT_TRUE(light->reroute);
  EXPECT_EQ(light->reroute->unreachablePairs, 0u);
  EXPECT_GT(light->reroute->routedPairs, 0u);
  EXPECT_TRUE(light->reroute->up) << ::testing::PrintToString(light->reroute->reasons);
  ASSERT_EQ(light->changes.size(), 1u);
  EXPECT_NE(light->changes[0].find("cable lost"), std::string::npos);

  // Both switches had their PortStateChange cleared, and nothing was rediscovered.
  EXPECT_FALSE(wire_->flagged(a.node));
  EXPECT_FALSE(wire_->flagged(b.node));
  EXPECT_EQ(countSent(sent(), mark, Method::Get, AttributeId::NodeInfo), 0u);
  EXPECT_EQ(light->mads, sent().size() - mark);

  std::size_t differ = 0;
  for (const NodeId sw : fabric().switches()) {
    const auto& now = wire_->fake().lft(sw);
    differ += blocksThatDiffer(before[sw], now);
    // Nothing is forwarded into the dead ports any more.
    for (const PortRef dead : {a, b}) {
      if (dead.node == sw) {
        EXPECT_EQ(std::count(now.begin(), now.end(), dead.port), 0) << "switch " << sw;
      }
    }
  }
  EXPECT_GT(differ, 0u);
  EXPECT_EQ(countSent(sent(), mark, Method::Set, AttributeId::LinearForwardingTable), differ);
  EXPECT_EQ(light->reroute->program.table(program::TableKind::Lft).written, differ);

  // The next heavy sweep agrees with the reroute: it writes no block.
  const std::size_t again = sent().size();
  auto heavy = sweep_->run();
  ASSERT_TRUE(heavy);
  EXPECT_TRUE(heavy->up);
  EXPECT_EQ(countSent(sent(), again, Method::Set, AttributeId::LinearForwardingTable), 0u);
  // And the subnet is quiet again.
  auto quiet = sweep_->lightSweep();
  ASSERT_TRUE(quiet);
  EXPECT_FALSE(quiet->changed);
  EXPECT_EQ(quiet->mads, fabric().switches().size());
}

// routing.stable_routes (the default): a lost cable writes at most the
// blocks holding an entry whose path crossed it; a rebalance then writes the
// tables a fresh computation gives, and a sweep after it keeps them.
TEST_F(MasterLightSweep, ALostCableMovesOnlyWhatCrossedItAndARebalanceRoutesAfresh) {
  ASSERT_TRUE(sweep_->run());
  auto light = loseSpineCable();
  ASSERT_TRUE(light && light->reroute);
  const SubnetPlan& kept = *light->reroute->plan;
  ASSERT_TRUE(kept.stable);
  EXPECT_EQ(kept.stable->change, FabricChange::CapacityLost);
  EXPECT_TRUE(kept.stable->stats.stabilised) << kept.stable->stats.why;
  const auto written = light->reroute->program.table(program::TableKind::Lft).written;
  EXPECT_GT(written, 0u);
  EXPECT_LE(written, kept.stable->stats.brokenBlocks);

  const auto fresh = freshPlan();
  ASSERT_TRUE(fresh);
  ASSERT_FALSE(sameTables(fresh->routing.lfts, kept.routing.lfts))
      << "fresh tables equal the kept ones: the test proves nothing";
  sweep_->requestRebalance();
  const auto rebalanced = sweep_->replan();
  ASSERT_TRUE(rebalanced);
  EXPECT_TRUE(rebalanced->up);
  EXPECT_FALSE(rebalanced->plan->stable);
  EXPECT_TRUE(sameTables(rebalanced->plan->routing.lfts, fresh->routing.lfts));
  EXPECT_GT(rebalanced->program.table(program::TableKind::Lft).written, 0u);

  const std::size_t mark = sent().size();
  const auto again = sweep_->run();
  ASSERT_TRUE(again && again->plan->stable);
  EXPECT_EQ(again->plan->stable->change, FabricChange::HostsOnly);
  EXPECT_EQ(countSent(sent(), mark, Method::Set, AttributeId::LinearForwardingTable), 0u);
}

// routing.stable_routes = false: OpenSM's way, the fresh tables at every plan.
TEST_F(MasterLightSweep, WithoutStableRoutesALostCableGetsTheFreshTables) {
  SweepSettings settings;
  settings.stableRoutes = false;
  sweep_->setSettings(settings);
  ASSERT_TRUE(sweep_->run());
  auto light = loseSpineCable();
  ASSERT_TRUE(light && light->reroute);
  EXPECT_FALSE(light->reroute->plan->stable);
  const auto fresh = freshPlan();
  ASSERT_TRUE(fresh);
  EXPECT_TRUE(sameTables(light->reroute->plan->routing.lfts, fresh->routing.lfts));
  EXPECT_FALSE(sweep_->rebalanceDue());
}

TEST_F(MasterLightSweep, AHostWhoseOnlyCableIsLostIsDroppedAndTheRestStaysRouted) {
  auto heavy = sweep_->run();
  ASSERT_TRUE(heavy);
  const NodeId host = fabric().endNodes().back();
  ASSERT_NE(host, smPort_.node);
  const PortRef hostPort{host, 1};
  const PortRef edge = *fabric().port(hostPort).remote;
  fabric().disconnect(hostPort);
  wire_->flag(edge.node);

  auto light = sweep_->lightSweep();
  ASSERT_TRUE(light);
  EXPECT_FALSE(light->needsHeavy);
  ASSERT_TRUE(light->reroute);
  EXPECT_TRUE(light->reroute->up) << ::testing::PrintToString(light->reroute->reasons);
  EXPECT_EQ(light->reroute->caPorts, heavy->caPorts - 1);
  EXPECT_EQ(light->reroute->unreachablePairs, 0u);
  ASSERT_TRUE(sweep_->held().hasObservation());
  EXPECT_FALSE(sweep_->held().observed().fabric.findNode(fabric().node(host).guid));
  // Nothing leads into the dead port but the host's own LID, whose entry
  // stays so that the host coming back writes no block (routing.stable_routes).
  const auto& planned = heavy->plan->fabric;
  const Lid hostLid = planned.port(*planned.findPort(fabric().port(hostPort).guid)).lid;
  const auto& table = wire_->fake().lft(edge.node);
  for (std::size_t lid = 0; lid < table.size(); ++lid)
    EXPECT_TRUE(lid == hostLid.value || table[lid] != edge.port) << "LID " << lid;
}

TEST_F(MasterLightSweep, ANewLinkNeedsAHeavySweep) {
  const auto [a, b] = spineCable();
  fabric().disconnect(a);
  ASSERT_TRUE(sweep_->run());
  ASSERT_TRUE(fabric().connect(a, b));
  wire_->flag(a.node);
  wire_->flag(b.node);
  const std::size_t mark = sent().size();
  auto light = sweep_->lightSweep();
  ASSERT_TRUE(light);
  EXPECT_TRUE(light->changed);
  EXPECT_TRUE(light->needsHeavy);
  EXPECT_FALSE(light->reroute);
  EXPECT_EQ(countSent(sent(), mark, Method::Set, AttributeId::LinearForwardingTable), 0u);
  ASSERT_FALSE(light->changes.empty());
  EXPECT_NE(light->changes[0].find("new link"), std::string::npos);
}

}  // namespace
}  // namespace ibsm::sm::manager
