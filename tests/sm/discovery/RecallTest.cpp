// A heavy sweep after another on a fabric that loses MADs (Recall.h): what
// the last sweep confirmed and this sweep's answers vouch for is not lost
// with an SMP, and nothing else is kept -- not on a route that loses
// nothing, not a cable whose ends came back in Init, not the SwitchInfo of
// a switch that was reset.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include <random>

#include "sm/discovery/Discovery.h"
#include "tests/sm/discovery/DiscoveryChecks.h"
#include "tests/sm/support/FakeFabricTransport.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::discovery {
namespace {

using ::testing::AllOf;
using testing::Compare;
using ::testing::Contains;
using testing::FakeFabricTransport;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Fate = FakeFabricTransport::Fate;

class RecallTest : public ::testing::Test {
 protected:
  // A k8 3-level fat tree whose every link an SM has brought to Active.
  RecallTest() {
    Fabric f = testing::generatedFabric(FatTreeSpec{.levels = 3, .radix = 8});
    for (Node& n : nodesOf(f))
      for (std::uint8_t p = 1; p <= n.numPorts(); ++p)
        if (n.ports[p].connected()) n.ports[p].state = PortState::Active;
    smPort_ = testing::firstNodePort(f);
    wire_ = std::make_unique<FakeFabricTransport>(std::move(f), smPort_);
  }
  static std::vector<std::reference_wrapper<Node>> nodesOf(Fabric& f) {
    std::vector<std::reference_wrapper<Node>> out;
    for (NodeId id = 0; id < f.size(); ++id) out.emplace_back(f.node(id));
    return out;
  }
  FakeFabricTransport& wire() { return *wire_; }
  Fabric& truth() { return wire_->fabric(); }
  NodeId named(std::string_view name) { return testing::nodeNamed(truth(), name); }

  Result<DiscoveredSubnet> discover(const DiscoveredSubnet* last) {
    MadEngineOptions o;
    o.window = 16;
    o.clock = wire_->clock();
    o.logger = logger_;
    MadEngine engine(*wire_, o);
    Discovery discovery(engine, {.last = last}, logger_);
    auto subnet = discovery.run();
    recalled_ = discovery.counters().recalled;
    return subnet;
  }

  // Every fifth SMP lost at random, and those `lost` says always.
  void loseSome(std::function<bool(const Smp&)> lost) {
    wire().setFaults([this, lost = std::move(lost)](const Smp& smp, std::size_t) {
      return Fate::dropped(lost(smp) || std::uniform_int_distribution<int>(0, 4)(draw_) == 0);
    });
  }
  // The request lands on `node` (the SMP's last hop enters it).
  bool landsOn(const Smp& smp, NodeId node) {
    const auto nodes = testing::nodesOnPath(
        truth(), smPort_, std::span(smp.initialPath).subspan(1, smp.header.hopCount));
    return nodes.size() == std::size_t{smp.header.hopCount} + 1 && nodes.back() == node;
  }
  // A NodeInfo probe out of `port` of `node`.
  bool probesOutOf(const Smp& smp, NodeId node, std::uint8_t port) {
    const std::size_t hops = smp.header.hopCount;
    if (smp.header.attributeId != AttributeId::NodeInfo || hops == 0) return false;
    const auto nodes =
        testing::nodesOnPath(truth(), smPort_, std::span(smp.initialPath).subspan(1, hops - 1));
    return nodes.size() == hops && nodes.back() == node && smp.initialPath[hops] == port;
  }
  bool asks(const Smp& smp, AttributeId id, NodeId node) {
    return smp.header.attributeId == id && landsOn(smp, node);
  }

