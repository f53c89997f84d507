// The light sweep: one SwitchInfo per switch when nothing changed; a second
// look only where a switch reports a port state change.
#include <gtest/gtest.h>

#include <vector>

#include "sm/fsm/LightSweep.h"

namespace ibsm::sm::fsm {
namespace {

// Two leaves under one spine, a host on each leaf, every link Active.
struct SmallFabric {
  Fabric fabric;
  NodeId spine{}, leaf0{}, leaf1{}, host0{}, host1{};

  SmallFabric() {
    spine = *fabric.addNode(Node::makeSwitch(Guid{0x100}, 4, "spine"));
    leaf0 = *fabric.addNode(Node::makeSwitch(Guid{0x200}, 4, "leaf0"));
    leaf1 = *fabric.addNode(Node::makeSwitch(Guid{0x300}, 4, "leaf1"));
    host0 = *fabric.addNode(Node::makeCa(Guid{0x400}, {Guid{0x401}}, "host0"));
    host1 = *fabric.addNode(Node::makeCa(Guid{0x500}, {Guid{0x501}}, "host1"));
    link({spine, 1}, {leaf0, 1});
    link({spine, 2}, {leaf1, 1});
    link({leaf0, 2}, {host0, 1});
    link({leaf1, 2}, {host1, 1});
  }
  void link(PortRef a, PortRef b) {
    EXPECT_TRUE(fabric.connect(a, b));
    fabric.port(a).state = PortState::Active;
    fabric.port(b).state = PortState::Active;
  }
  std::vector<SwitchReply> quietReplies() const {
    std::vector<SwitchReply> r;
    for (NodeId sw : fabric.switches()) r.push_back({sw, SwitchInfo{.linearFdbTop = 12}, 12});
    return r;
  }
};

TEST(LightSweepPlan, AQuietSubnetCostsOneSmpPerSwitchAndNothingMore) {
  SmallFabric f;
  const auto plan = planLightSweep(f.fabric, f.quietReplies());
  EXPECT_TRUE(plan.quiet());
  EXPECT_FALSE(plan.needsHeavy());
  EXPECT_EQ(plan.switches, 3U);
  EXPECT_TRUE(portsToRead(f.fabric, plan).empty());
}

TEST(LightSweepPlan, OnlySwitchesReportingAPortStateChangeAreReadAgain) {
  SmallFabric f;
  auto replies = f.quietReplies();
  for (auto& r : replies)
    if (r.node == f.leaf1) r.info = SwitchInfo{.linearFdbTop = 12, .portStateChange = true};
  const auto plan = planLightSweep(f.fabric, replies);
  EXPECT_FALSE(plan.quiet());
  EXPECT_FALSE(plan.needsHeavy());  // the ports decide
  EXPECT_EQ(plan.reread, std::vector<NodeId>{f.leaf1});
  const auto reads = portsToRead(f.fabric, plan);
  ASSERT_EQ(reads.size(), 4U);  // every port of leaf1, none of the others
  for (std::uint8_t p = 1; p <= 4; ++p) EXPECT_EQ(reads[p - 1], (PortRef{f.leaf1, p}));
}

TEST(LightSweepPlan, ASilentSwitchNeedsAHeavySweep) {
  SmallFabric f;
  auto replies = f.quietReplies();
  replies[0].info.reset();
  const auto plan = planLightSweep(f.fabric, replies);
  EXPECT_TRUE(plan.needsHeavy());
  EXPECT_EQ(plan.silent, std::vector<NodeId>{replies[0].node});
}

TEST(LightSweepPlan, ASwitchTheCallerDidNotAskCountsAsSilent) {
  SmallFabric f;
  auto replies = f.quietReplies();
  replies.pop_back();
  const auto plan = planLightSweep(f.fabric, replies);
  EXPECT_TRUE(plan.needsHeavy());
  EXPECT_EQ(plan.silent.size(), 1U);
}

TEST(LightSweepPlan, ASwitchThatForgotItsTablesNeedsAHeavySweep) {
  SmallFabric f;
  auto replies = f.quietReplies();
  for (auto& r : replies)
    if (r.node == f.spine) r.info = SwitchInfo{.linearFdbTop = 0};  // rebooted: LFT empty
  const auto plan = planLightSweep(f.fabric, replies);
  EXPECT_TRUE(plan.needsHeavy());
  EXPECT_EQ(plan.lostTables, std::vector<NodeId>{f.spine});
}

TEST(LightSweepPlan, UnknownProgrammedTopIsNotChecked) {
  SmallFabric f;
  auto replies = f.quietReplies();
  for (auto& r : replies) {
    r.programmedFdbTop.reset();
    r.info = SwitchInfo{.linearFdbTop = 999};
  }
  EXPECT_TRUE(planLightSweep(f.fabric, replies).quiet());
}

TEST(LightSweepPlan, RepliesForNodesThatAreNotSwitchesAreIgnored) {
  SmallFabric f;
  auto replies = f.quietReplies();
  replies.push_back({f.host0, SwitchInfo{.portStateChange = true}, {}});
  replies.push_back({4242, std::nullopt, {}});
  EXPECT_TRUE(planLightSweep(f.fabric, replies).quiet());
}

TEST(ComparePorts, TheSameStatesAreNoChange) {
  SmallFabric f;
  const std::vector<PortReading> now = {
      {1, PortState::Active}, {2, PortState::Active}, {3, PortState::Down}, {4, PortState::Down}};
  EXPECT_TRUE(comparePorts(f.fabric, f.leaf0, now).empty());
}

TEST(ComparePorts, APulledCableIsALostLink) {
  SmallFabric f;
  const std::vector<PortReading> now = {{1, PortState::Down}, {2, PortState::Active}};
  const auto d = comparePorts(f.fabric, f.leaf0, now);
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].port, (PortRef{f.leaf0, 1}));
  EXPECT_EQ(d[0].before, PortState::Active);
  EXPECT_EQ(d[0].now, PortState::Down);
  EXPECT_EQ(d[0].change, PortChange::LinkLost);
}

