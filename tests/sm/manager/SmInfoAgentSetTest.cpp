// The SM's answers to SubnSet(SMInfo) control packets and traps: the
// daemon's handler gives the verdict, the agent keeps the wire rules (SM_Key,
// which status, repress every trap).
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include "sm/manager/SmInfoAgent.h"
#include "tests/sm/support/FakeFabricTransport.h"

namespace ibsm::sm::manager {
namespace {

using namespace std::chrono_literals;
using testing::FakeFabricTransport;

Fabric oneSwitch() {
  Fabric f;
  const NodeId sw = *f.addNode(Node::makeSwitch(Guid{0x200}, 4, "sw"));
  const NodeId a = *f.addNode(Node::makeCa(Guid{0x100}, {Guid{0x101}}, "a"));
  EXPECT_TRUE(f.connect({sw, 1}, {a, 1}));
  return f;
}

constexpr std::uint64_t kKey = 0xC0FFEE;

class SmInfoAgentSetTest : public ::testing::Test {
 protected:
  SmInfoAgentSetTest() {
    MadEngineOptions o;
    o.clock = wire.clock();
    o.logger = log;
    engine.emplace(wire, o);
    agent.emplace(*engine,
                  SmInfo{.guid = Guid{0x101},
                         .smKey = kKey,
                         .actCount = 0,
                         .priority = 2,
                         .smState = SmState::Standby},
                  log);
  }
  // Another SM's Set(SMInfo) with `control`, presenting `key`.
  void receiveSet(std::uint32_t control, std::uint64_t key) {
    Smp set = Smp::lidRouted(Method::Set, AttributeId::SmInfo, control);
    set.header.tid = 77;
    set.data = encode(SmInfo{
        .guid = Guid{0xB}, .smKey = key, .actCount = 0, .priority = 9, .smState = SmState::Master});
    wire.inject(set, MadAddress::toLid(Lid{3}));
    ASSERT_TRUE(engine->runUntil(wire.now() + 1ms));
  }
  void receiveTrap(std::uint16_t number, Lid issuer) {
    Smp trap = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
    trap.header.tid = 5;
    Notice n;
    n.trapNumber = number;
    n.issuerLid = issuer;
    trap.data = encode(n);
    wire.inject(trap, MadAddress::toLid(Lid{8}));
    ASSERT_TRUE(engine->runUntil(wire.now() + 1ms));
  }

