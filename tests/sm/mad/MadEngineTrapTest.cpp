// The engine sends traps (a standby's trap 144 to the master) and takes the
// TrapRepress that answers one as an acknowledgement, not as a request.
// libibmad is the reference for the Notice bytes it has fields for; the
// change flags follow the packed ntc_144 layout OpenSM and Linux read.
#include <gtest/gtest.h>
#include <ibsm/MadAttributes.h>
#include <infiniband/mad.h>
#include <spdlog/sinks/null_sink.h>

#include "sm/mad/MadEngine.h"
#include "tests/sm/support/FakeFabricTransport.h"

namespace ibsm {
namespace {

using namespace std::chrono_literals;
using testing::FakeFabricTransport;

Fabric oneSwitchTwoCas() {
  Fabric f;
  const NodeId sw = *f.addNode(Node::makeSwitch(Guid{0x200}, 4, "sw"));
  const NodeId a = *f.addNode(Node::makeCa(Guid{0x100}, {Guid{0x101}}, "a"));
  const NodeId b = *f.addNode(Node::makeCa(Guid{0x110}, {Guid{0x111}}, "b"));
  EXPECT_TRUE(f.connect({sw, 1}, {a, 1}));
  EXPECT_TRUE(f.connect({sw, 2}, {b, 1}));
  return f;
}

class MadEngineTrapTest : public ::testing::Test {
 protected:
  MadEngine makeEngine() {
    MadEngineOptions o;
    o.clock = wire.clock();
    o.logger =
        std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_st>());
    return MadEngine(wire, o);
  }
  FakeFabricTransport wire{oneSwitchTwoCas(), PortRef{1, 1}};
};

Notice trap144() {
  Notice n;
  n.type = 4;
  n.producerType = 1;
  n.trapNumber = 144;
  n.issuerLid = Lid{5};
  n.dataDetails = encodeDetails(Trap144Details{.lid = Lid{5},
                                               .capabilityMask = 0x0251086A,
                                               .changeFlags = 0x0008,
                                               .capabilityMask2 = 0x0020});
  return n;
}

TEST(Trap144Layout, SmPriorityChangeSitsWhereOpenSmReadsChangeFlags) {
  std::array<std::uint8_t, 64> ref{};
  mad_set_field(ref.data(), 0, IB_NOTICE_IS_GENERIC_F, 1);
  mad_set_field(ref.data(), 0, IB_NOTICE_TYPE_F, 4);
  mad_set_field(ref.data(), 0, IB_NOTICE_PRODUCER_F, 1);
  mad_set_field(ref.data(), 0, IB_NOTICE_TRAP_NUMBER_F, 144);
  mad_set_field(ref.data(), 0, IB_NOTICE_ISSUER_LID_F, 5);
  mad_set_field(ref.data(), 0, IB_NOTICE_DATA_144_LID_F, 5);
  mad_set_field(ref.data(), 0, IB_NOTICE_DATA_144_CAPMASK_F, 0x0251086A);
  // Details start at byte 10; CapabilityMask is details bytes 6-9, so
  // ChangeFlags (SM priority = 0x0008) is bytes 10-11, CapabilityMask2 12-13.
  ref[10 + 11] = 0x08;
  ref[10 + 13] = 0x20;
  EXPECT_EQ(encode(trap144()), ref);
  EXPECT_EQ(decodeTrap144(decodeNotice(ref)).changeFlags, 0x0008);
}

TEST_F(MadEngineTrapTest, SendsALidRoutedTrapAtOnceWithoutWaiting) {
  MadEngine engine = makeEngine();
  ASSERT_TRUE(engine.sendTrap(Lid{9}, encode(trap144())));
  ASSERT_EQ(wire.sent().size(), 1U);
  const auto& sent = wire.sent().front();
  EXPECT_EQ(sent.to.lid, Lid{9});
  EXPECT_EQ(sent.smp.header.method, Method::Trap);
  EXPECT_EQ(sent.smp.header.mgmtClass, MgmtClass::SubnLid);
  EXPECT_EQ(sent.smp.header.attributeId, AttributeId::Notice);
  EXPECT_NE(sent.smp.header.tid, 0U);
  EXPECT_EQ(decodeNotice(sent.smp.data), trap144());
  // Nothing waits for an answer: no retry, nothing outstanding.
  EXPECT_EQ(engine.outstanding(), 0U);
  EXPECT_EQ(engine.counters().traps, 1U);
  ASSERT_TRUE(engine.runUntil(wire.now() + 2s));
  EXPECT_EQ(wire.sent().size(), 1U);
}

TEST_F(MadEngineTrapTest, TwoTrapsCarryDifferentTids) {
  MadEngine engine = makeEngine();
  ASSERT_TRUE(engine.sendTrap(Lid{9}, encode(trap144())));
  ASSERT_TRUE(engine.sendTrap(Lid{9}, encode(trap144())));
  ASSERT_EQ(wire.sent().size(), 2U);
  EXPECT_NE(wire.sent()[0].smp.header.tid, wire.sent()[1].smp.header.tid);
}

TEST_F(MadEngineTrapTest, ATrapRepressIsCountedNotHandedOnAsARequest) {
  MadEngine engine = makeEngine();
  int handed = 0;
  engine.onUnsolicited([&](const IncomingSmp&) { ++handed; });
  Smp repress = Smp::lidRouted(Method::TrapRepress, AttributeId::Notice, 0);
  repress.header.tid = 1;
  wire.inject(repress, MadAddress::toLid(Lid{9}));
  ASSERT_TRUE(engine.runUntil(wire.now() + 1ms));
  EXPECT_EQ(handed, 0);
  EXPECT_EQ(engine.counters().represses, 1U);
  EXPECT_EQ(engine.counters().unsolicited, 0U);
  EXPECT_EQ(engine.counters().malformed, 0U);
  EXPECT_EQ(engine.counters().unmatched, 0U);
  EXPECT_TRUE(wire.sent().empty());
}

TEST_F(MadEngineTrapTest, ATransportThatRefusesTheTrapIsAnError) {
  MadEngine engine = makeEngine();
  wire.failNextSend();
  EXPECT_FALSE(engine.sendTrap(Lid{9}, encode(trap144())));
  EXPECT_EQ(engine.counters().sendFailures, 1U);
  EXPECT_EQ(engine.counters().traps, 0U);
}

}  // namespace
}  // namespace ibsm