TEST(ComparePorts, APluggedCableWaitsInInitForTheSm) {
  SmallFabric f;
  const auto d = comparePorts(f.fabric, f.leaf0, std::vector<PortReading>{{3, PortState::Init}});
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].change, PortChange::LinkNew);
}

TEST(ComparePorts, ARetrainedLinkBackInInitCountsEvenThoughItWasUpBefore) {
  SmallFabric f;
  const auto d = comparePorts(f.fabric, f.leaf0, std::vector<PortReading>{{1, PortState::Init}});
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].change, PortChange::LinkNew);
}

TEST(ComparePorts, ALinkTheLastFabricSawBeforeProgrammingIsTheSameLinkNowActive) {
  SmallFabric f;
  f.fabric.port({f.leaf0, 1}).state = PortState::Init;  // as discovered, before arming
  f.fabric.port({f.leaf0, 2}).state = PortState::Armed;
  const std::vector<PortReading> now = {{1, PortState::Active}, {2, PortState::Active}};
  EXPECT_TRUE(comparePorts(f.fabric, f.leaf0, now).empty());
}

TEST(ComparePorts, ALinkUpWithoutTheSmIsAChange) {
  SmallFabric f;
  const auto d = comparePorts(f.fabric, f.leaf0, std::vector<PortReading>{{4, PortState::Active}});
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].change, PortChange::LinkUp);
}

TEST(ComparePorts, ASilentPortIsAChangePortsOutOfRangeAreIgnored) {
  SmallFabric f;
  const std::vector<PortReading> now = {
      {2, std::nullopt}, {0, PortState::Down}, {9, PortState::Down}};
  const auto d = comparePorts(f.fabric, f.leaf0, now);
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].port, (PortRef{f.leaf0, 2}));
  EXPECT_EQ(d[0].change, PortChange::Silent);
}

}  // namespace
}  // namespace ibsm::sm::fsm
