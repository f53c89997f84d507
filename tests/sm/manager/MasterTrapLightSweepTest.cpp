// MasterSweep::lightSweep() asked by a Trap 128, against the in-memory fake
// fabric: the switches that trapped are asked first, and when one shows a
// cable lost the reroute is on the wire before the other switches are asked.
#include <gtest/gtest.h>

#include "tests/sm/manager/LightSweepFixture.h"

namespace ibsm::sm::manager {
namespace {

using namespace light_test;

class MasterTrapLightSweep : public MasterLightSweep {};

// The LID the SM gave the fake's switch `sw` (its port 0), and how many
// hops its directed route has, as the held observation says (its NodeIds
// are discovery's, not the fake's: found by GUID).
NodeId heldId(const MasterSweep& sweep, const Fabric& fake, NodeId sw) {
  const auto id = sweep.held().observed().fabric.findNode(fake.node(sw).guid);
  EXPECT_TRUE(id) << "switch " << sw << " not held";
  return id.value_or(0);
}
Lid lidOf(const MasterSweep& sweep, const Fabric& fake, NodeId sw) {
  return sweep.held().observed().portInfo.at(PortRef{heldId(sweep, fake, sw), 0}).lid;
}
std::size_t hopsTo(const MasterSweep& sweep, const Fabric& fake, NodeId sw) {
  return sweep.held().observed().pathTo.at(heldId(sweep, fake, sw)).ports().size();
}

// A light sweep a Trap 128 asked for: the switch that trapped is asked
// first, and the LFT blocks of the reroute are on the wire before any other
// switch is asked; every switch is asked after, and the tables are the ones
// the light sweep without the trap writes.
TEST_F(MasterTrapLightSweep, ATrappingSwitchIsAskedFirstAndTheRerouteWrittenBeforeTheOthers) {
  ASSERT_TRUE(sweep_->run());
  const auto [a, b] = spineCable();
  // The end nearer the SM traps (the far end is asked by a route around it).
  const PortRef near =
      hopsTo(*sweep_, fabric(), a.node) <= hopsTo(*sweep_, fabric(), b.node) ? a : b;
  fabric().disconnect(a);
  wire_->flag(a.node);
  wire_->flag(b.node);
  const std::size_t mark = sent().size();
  const std::vector<Lid> trapped{lidOf(*sweep_, fabric(), near.node)};
  // The trapper and the switches its route crosses, one a hop.
  const std::size_t route = hopsTo(*sweep_, fabric(), near.node);
  auto light = sweep_->lightSweep(trapped);
  ASSERT_TRUE(light);
  EXPECT_EQ(light->askedFirst, route);
  EXPECT_TRUE(light->reroutedEarly);
  EXPECT_FALSE(light->needsHeavy);
  ASSERT_TRUE(light->reroute);
  EXPECT_TRUE(light->reroute->up) << ::testing::PrintToString(light->reroute->reasons);
  EXPECT_EQ(light->reroute->unreachablePairs, 0u);
  EXPECT_EQ(light->mads, sent().size() - mark);

  // On the wire: the SwitchInfo Gets of the trapper's route before the
  // first LFT block, then every switch asked after the last one.
  std::size_t firstLft = sent().size(), lastLft = 0;
  for (std::size_t i = mark; i < sent().size(); ++i) {
    if (sent()[i].smp.header.attributeId != AttributeId::LinearForwardingTable) continue;
    firstLft = std::min(firstLft, i);
    lastLft = i;
  }
  ASSERT_LT(firstLft, sent().size()) << "no LFT block written";
  std::size_t getsBefore = 0, getsAfter = 0;
  for (std::size_t i = mark; i < sent().size(); ++i) {
    const auto& h = sent()[i].smp.header;
    if (h.attributeId != AttributeId::SwitchInfo || h.method != Method::Get) continue;
    getsBefore += i < firstLft;
    getsAfter += i > lastLft;
  }
  EXPECT_EQ(getsBefore, route);
  EXPECT_GE(getsAfter, fabric().switches().size() - 1);
  EXPECT_FALSE(wire_->flagged(a.node));
  EXPECT_FALSE(wire_->flagged(b.node));
  EXPECT_EQ(countSent(sent(), mark, Method::Get, AttributeId::NodeInfo), 0u);
  // Nothing is forwarded into the dead ports.
  for (const PortRef dead : {a, b}) {
    const auto& table = wire_->fake().lft(dead.node);
    EXPECT_EQ(std::count(table.begin(), table.end(), dead.port), 0) << "switch " << dead.node;
  }
  // The same tables as the light sweep without the trap would leave: a
  // heavy sweep now writes no block, and the next light sweep is quiet.
  const std::size_t again = sent().size();
  auto heavy = sweep_->run();
  ASSERT_TRUE(heavy && heavy->up);
  EXPECT_EQ(countSent(sent(), again, Method::Set, AttributeId::LinearForwardingTable), 0u);
  auto quiet = sweep_->lightSweep(trapped);
  ASSERT_TRUE(quiet);
  EXPECT_FALSE(quiet->changed);
  EXPECT_FALSE(quiet->reroutedEarly);
  EXPECT_EQ(quiet->mads, fabric().switches().size());
}

// Only the far end traps, and its directed route crosses the lost cable:
// the switches on that route are asked first, nearest first, so the near
// end shows the loss and nothing times out on the dead route.
TEST_F(MasterTrapLightSweep, AFarTrapperIsReachedByItsRouteNearestFirstWithoutATimeout) {
  ASSERT_TRUE(sweep_->run());
  const auto [a, b] = spineCable();
  const bool aFar = hopsTo(*sweep_, fabric(), a.node) > hopsTo(*sweep_, fabric(), b.node);
  const PortRef far = aFar ? a : b, near = aFar ? b : a;
  fabric().disconnect(a);
  wire_->flag(a.node);
  wire_->flag(b.node);
  const auto timeouts = engine_->counters().timeouts;
  const std::size_t nearRoute = hopsTo(*sweep_, fabric(), near.node);
  const std::size_t mark = sent().size();
  auto light = sweep_->lightSweep(std::vector<Lid>{lidOf(*sweep_, fabric(), far.node)});
  ASSERT_TRUE(light && light->reroute);
  EXPECT_TRUE(light->reroutedEarly);
  EXPECT_TRUE(light->reroute->up);
  EXPECT_EQ(engine_->counters().timeouts, timeouts);
  // Asked before the first LFT block: the route's switches up to the near end.
  std::size_t getsBeforeLft = 0;
  for (std::size_t i = mark; i < sent().size(); ++i) {
    const auto& h = sent()[i].smp.header;
    if (h.attributeId == AttributeId::LinearForwardingTable) break;
    getsBeforeLft += h.attributeId == AttributeId::SwitchInfo && h.method == Method::Get;
  }
  EXPECT_EQ(getsBeforeLft, nearRoute);
  EXPECT_FALSE(wire_->flagged(a.node));
  EXPECT_FALSE(wire_->flagged(b.node));
}

// A trapping switch that shows nothing lost (the trap came from elsewhere,
// or before the change) ends no look early: every switch is asked before
// anything is written, as without a trap.
TEST_F(MasterTrapLightSweep, ATrapperThatShowsNoLossLeavesTheWholeLookFirst) {
  ASSERT_TRUE(sweep_->run());
  const auto [a, b] = spineCable();
  // The SM's own leaf: one hop, its route crosses no other switch.
  NodeId other = a.node;
  for (const NodeId sw : fabric().switches())
    if (sw != a.node && sw != b.node && hopsTo(*sweep_, fabric(), sw) == 1) other = sw;
  ASSERT_NE(other, a.node);
  fabric().disconnect(a);
  wire_->flag(a.node);
  wire_->flag(b.node);
  const std::size_t mark = sent().size();
  const std::vector<Lid> trapped{lidOf(*sweep_, fabric(), other)};
  auto light = sweep_->lightSweep(trapped);
  ASSERT_TRUE(light && light->reroute);
  EXPECT_EQ(light->askedFirst, 1u);  // the SM's leaf, on no other's route
  EXPECT_FALSE(light->reroutedEarly);
  EXPECT_TRUE(light->reroute->up);
  std::size_t getsBeforeLft = 0;
  for (std::size_t i = mark; i < sent().size(); ++i) {
    const auto& h = sent()[i].smp.header;
    if (h.attributeId == AttributeId::LinearForwardingTable) break;
    getsBeforeLft += h.attributeId == AttributeId::SwitchInfo && h.method == Method::Get;
  }
  EXPECT_EQ(getsBeforeLft, fabric().switches().size());
}

}  // namespace
}  // namespace ibsm::sm::manager