  std::shared_ptr<spdlog::logger> log =
      std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_st>());
  FakeFabricTransport wire{oneSwitch(), PortRef{1, 1}};
  std::optional<MadEngine> engine;
  std::optional<SmInfoAgent> agent;
};

TEST_F(SmInfoAgentSetTest, AnAcceptedControlIsAnsweredWithOurSmInfoAsTheHandlerLeftIt) {
  std::vector<std::pair<std::uint32_t, SmInfo>> calls;
  agent->onSmInfoSet([&](std::uint32_t modifier, const SmInfo& sender) -> std::optional<bool> {
    calls.emplace_back(modifier, sender);
    agent->setState(SmState::Master);  // a handover: we take over
    return true;
  });
  receiveSet(1, kKey);

  ASSERT_EQ(calls.size(), 1U);
  EXPECT_EQ(calls[0].first, 1U);
  EXPECT_EQ(calls[0].second.guid, Guid{0xB});
  ASSERT_EQ(wire.sent().size(), 1U);
  const Smp& resp = wire.sent()[0].smp;
  EXPECT_EQ(resp.header.method, Method::GetResp);
  EXPECT_EQ(resp.header.status, 0);
  EXPECT_EQ(resp.header.tid, 77U);
  EXPECT_EQ(resp.header.attributeModifier, 1U);
  EXPECT_EQ(decodeSmInfo(resp.data).smState, SmState::Master);
  EXPECT_EQ(wire.sent()[0].to.lid, Lid{3});
}

TEST_F(SmInfoAgentSetTest, ARefusedControlGetsInvalidField) {
  agent->onSmInfoSet([](std::uint32_t, const SmInfo&) -> std::optional<bool> { return false; });
  receiveSet(2, kKey);
  ASSERT_EQ(wire.sent().size(), 1U);
  EXPECT_EQ(wire.sent()[0].smp.header.method, Method::GetResp);
  EXPECT_EQ(wire.sent()[0].smp.header.status, madstatus::kInvalidField);
}

TEST_F(SmInfoAgentSetTest, NoVerdictMeansNoAnswer) {
  int calls = 0;
  agent->onSmInfoSet([&](std::uint32_t, const SmInfo&) -> std::optional<bool> {
    ++calls;
    return std::nullopt;
  });
  receiveSet(1, kKey);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(wire.sent().empty());
}

TEST_F(SmInfoAgentSetTest, AWrongSmKeyNeverReachesTheHandlerAndIsNotAnswered) {
  int calls = 0;
  agent->onSmInfoSet([&](std::uint32_t, const SmInfo&) -> std::optional<bool> {
    ++calls;
    return true;
  });
  receiveSet(1, kKey + 1);
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(wire.sent().empty());
}

TEST_F(SmInfoAgentSetTest, AReloadedSmKeyIsTheOneChecked) {
  int calls = 0;
  agent->onSmInfoSet([&](std::uint32_t, const SmInfo&) -> std::optional<bool> {
    ++calls;
    return true;
  });
  agent->setSmKey(0x55);
  receiveSet(1, kKey);
  EXPECT_EQ(calls, 0);
  receiveSet(1, 0x55);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(agent->self().smKey, 0x55U);
}

TEST_F(SmInfoAgentSetTest, WithoutAHandlerASetIsRefusedAsUnsupported) {
  receiveSet(1, kKey);
  ASSERT_EQ(wire.sent().size(), 1U);
  EXPECT_EQ(wire.sent()[0].smp.header.status, madstatus::kMethodAttrUnsupported);
}

TEST_F(SmInfoAgentSetTest, AGetShowsTheReloadedPriority) {
  agent->setPriority(14);
  Smp get = Smp::lidRouted(Method::Get, AttributeId::SmInfo, 0);
  SmInfo asker;
  asker.smKey = kKey;
  get.data = encode(asker);
  wire.inject(get, MadAddress::toLid(Lid{3}));
  ASSERT_TRUE(engine->runUntil(wire.now() + 1ms));
  ASSERT_EQ(wire.sent().size(), 1U);
  const SmInfo answer = decodeSmInfo(wire.sent()[0].smp.data);
  EXPECT_EQ(answer.priority, 14);
  EXPECT_EQ(answer.smKey, kKey);
}

TEST_F(SmInfoAgentSetTest, ATrapIsRepressedAndReportedWithItsNumberAndIssuer) {
  std::vector<std::pair<std::uint16_t, Lid>> traps;
  agent->onTrap([&](const Notice& notice, const TrapOrigin& from) {
    traps.emplace_back(notice.trapNumber, from.issuer);
    return true;
  });
  receiveTrap(144, Lid{21});
  receiveTrap(128, Lid{});  // no issuer: the MAD's source LID stands in

  ASSERT_EQ(traps.size(), 2U);
  EXPECT_EQ(traps[0], (std::pair<std::uint16_t, Lid>{144, Lid{21}}));
  EXPECT_EQ(traps[1], (std::pair<std::uint16_t, Lid>{128, Lid{8}}));
  ASSERT_EQ(wire.sent().size(), 2U);
  EXPECT_EQ(wire.sent()[0].smp.header.method, Method::TrapRepress);
  EXPECT_TRUE(agent->takeSweepRequest());
  EXPECT_TRUE(agent->takeLinkChange());
}

TEST_F(SmInfoAgentSetTest, Trap144AsksForASweepButIsNoLinkChange) {
  receiveTrap(144, Lid{21});
  EXPECT_TRUE(agent->takeSweepRequest());
  EXPECT_FALSE(agent->takeLinkChange());
}

}  // namespace
}  // namespace ibsm::sm::manager

namespace ibsm::sm::manager {
namespace {

// OpenSM takes an SM whose SMInfo shows another SM_Key for one of another
// domain (ERR 2F18): the key is shown to every requester that passes M_Key
// authentication, and with no M_Key on our port that is every requester.
TEST_F(SmInfoAgentSetTest, AGetShowsTheSmKeyUnlessMKeyAuthenticationFails) {
  Smp get = Smp::lidRouted(Method::Get, AttributeId::SmInfo, 0);
  get.data = encode(SmInfo{});  // presents no key, as OpenSM's Get does
  wire.inject(get, MadAddress::toLid(Lid{3}));
  ASSERT_TRUE(engine->runUntil(wire.now() + 1ms));
  ASSERT_EQ(wire.sent().size(), 1U);
  EXPECT_EQ(decodeSmInfo(wire.sent()[0].smp.data).smKey, kKey);

  agent->setPortMKey(0x1234);
  wire.inject(get, MadAddress::toLid(Lid{3}));
  ASSERT_TRUE(engine->runUntil(wire.now() + 1ms));
  ASSERT_EQ(wire.sent().size(), 2U);
  EXPECT_EQ(decodeSmInfo(wire.sent()[1].smp.data).smKey, 0U);
}

TEST_F(SmInfoAgentSetTest, AHandoverWithoutAnyKeyReachesTheHandlerButADisableDoesNot) {
  std::vector<std::uint32_t> seen;
  agent->onSmInfoSet([&](std::uint32_t modifier, const SmInfo&) -> std::optional<bool> {
    seen.push_back(modifier);
    return true;
  });
  receiveSet(3, 0);  // DISABLE without the key: silence
  receiveSet(1, 0);  // HANDOVER as OpenSM sends it to a standby
  EXPECT_EQ(seen, std::vector<std::uint32_t>{1});
}

}  // namespace
}  // namespace ibsm::sm::manager