  PortRef smPort_;
  std::unique_ptr<FakeFabricTransport> wire_;
  RecallCounts recalled_;
  std::mt19937_64 draw_{17};
  std::shared_ptr<spdlog::logger> logger_ =
      std::make_shared<spdlog::logger>("recall", std::make_shared<spdlog::sinks::null_sink_st>());
};

TEST_F(RecallTest, AnswersLostOnLossyRoutesAreTheLastSweepsAndTheFabricIsWhole) {
  auto first = discover(nullptr);
  ASSERT_TRUE(first);
  ASSERT_THAT(first->problems, IsEmpty());
  const NodeId host = named("h1_0_1");
  const NodeId edge = named("edge2_3");
  const NodeId agg = named("agg6_0");
  // A CA whose only way in is lost: reached through that cable only.
  const PortRef hostEdge = *truth().port({named("h5_1_2"), 1}).remote;
  // A core's cable down to agg6_0, which agg6_0 then probes back.
  std::optional<PortRef> core;
  for (std::uint8_t p = 1; p <= truth().node(agg).numPorts() && !core; ++p)
    if (truth().node(truth().port({agg, p}).remote->node).description.starts_with("core"))
      core = truth().port({agg, p}).remote;
  ASSERT_TRUE(core);
  loseSome([&](const Smp& smp) {
    return asks(smp, AttributeId::NodeDescription, host) ||
           asks(smp, AttributeId::SwitchInfo, edge) ||
           (asks(smp, AttributeId::PortInfo, agg) && smp.header.attributeModifier == 2) ||
           probesOutOf(smp, hostEdge.node, hostEdge.port) ||
           probesOutOf(smp, core->node, core->port);
  });
  auto second = discover(&*first);
  ASSERT_TRUE(second);
  EXPECT_THAT(testing::compareFabrics(truth(), second->fabric, Compare::Everything), IsEmpty());
  EXPECT_THAT(second->problems, IsEmpty());
  EXPECT_EQ(recalled_.descriptions, 1U);
  EXPECT_EQ(recalled_.switchInfos, 1U);
  EXPECT_EQ(recalled_.portInfos, 1U);
  EXPECT_EQ(recalled_.cables, 2U);
  EXPECT_EQ(recalled_.nodes, 1U);
  EXPECT_EQ(second->switchInfo.at(*second->fabric.findNode(truth().node(edge).guid)),
            first->switchInfo.at(*first->fabric.findNode(truth().node(edge).guid)));
}

TEST_F(RecallTest, APortWhosePortInfoIsLostIsProbedStillAndTheCaBehindItFound) {
  auto first = discover(nullptr);
  ASSERT_TRUE(first);
  // The walk probes only ports it knows are up; the last sweep saw this one
  // Active with a cable, so it is probed, and the probe vouches for it.
  const NodeId host = named("h5_1_2");
  const PortRef edge = *truth().port({host, 1}).remote;
  loseSome([&](const Smp& smp) {
    return asks(smp, AttributeId::PortInfo, edge.node) && smp.header.attributeModifier == edge.port;
  });
  auto second = discover(&*first);
  ASSERT_TRUE(second);
  EXPECT_THAT(testing::compareFabrics(truth(), second->fabric, Compare::Everything), IsEmpty());
  EXPECT_THAT(second->problems, IsEmpty());
  EXPECT_EQ(recalled_.portInfos, 1U);
  EXPECT_EQ(recalled_.nodes, 0U);
}

TEST_F(RecallTest, WithoutTheLastSweepEveryLostAnswerIsAProblem) {
  const NodeId host = named("h5_1_2");
  loseSome([&](const Smp& smp) { return asks(smp, AttributeId::NodeDescription, host); });
  auto subnet = discover(nullptr);
  ASSERT_TRUE(subnet);
  EXPECT_THAT(subnet->problems, Contains(HasSubstr("DISC-0202")));
  EXPECT_EQ(recalled_.total(), 0U);
}

TEST_F(RecallTest, OnARouteThatLosesNothingALostProbeIsAChangeAndNothingIsKept) {
  auto first = discover(nullptr);
  ASSERT_TRUE(first);
  const NodeId host = named("h5_1_2");
  const PortRef edge = *truth().port({host, 1}).remote;
  wire().setFaults([&](const Smp& smp, std::size_t) {
    return Fate::dropped(probesOutOf(smp, edge.node, edge.port));
  });
  auto second = discover(&*first);
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->fabric.findNode(truth().node(host).guid));
  EXPECT_THAT(second->problems, Contains(AllOf(HasSubstr("DISC-0201"), HasSubstr("edge"))));
  EXPECT_EQ(recalled_.total(), 0U);
}

TEST_F(RecallTest, ACableWhoseEndsCameBackInInitIsNotKept) {
  auto first = discover(nullptr);
  ASSERT_TRUE(first);
  // The cable went down and up since (or was replaced): both ends in Init.
  const NodeId agg = named("agg6_0");
  const PortRef core = *truth().port({agg, 5}).remote;
  truth().port({agg, 5}).state = PortState::Init;
  truth().port(core).state = PortState::Init;
  loseSome([&](const Smp& smp) {
    return probesOutOf(smp, agg, 5) || probesOutOf(smp, core.node, core.port);
  });
  auto second = discover(&*first);
  ASSERT_TRUE(second);
  EXPECT_FALSE(
      second->fabric.port({*second->fabric.findNode(truth().node(agg).guid), 5}).connected());
  EXPECT_THAT(second->problems, Contains(HasSubstr("\"agg6_0\"[5]")));
  EXPECT_EQ(recalled_.cables, 0U);
}

TEST_F(RecallTest, ACableOneOfWhoseEndsNowLeadsElsewhereIsNotKept) {
  auto first = discover(nullptr);
  ASSERT_TRUE(first);
  // h5_1_2's cable now ends at another port of its switch (a free one is
  // made by moving the host): the probe out of the old port is lost, and
  // the host answers from the new one.
  const NodeId host = named("h5_1_2");
  const PortRef was = *truth().port({host, 1}).remote;
  const NodeId neighbour = named("h5_1_3");
  const PortRef other = *truth().port({neighbour, 1}).remote;
  truth().disconnect({host, 1});
  truth().disconnect({neighbour, 1});
  ASSERT_TRUE(truth().connect({host, 1}, other));
  truth().port(was).state = PortState::Active;  // as if it still held a link
  loseSome([&](const Smp& smp) { return probesOutOf(smp, was.node, was.port); });
  auto second = discover(&*first);
  ASSERT_TRUE(second);
  const Fabric& f = second->fabric;
  EXPECT_FALSE(f.port({*f.findNode(truth().node(was.node).guid), was.port}).connected());
  EXPECT_EQ(f.port({*f.findNode(truth().node(host).guid), 1}).remote,
            (PortRef{*f.findNode(truth().node(other.node).guid), other.port}));
  EXPECT_EQ(recalled_.cables, 0U);
  EXPECT_EQ(recalled_.nodes, 0U);
}

TEST_F(RecallTest, TheSwitchInfoOfASwitchThatLostItsLidIsReadNotRecalled) {
  auto first = discover(nullptr);
  ASSERT_TRUE(first);
  const NodeId edge = named("edge2_3");
  truth().port({edge, 0}).lid = Lid{0};  // reset: its tables are gone too
  loseSome([&](const Smp& smp) { return asks(smp, AttributeId::SwitchInfo, edge); });
  auto second = discover(&*first);
  ASSERT_TRUE(second);
  EXPECT_THAT(second->problems, Contains(AllOf(HasSubstr("DISC-0204"), HasSubstr("edge2_3"))));
  EXPECT_EQ(recalled_.switchInfos, 0U);
}

}  // namespace
}  // namespace ibsm::sm::discovery
