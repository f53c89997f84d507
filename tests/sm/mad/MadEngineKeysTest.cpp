// Every SMP the engine sends carries the M_Key of the port it reaches
// (issue 29): callers never set one. The engine learns which port a route
// or LID reaches from the NodeInfo and PortInfo answers going by
// (sm/mad/PortDirectory.h); a port never seen gets key 0, which a port with
// protect bits 1 answers Gets with anyway (IBA 14.2.4), so its NodeInfo
// teaches its GUID. The fake fabric here does not check keys: the keys are
// read off the wire (sent()).
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>

#include "sm/mad/MadEngine.h"
#include "tests/sm/support/FakeFabricTransport.h"

namespace ibsm {
namespace {

using namespace std::chrono_literals;
using testing::FakeFabricTransport;

constexpr Guid kSw0{0x200000};
constexpr Guid kSw1{0x200001};
constexpr Guid kCa0{0x100000};
constexpr Guid kCa0Port1{0x100001};
constexpr Guid kCa0Port2{0x100002};

// sw0 (SM on port 0) --3-- sw1; ca0 on sw0 ports 1 and 2.
Fabric fabric() {
  Fabric f;
  const NodeId s0 = *f.addNode(Node::makeSwitch(kSw0, 8, "sw0"));
  const NodeId s1 = *f.addNode(Node::makeSwitch(kSw1, 8, "sw1"));
  const NodeId c0 = *f.addNode(Node::makeCa(kCa0, {kCa0Port1, kCa0Port2}, "ca0"));
  EXPECT_TRUE(f.connect({s0, 1}, {c0, 1}));
  EXPECT_TRUE(f.connect({s0, 2}, {c0, 2}));
  EXPECT_TRUE(f.connect({s0, 3}, {s1, 3}));
  f.node(s1).ports[0].lid = Lid{9};
  return f;
}

DrPath path(std::initializer_list<std::uint8_t> ports) {
  return *DrPath::fromPorts(std::vector<std::uint8_t>(ports));
}

// A key that names its port, so a wrong one is easy to read in a failure.
std::uint64_t keyOf(Guid port) {
  return 0xAB00000000000000ULL | port.value;
}

class MadEngineKeysTest : public ::testing::Test {
 protected:
  MadEngineKeysTest() {
    MadEngineOptions o;
    o.timeout = 200ms;
    o.clock = wire.clock();
    engine = std::make_unique<MadEngine>(wire, o);
    engine->setPortKeys(keyOf);
  }
  void send(const SmpRequest& r) {
    auto replies = engine->sendAll({r});
    ASSERT_TRUE(replies);
    ASSERT_TRUE(replies->at(0).ok()) << describeFailure(replies->at(0));
  }
  std::uint64_t lastKey() const { return wire.sent().back().smp.header.mKey; }

  FakeFabricTransport wire{fabric(), PortRef{0, 0}};
  std::unique_ptr<MadEngine> engine;
};

TEST_F(MadEngineKeysTest, APortNeverSeenGetsKeyZeroThenItsOwnOnceItsNodeInfoAnswered) {
  send(SmpRequest::get(AttributeId::NodeInfo, 0, path({1})));
  EXPECT_EQ(lastKey(), 0u);
  send(SmpRequest::get(AttributeId::PortInfo, 0, path({1})));
  EXPECT_EQ(lastKey(), keyOf(kCa0Port1));
}

TEST_F(MadEngineKeysTest, EachCaPortIsCheckedAgainstItsOwnKey) {
  send(SmpRequest::get(AttributeId::NodeInfo, 0, path({1})));
  send(SmpRequest::get(AttributeId::NodeInfo, 0, path({2})));
  send(SmpRequest::get(AttributeId::NodeDescription, 0, path({1})));
  EXPECT_EQ(lastKey(), keyOf(kCa0Port1));
  send(SmpRequest::get(AttributeId::NodeDescription, 0, path({2})));
  EXPECT_EQ(lastKey(), keyOf(kCa0Port2));
}

TEST_F(MadEngineKeysTest, ASwitchIsCheckedAgainstPortZerosKeyWhicheverPortIsAsked) {
  // IBA 14.2.4: a switch's external ports have no M_Key of their own.
  send(SmpRequest::get(AttributeId::NodeInfo, 0, path({3})));
  send(SmpRequest::get(AttributeId::PortInfo, 5, path({3})));
  EXPECT_EQ(lastKey(), keyOf(kSw1));
}

TEST_F(MadEngineKeysTest, ALidRoutedSmpCarriesTheKeyOfThePortThatHoldsTheLid) {
  send(SmpRequest::get(AttributeId::SwitchInfo, 0, Lid{9}));
  EXPECT_EQ(lastKey(), 0u);  // LID 9 is nobody yet
  send(SmpRequest::get(AttributeId::NodeInfo, 0, path({3})));
  send(SmpRequest::get(AttributeId::PortInfo, 0, path({3})));  // port 0 holds LID 9
  send(SmpRequest::get(AttributeId::SwitchInfo, 0, Lid{9}));
  EXPECT_EQ(lastKey(), keyOf(kSw1));
}

TEST_F(MadEngineKeysTest, ARouteThatNowLeadsElsewhereIsCorrectedByItsNextNodeInfo) {
  send(SmpRequest::get(AttributeId::NodeInfo, 0, path({1})));
  EXPECT_EQ(engine->keyFor(path({1})), keyOf(kCa0Port1));
  // The cable on sw0 port 1 moves to ca0's port 2.
  Fabric& f = wire.fabric();
  f.disconnect({0, 1});
  f.disconnect({2, 2});
  ASSERT_TRUE(f.connect({0, 1}, {2, 2}));
  send(SmpRequest::get(AttributeId::NodeInfo, 0, path({1})));
  EXPECT_EQ(engine->keyFor(path({1})), keyOf(kCa0Port2));
}

TEST_F(MadEngineKeysTest, WithoutKeysEverySmpCarriesZero) {
  engine->setPortKeys({});
  send(SmpRequest::get(AttributeId::NodeInfo, 0, path({1})));
  send(SmpRequest::get(AttributeId::PortInfo, 0, path({1})));
  EXPECT_EQ(lastKey(), 0u);
}

TEST_F(MadEngineKeysTest, ATrapRepressCarriesTheKeyOfThePortItAcknowledges) {
  // A protected port takes a TrapRepress only with its key (IBA 14.2.4).
  send(SmpRequest::get(AttributeId::NodeInfo, 0, path({3})));
  send(SmpRequest::get(AttributeId::PortInfo, 0, path({3})));
  Smp trap = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
  ASSERT_TRUE(engine->repress(IncomingSmp{trap, MadAddress::toLid(Lid{9})}));
  EXPECT_EQ(wire.sent().back().smp.header.method, Method::TrapRepress);
  EXPECT_EQ(lastKey(), keyOf(kSw1));
}

}  // namespace
}  // namespace ibsm
