// What a counter pass asks, on hand-made fabrics: which ports, addressed
// how; when AllPortSelect and PortCountersExtended are used; when a
// switch's sum spares its ports; the CounterSelect bits of a reset.
#include <gtest/gtest.h>

#include "sm/health/CounterPlan.h"
#include "tests/support/FabricBuilder.h"

namespace ibsm::sm::health {
namespace {

using testing::FabricBuilder;

// sw0[1]-sw1[1]; h0 on sw0[2]; h1 on sw1[2]; a two-port CA with one port
// cabled; sw1 has six ports without a cable.
Fabric smallFabric() {
  FabricBuilder b;
  b.addSwitch("sw0", 4);
  b.addSwitch("sw1", 8);
  b.cable("sw0", 1, "sw1", 1);
  b.addHost("h0", "sw0", 2);
  b.addHost("h1", "sw1", 2);
  b.addCa("dual", 2);
  b.cable("dual", 2, "sw0", 3);
  return b.build();
}

const NodeTargets& named(const std::vector<NodeTargets>& all, const Fabric& f,
                         std::string_view description) {
  for (const NodeTargets& t : all)
    if (f.node(*f.findNode(t.node)).description == description) return t;
  throw std::runtime_error("no targets for " + std::string(description));
}

TEST(CounterTargets, SwitchPortsWithACableAtTheSwitchLidAndCaPortsAtTheirOwn) {
  const Fabric f = smallFabric();
  const auto all = counterTargets(f);
  ASSERT_EQ(all.size(), 5U);
  const NodeTargets& sw0 = named(all, f, "sw0");
  EXPECT_TRUE(sw0.isSwitch);
  ASSERT_EQ(sw0.ports.size(), 3U);
  for (const CounterTarget& t : sw0.ports) EXPECT_EQ(t.lid, sw0.lid);
  EXPECT_EQ(sw0.ports[2].portSelect, 3);
  EXPECT_EQ(sw0.lid, f.node(*f.findNode(sw0.node)).ports[0].lid);
  EXPECT_EQ(named(all, f, "sw1").ports.size(), 2U) << "uncabled ports are not read";

  const NodeTargets& dual = named(all, f, "dual");
  ASSERT_EQ(dual.ports.size(), 1U);
  const Node& dualNode = f.node(*f.findNode(dual.node));
  EXPECT_EQ(dual.ports[0].portSelect, 2);
  EXPECT_EQ(dual.ports[0].lid, dualNode.ports[2].lid);
  EXPECT_EQ(dual.lid, dualNode.ports[2].lid);
  EXPECT_EQ(dual.ports[0].name, f.describe(PortRef{*f.findNode(dual.node), 2}));
}

TEST(CounterTargets, ANodeWithoutALidIsLeftOut) {
  FabricBuilder b;
  b.addSwitch("sw0", 4);
  b.addHost("h0", "sw0", 1);
  EXPECT_TRUE(counterTargets(b.fabric()).empty()) << "built without LIDs";
}

TEST(NodeReads, AllPortSelectOnSwitchesThatHaveItAndMoreThanOneLinkedPort) {
  const Fabric f = smallFabric();
  const auto all = counterTargets(f);
  const PerfClassPortInfo both{.capabilityMask = perfCapability::kAllPortSelect |
                                                 perfCapability::kIsExtendedWidthSupported};
  EXPECT_EQ(readsFor(named(all, f, "sw0"), both), (NodeReads{true, true}));
  EXPECT_EQ(readsFor(named(all, f, "h0"), both), (NodeReads{false, true})) << "a CA";
  const PerfClassPortInfo none{};
  EXPECT_EQ(readsFor(named(all, f, "sw0"), none), (NodeReads{false, false}));
  const PerfClassPortInfo noIetf{.capabilityMask = perfCapability::kIsExtendedWidthSupportedNoIetf};
  EXPECT_TRUE(readsFor(named(all, f, "sw0"), noIetf).extended);

  FabricBuilder b;
  b.addSwitch("lonely", 8);
  b.addHost("h", "lonely", 5);
  const Fabric one = b.build();
  EXPECT_FALSE(readsFor(counterTargets(one)[0], both).allPortSelect)
      << "one linked port: its sum spares nothing";
}

PortReading withValue(Counter c, std::uint64_t v, PortReading r = {}) {
  r.values[index(c)] = v;
  return r;
}

TEST(PortsNeedReading, OnAFirstPassAndWhenAnErrorCounterOfTheSumMoved) {
  const PortReading quiet = withValue(Counter::PortXmitData, 1000);
  EXPECT_TRUE(portsNeedReading(std::nullopt, quiet)) << "first pass";
  EXPECT_FALSE(portsNeedReading(quiet, withValue(Counter::PortXmitData, 99999, quiet)))
      << "traffic alone spares the ports";
  EXPECT_TRUE(portsNeedReading(quiet, withValue(Counter::SymbolErrorCounter, 1, quiet)));
  EXPECT_TRUE(portsNeedReading(quiet, withValue(Counter::PortXmitWait, 1, quiet)));
  const PortReading ceiling = withValue(Counter::LinkDownedCounter, 0xFF, quiet);
  EXPECT_TRUE(portsNeedReading(ceiling, ceiling)) << "a saturated sum no longer counts";
}

TEST(PortMayBeSpared, OnlyAPortReadSinceTheSumLastMovedAndWithinRefreshPasses) {
  EXPECT_FALSE(portMayBeSpared(std::nullopt, 1, 2)) << "never read";
  EXPECT_TRUE(portMayBeSpared(3, 3, 4)) << "read in the pass the sum moved";
  EXPECT_TRUE(portMayBeSpared(5, 3, 6)) << "read after it";
  EXPECT_FALSE(portMayBeSpared(2, 3, 4)) << "read before the sum moved: out of the fabric then";
  EXPECT_TRUE(portMayBeSpared(1, 1, kRefreshPasses)) << "still fresh";
  EXPECT_FALSE(portMayBeSpared(1, 1, 1 + kRefreshPasses)) << "due again for its rates";
}

TEST(CounterSelectFor, ErrorCountersThenDataCountersWithPortXmitWaitInCounterSelect2) {
  CounterSet s;
  s.set(index(Counter::SymbolErrorCounter));
  s.set(index(Counter::VL15Dropped));
  EXPECT_EQ(
      counterSelectFor(s),
      (CounterSelectBits{counterSelect::kSymbolErrorCounter | counterSelect::kVl15Dropped, 0}));
  CounterSet data;
  data.set(index(Counter::PortXmitData));
  data.set(index(Counter::PortRcvPkts));
  data.set(index(Counter::PortXmitWait));
  EXPECT_EQ(counterSelectFor(data),
            (CounterSelectBits{counterSelect::kPortXmitData | counterSelect::kPortRcvPkts, 0x01}));
  CounterSet every;
  every.set();
  EXPECT_EQ(counterSelectFor(every), (CounterSelectBits{counterSelect::kAll, 0x01}));
}

}  // namespace
}  // namespace ibsm::sm::health
