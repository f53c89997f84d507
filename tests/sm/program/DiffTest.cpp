// diff(plan, held): which Gets and Sets a subnet needs, given what it is
// known to hold (the observation and the table blocks) and what the plan wants.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>

#include <algorithm>
#include <set>

#include "sm/program/Diff.h"
#include "tests/sm/program/SubnetSnapshot.h"

namespace ibsm::sm::program {
namespace {

using testing::snapshotOf;
using testing::unprogrammed;

constexpr std::uint64_t kDefaultPrefix = 0xfe80000000000000ULL;

// sw0 --3-- sw1; ca0 on sw0 ports 1 and 2 (the SM on ca0 port 1); ca1 on sw1 port 1.
Fabric smallFabric() {
  Fabric f;
  const NodeId s0 = *f.addNode(Node::makeSwitch(Guid{0x200000}, 8, "sw0"));
  const NodeId s1 = *f.addNode(Node::makeSwitch(Guid{0x200001}, 8, "sw1"));
  const NodeId c0 =
      *f.addNode(Node::makeCa(Guid{0x100000}, {Guid{0x100001}, Guid{0x100002}}, "ca0"));
  const NodeId c1 = *f.addNode(Node::makeCa(Guid{0x100003}, {Guid{0x100004}}, "ca1"));
  EXPECT_TRUE(f.connect({s0, 1}, {c0, 1}));
  EXPECT_TRUE(f.connect({s0, 2}, {c0, 2}));
  EXPECT_TRUE(f.connect({s0, 3}, {s1, 3}));
  EXPECT_TRUE(f.connect({s1, 1}, {c1, 1}));
  return unprogrammed(std::move(f));
}

constexpr PortRef kSm{2, 1};
constexpr PortRef kSw0{0, 0};
constexpr PortRef kSw1{1, 0};
constexpr PortRef kCa0Port2{2, 2};
constexpr PortRef kCa1{3, 1};

DrPath route(std::initializer_list<std::uint8_t> ports) {
  return *DrPath::fromPorts(std::vector<std::uint8_t>(ports));
}

class DiffTest : public ::testing::Test {
 protected:
  DiffTest() : discovered(snapshotOf(smallFabric(), kSm)) {
    discovered.portInfo.at(kSm).capabilityMask |= capability::kIsSm;
  }

  SubnetPlan makePlan() const {
    PlanInputs inputs;
    inputs.engines = {"updn"};
    auto plan = planSubnet(discovered.fabric, inputs, defaultRegistry());
    EXPECT_TRUE(plan) << plan.error().message;
    return *plan;
  }
  // The held subnet as discovery now shows it, then the diff.
  ProgramDiff steps(const SubnetPlan& plan) {
    held.observe(discovered);
    auto out = diff(plan, held, options);
    EXPECT_TRUE(out) << out.error().message;
    return *out;
  }
  // PortInfo Sets of one phase, by port.
  static std::map<PortRef, PortInfo> portSets(const ProgramDiff& p, ProgramPhase phase) {
    std::map<PortRef, PortInfo> out;
    for (const ProgramStep& s : p.phase(phase)) {
      EXPECT_EQ(s.request.method, Method::Set);
      EXPECT_EQ(s.request.attributeId, AttributeId::PortInfo);
      out[std::get<PortInfoTarget>(s.target).port] = decodePortInfo(s.request.data);
    }
    return out;
  }
  static std::set<PortRef> targets(const ProgramDiff& p, ProgramPhase phase) {
    std::set<PortRef> out;
    for (const auto& [port, info] : portSets(p, phase)) out.insert(port);
    return out;
  }
  // Makes the snapshot hold exactly what the plan wants, as after a good run.
  void holdThePlan(const SubnetPlan& plan) {
    const Lid smLid = plan.fabric.port(kSm).lid;
    for (auto& [ref, pi] : discovered.portInfo) {
      const Node& node = plan.fabric.node(ref.node);
      if (!node.isSwitch() || ref.port == 0) {
        pi.lid = plan.fabric.port(ref).lid;
        pi.masterSmLid = smLid;
        pi.gidPrefix = kDefaultPrefix;
        pi.subnetTimeout = ProgramOptions{}.subnetTimeout;
      }
      if (pi.portState == PortState::Init) pi.portState = PortState::Active;
    }
    for (auto& [sw, si] : discovered.switchInfo)
      si.linearFdbTop = plan.routing.lfts[sw].top().value;
    // The switches were read back: every block holds what the plan routes.
    held.observe(discovered);
    for (const auto& [sw, si] : discovered.switchInfo) {
      const Lft& lft = plan.routing.lfts[sw];
      const Guid guid = discovered.fabric.node(sw).guid;
      for (std::uint16_t b = 0; b <= lft.top().value / 64; ++b) answerRead(sw, guid, b, lft);
    }
  }
  void answerRead(NodeId sw, Guid guid, std::uint16_t b, const Lft& lft) {
    SmpReply reply;
    reply.outcome = SmpOutcome::Ok;
    reply.smp = Smp{};
    reply.smp->data = encode(lftBlock(lft.port, b, kNoRoute));
    held.apply(ProgramStep{BlockTarget<LftKind>{sw, guid, b},
                           SmpRequest::get(AttributeId::LinearForwardingTable, b, DrPath{})},
               reply);
  }
  // A Set of the block that timed out.
  void failWrite(NodeId sw, std::uint16_t b) {
    SmpReply timedOut;
    held.apply(ProgramStep{BlockTarget<LftKind>{sw, discovered.fabric.node(sw).guid, b},
                           SmpRequest::set(AttributeId::LinearForwardingTable, b, DrPath{}, {})},
               timedOut);
  }

  discovery::DiscoveredSubnet discovered;
  HeldSubnet held;
  ProgramOptions options;
};

TEST_F(DiffTest, TheSmLidPhaseSetsTheSmsOwnPortWithItselfAsMasterSm) {
  const SubnetPlan plan = makePlan();
  const ProgramDiff p = steps(plan);
  ASSERT_EQ(p.phase(ProgramPhase::SmLid).size(), 1U);
  const ProgramStep& step = p.phase(ProgramPhase::SmLid).front();
  EXPECT_EQ(std::get<PortInfoTarget>(step.target).port, kSm);
  EXPECT_EQ(std::get<DrPath>(step.request.to), DrPath{}) << "the SM's own port is local";
  const PortInfo pi = decodePortInfo(step.request.data);
  const Lid smLid = plan.fabric.port(kSm).lid;
  EXPECT_TRUE(smLid.isUnicast());
  EXPECT_EQ(pi.lid, smLid);
  EXPECT_EQ(pi.masterSmLid, smLid);
  EXPECT_EQ(pi.gidPrefix, kDefaultPrefix);
  EXPECT_EQ(pi.portState, PortState::NoChange);
}

TEST_F(DiffTest, EveryOtherLidCarryingPortGetsItsPlannedLidAndTheSmLid) {
  const SubnetPlan plan = makePlan();
  const ProgramDiff p = steps(plan);
  auto sets = portSets(p, ProgramPhase::Lids);
  EXPECT_EQ(targets(p, ProgramPhase::Lids), (std::set<PortRef>{kSw0, kSw1}))
      << "switch link ports whose link parameters agree need no Set, CA ports coming up get "
         "their LID in the Armed Set";
  for (const auto& [port, pi] : sets) {
    EXPECT_EQ(pi.lid, plan.fabric.port(port).lid) << discovered.fabric.describe(port);
    EXPECT_EQ(pi.lmc, plan.fabric.port(port).lmc);
    EXPECT_EQ(pi.masterSmLid, plan.fabric.port(kSm).lid);
    EXPECT_EQ(pi.gidPrefix, kDefaultPrefix);
    EXPECT_EQ(pi.portState, PortState::NoChange) << "states change only in their phases";
  }
  const auto armed = portSets(p, ProgramPhase::Armed);
  for (const PortRef port : {kCa0Port2, kCa1}) {
    ASSERT_TRUE(armed.contains(port)) << discovered.fabric.describe(port);
    EXPECT_EQ(armed.at(port).lid, plan.fabric.port(port).lid);
    EXPECT_EQ(armed.at(port).masterSmLid, plan.fabric.port(kSm).lid);
    EXPECT_EQ(armed.at(port).gidPrefix, kDefaultPrefix);
  }
}

// One Set where a LID Set and an Armed Set went: a port coming up takes
// its fields with the state, unless its link parameters change (those only
// while in Init, so in a Set of their own first).
TEST_F(DiffTest, APortComingUpGetsOneSetForItsFieldsAndArmedUnlessItsLinkParametersChange) {
  const SubnetPlan plan = makePlan();
  ProgramDiff p = steps(plan);
  EXPECT_FALSE(targets(p, ProgramPhase::Lids).contains(kCa1));
  EXPECT_EQ(portSets(p, ProgramPhase::Armed).at(kCa1).portState, PortState::Armed);
  EXPECT_TRUE(targets(p, ProgramPhase::SmLid).contains(kSm)) << "every port names that LID";
  discovered.portInfo.at(kCa1).vlCap = 2;
  p = steps(plan);
  EXPECT_TRUE(targets(p, ProgramPhase::Lids).contains(kCa1));
  EXPECT_TRUE(targets(p, ProgramPhase::Armed).contains(kCa1));
}

TEST_F(DiffTest, TheSubnetPrefixComesFromTheOptions) {
  options.subnetPrefix = 0xfec0000000000001ULL;
  const ProgramDiff p = steps(makePlan());
  EXPECT_EQ(portSets(p, ProgramPhase::Armed).at(kCa1).gidPrefix, 0xfec0000000000001ULL);
}

TEST_F(DiffTest, FieldsTheSmDoesNotManageAreWrittenBackAsRead) {
  PortInfo& held = discovered.portInfo.at(kCa1);
  held.mKey = 0x1122334455667788ULL;
  held.mKeyLeasePeriod = 30;
  held.capabilityMask = capability::kIsTrapSupported | capability::kIsNoticeSupported;
  held.hoqLife = 7;
  held.subnetTimeout = 18;
  held.masterSmSl = 2;
  const ProgramDiff p = steps(makePlan());
  const PortInfo sent = portSets(p, ProgramPhase::Armed).at(kCa1);
  EXPECT_EQ(sent.mKey, held.mKey);
  EXPECT_EQ(sent.mKeyLeasePeriod, 30);
  EXPECT_EQ(sent.capabilityMask, held.capabilityMask);
  EXPECT_EQ(sent.hoqLife, 7);
  EXPECT_EQ(sent.subnetTimeout, 18);
  EXPECT_EQ(sent.masterSmSl, 2);
  // "No change" codes, so a Set never retrains the link.
  EXPECT_EQ(sent.physState, 0);
  EXPECT_EQ(sent.linkWidthEnabled, 0);
  EXPECT_EQ(sent.linkSpeedEnabled, 0);
  EXPECT_EQ(sent.linkSpeedExtEnabled, 0);
  EXPECT_EQ(sent.linkDownDefaultState, 0);
}

TEST_F(DiffTest, LinkParametersAreTheLowerOfTheTwoEndsCaps) {
  PortInfo& ca1 = discovered.portInfo.at(kCa1);
  ca1.mtuCap = 3;  // 1024
  ca1.vlCap = 2;   // VL0-1
  const ProgramDiff p = steps(makePlan());
  const auto sets = portSets(p, ProgramPhase::Lids);
  for (const PortRef end : {kCa1, PortRef{1, 1}}) {
    ASSERT_TRUE(sets.contains(end)) << discovered.fabric.describe(end);
    EXPECT_EQ(sets.at(end).neighborMtu, 3);
    EXPECT_EQ(sets.at(end).operationalVls, 2) << "OperationalVLs may not exceed either VLCap";
  }
  EXPECT_EQ(sets.at(PortRef{1, 1}).lid, discovered.portInfo.at(PortRef{1, 1}).lid)
      << "a switch link port carries no LID: the field is written back as read";
  EXPECT_FALSE(sets.contains(PortRef{0, 3})) << "the inter-switch link already agrees";
}

TEST_F(DiffTest, LinksAlreadyCarryingDataKeepTheirParameters) {
  for (const PortRef end : {kCa1, PortRef{1, 1}}) {
    discovered.portInfo.at(end).portState = PortState::Active;
  }
  discovered.portInfo.at(kCa1).vlCap = 2;
  const ProgramDiff p = steps(makePlan());
  const auto sets = portSets(p, ProgramPhase::Lids);
  EXPECT_FALSE(sets.contains(PortRef{1, 1}));
  EXPECT_EQ(sets.at(kCa1).operationalVls, discovered.portInfo.at(kCa1).operationalVls);
}

TEST_F(DiffTest, EachSwitchGetsItsPlannedTopAndEveryBlockUpToIt) {
  discovered.switchInfo.at(0).portStateChange = true;
  const SubnetPlan plan = makePlan();
  const ProgramDiff p = steps(plan);
  std::map<NodeId, SwitchInfo> tops;
  std::map<NodeId, std::set<std::uint16_t>> blocks;
  for (const ProgramStep& s : p.phase(ProgramPhase::Lfts)) {
    if (const auto* t = std::get_if<SwitchInfoTarget>(&s.target)) {
      EXPECT_EQ(s.request.attributeId, AttributeId::SwitchInfo);
      tops[t->sw] = decodeSwitchInfo(s.request.data);
    } else {
      const auto& b = std::get<BlockTarget<LftKind>>(s.target);
      EXPECT_EQ(s.request.attributeId, AttributeId::LinearForwardingTable);
      EXPECT_EQ(s.request.attributeModifier, b.index);
      EXPECT_EQ(decodeLftBlock(s.request.data),
                lftBlock(plan.routing.lfts[b.node].port, b.index, kNoRoute));
      EXPECT_EQ(std::get<DrPath>(s.request.to), discovered.pathTo[b.node]);
      blocks[b.node].insert(b.index);
    }
  }
  for (auto sw : {NodeId{0}, NodeId{1}}) {
    const Lid top = plan.routing.lfts[sw].top();
    ASSERT_TRUE(tops.contains(sw));
    EXPECT_EQ(tops[sw].linearFdbTop, top.value);
    // Switch 0 flags PortStateChange as discovery read it: its top Set
    // clears it (write 1) in passing; switch 1's writes 0, leaving it be.
    EXPECT_EQ(tops[sw].portStateChange, sw == NodeId{0}) << "the clear rides on the top Set";
    EXPECT_EQ(tops[sw].lifeTimeValue, 18) << "kept as read unless configured";
    EXPECT_EQ(blocks[sw].size(), top.value / 64U + 1U);
  }
}

TEST_F(DiffTest, BlocksAndTopsTheSwitchesAlreadyHoldAreNotSent) {
  const SubnetPlan plan = makePlan();
  holdThePlan(plan);
  EXPECT_TRUE(steps(plan).phase(ProgramPhase::Lfts).empty());
}

TEST_F(DiffTest, OnlyTheBlockThatDiffersIsSent) {
  SubnetPlan plan = makePlan();
  // Route a LID in block 2 as well, so sw0's table spans blocks 0..2.
  plan.routing.lfts[0].port.resize(150, kNoRoute);
  plan.routing.lfts[0].port[149] = 3;
  holdThePlan(plan);
  plan.routing.lfts[0].port[149] = 1;  // the plan changes one LID
  const ProgramDiff p = steps(plan);
  ASSERT_EQ(p.phase(ProgramPhase::Lfts).size(), 1U);
  const ProgramStep& step = p.phase(ProgramPhase::Lfts).front();
  const auto& b = std::get<BlockTarget<LftKind>>(step.target);
  EXPECT_EQ(b.node, 0U);
  EXPECT_EQ(b.index, 2U);
  EXPECT_EQ(decodeLftBlock(step.request.data).ports[149 - 128], 1);
}

TEST_F(DiffTest, UnknownBlocksAreSentEvenIfTheyMightAlreadyHoldThePlan) {
  const SubnetPlan plan = makePlan();
  holdThePlan(plan);
  failWrite(1, 0);
  const ProgramDiff p = steps(plan);
  ASSERT_EQ(p.phase(ProgramPhase::Lfts).size(), 1U);
  EXPECT_EQ(std::get<BlockTarget<LftKind>>(p.phase(ProgramPhase::Lfts).front().target).node, 1U);
  EXPECT_TRUE(p.phase(ProgramPhase::ReadTables).empty()) << "a block whose Set failed is not read";
}

TEST_F(DiffTest, AConfiguredLifeTimeIsWrittenEvenWhenTheTopAgrees) {
  const SubnetPlan plan = makePlan();
  holdThePlan(plan);
  options.switchLifeTime = 10;
  const ProgramDiff p = steps(plan);
  ASSERT_EQ(p.phase(ProgramPhase::Lfts).size(), 2U);
  for (const ProgramStep& s : p.phase(ProgramPhase::Lfts)) {
    const auto& t = std::get<SwitchInfoTarget>(s.target);
    const SwitchInfo si = decodeSwitchInfo(s.request.data);
    EXPECT_EQ(si.lifeTimeValue, 10);
    EXPECT_EQ(si.linearFdbTop, plan.routing.lfts[t.sw].top().value);
  }
}

// HOQLife, as OpenSM programs it: per switch external port, by what its
// cable leads to; switch port 0 and CA ports have none to set.
TEST_F(DiffTest, HoqLifeRidesOnTheStateSetsOfPortsComingUp) {
  options.headOfQueueLifetime = 18;
  options.leafHeadOfQueueLifetime = 16;
  const ProgramDiff p = steps(makePlan());
  const auto armed = portSets(p, ProgramPhase::Armed);
  const auto active = portSets(p, ProgramPhase::Active);
  for (const PortRef toSwitch : {PortRef{0, 3}, PortRef{1, 3}}) {
    ASSERT_TRUE(armed.contains(toSwitch));
    EXPECT_EQ(armed.at(toSwitch).hoqLife, 18);
    EXPECT_EQ(active.at(toSwitch).hoqLife, 18);
  }
  for (const PortRef toCa : {PortRef{0, 1}, PortRef{0, 2}, PortRef{1, 1}}) {
    ASSERT_TRUE(armed.contains(toCa));
    EXPECT_EQ(armed.at(toCa).hoqLife, 16);
  }
  for (const PortRef port : targets(p, ProgramPhase::Lids)) {
    EXPECT_FALSE(discovered.fabric.node(port.node).isSwitch() && port.port != 0)
        << discovered.fabric.describe(port) << ": no Set of its own for HOQLife alone";
  }
  for (const PortRef port : {kCa1, kSm}) EXPECT_EQ(armed.at(port).hoqLife, 0) << "left as held";
}

TEST_F(DiffTest, APortAlreadyUpGetsASetOfItsOwnOnlyWhenItsHoqLifeDiffers) {
  options.headOfQueueLifetime = 18;
  options.leafHeadOfQueueLifetime = 16;
  const SubnetPlan plan = makePlan();
  holdThePlan(plan);
  for (auto& [ref, pi] : discovered.portInfo) {
    if (discovered.fabric.node(ref.node).isSwitch() && ref.port != 0)
      pi.hoqLife =
          discovered.fabric.node(discovered.fabric.port(ref).remote->node).isSwitch() ? 18 : 16;
  }
  EXPECT_TRUE(steps(plan).phase(ProgramPhase::Lids).empty()) << "every port holds it";
  discovered.portInfo.at(PortRef{1, 3}).hoqLife = 31;
  const ProgramDiff p = steps(plan);
  const auto sets = portSets(p, ProgramPhase::Lids);
  ASSERT_EQ(sets.size(), 1U);
  EXPECT_EQ(sets.at(PortRef{1, 3}).hoqLife, 18);
  EXPECT_EQ(sets.at(PortRef{1, 3}).portState, PortState::NoChange);
  EXPECT_TRUE(p.phase(ProgramPhase::Armed).empty());
}

TEST_F(DiffTest, UnconfiguredHoqLifeIsLeftAsHeld) {
  const SubnetPlan plan = makePlan();
  holdThePlan(plan);
  discovered.portInfo.at(PortRef{1, 3}).hoqLife = 31;
  EXPECT_TRUE(steps(plan).phase(ProgramPhase::Lids).empty());
}

TEST_F(DiffTest, ASwitchWhoseTableIsTooSmallIsLeftAloneWithANote) {
  const SubnetPlan plan = makePlan();
  discovered.switchInfo.at(1).linearFdbCap = 2;
  const ProgramDiff p = steps(plan);
  for (const ProgramStep& s : p.phase(ProgramPhase::Lfts)) {
    const auto* block = std::get_if<BlockTarget<LftKind>>(&s.target);
    EXPECT_EQ(block ? block->node : std::get<SwitchInfoTarget>(s.target).sw, 0U);
  }
  ASSERT_EQ(p.notes.size(), 1U);
  EXPECT_NE(p.notes.front().find("sw1"), std::string::npos) << p.notes.front();
}

TEST_F(DiffTest, InitLinksAreArmedThenActivatedAtBothEndsAndSwitchPort0NeverIs) {
  const SubnetPlan plan = makePlan();
  const ProgramDiff p = steps(plan);
  const std::set<PortRef> linkPorts{{0, 1}, {0, 2}, {0, 3}, {1, 1}, {1, 3}, kSm, kCa0Port2, kCa1};
  EXPECT_EQ(targets(p, ProgramPhase::Armed), linkPorts);
  EXPECT_EQ(targets(p, ProgramPhase::Active), linkPorts);
  for (const auto& [port, pi] : portSets(p, ProgramPhase::Armed))
    EXPECT_EQ(pi.portState, PortState::Armed);
  for (const auto& [port, pi] : portSets(p, ProgramPhase::Active)) {
    EXPECT_EQ(pi.portState, PortState::Active);
    // A Set writes the whole PortInfo: the state Sets carry the new LID too.
    if (!discovered.fabric.node(port.node).isSwitch()) {
      EXPECT_EQ(pi.lid, plan.fabric.port(port).lid);
    }
  }
}

TEST_F(DiffTest, ArmedPortsAreOnlyActivatedAndActivePortsAreLeftAlone) {
  for (const PortRef end : {kCa1, PortRef{1, 1}}) {
    discovered.portInfo.at(end).portState = PortState::Armed;
  }
  for (const PortRef end : {PortRef{0, 3}, PortRef{1, 3}}) {
    discovered.portInfo.at(end).portState = PortState::Active;
  }
  const ProgramDiff p = steps(makePlan());
  const auto armed = targets(p, ProgramPhase::Armed);
  const auto active = targets(p, ProgramPhase::Active);
  EXPECT_FALSE(armed.contains(kCa1));
  EXPECT_TRUE(active.contains(kCa1));
  EXPECT_TRUE(active.contains(PortRef{1, 1}));
  EXPECT_FALSE(armed.contains(PortRef{0, 3}));
  EXPECT_FALSE(active.contains(PortRef{1, 3}));
}

TEST_F(DiffTest, APortWhosePeerDidNotAnswerIsNotArmed) {
  discovered.portInfo.erase(kCa1);
  const ProgramDiff p = steps(makePlan());
  EXPECT_FALSE(targets(p, ProgramPhase::Armed).contains(PortRef{1, 1}));
  EXPECT_FALSE(targets(p, ProgramPhase::Active).contains(PortRef{1, 1}));
}

TEST_F(DiffTest, ClientReregisterUnlessTurnedOffAndOnlyOnCaPortsThatSupportIt) {
  discovered.portInfo.at(kCa0Port2).capabilityMask |= capability::kIsClientReregistrationSupported;
  discovered.portInfo.at(kSw0).capabilityMask |= capability::kIsClientReregistrationSupported;
  const SubnetPlan plan = makePlan();
  options.clientReregister = false;
  EXPECT_FALSE(portSets(steps(plan), ProgramPhase::Armed).at(kCa0Port2).clientReregister);
  options.clientReregister = true;
  const ProgramDiff p = steps(plan);
  const auto sets = portSets(p, ProgramPhase::Armed);
  EXPECT_TRUE(sets.at(kCa0Port2).clientReregister) << "by its first Set, the Armed one";
  EXPECT_FALSE(portSets(p, ProgramPhase::Active).at(kCa0Port2).clientReregister) << "once";
  EXPECT_FALSE(sets.at(kCa1).clientReregister);
  EXPECT_FALSE(portSets(p, ProgramPhase::Lids).at(kSw0).clientReregister);
}

TEST_F(DiffTest, AnSmPortWithoutIsSmIsNoted) {
  const SubnetPlan plan = makePlan();
  EXPECT_TRUE(steps(plan).notes.empty());
  discovered.portInfo.at(kSm).capabilityMask &= ~capability::kIsSm;
  const auto notes = steps(plan).notes;
  ASSERT_EQ(notes.size(), 1U);
  EXPECT_NE(notes.front().find("IsSM"), std::string::npos);
}

TEST_F(DiffTest, ASubnetThatHoldsThePlanNeedsNothing) {
  const SubnetPlan plan = makePlan();
  holdThePlan(plan);
  const ProgramDiff p = steps(plan);
  for (std::size_t i = 0; i < kProgramPhases; ++i) {
    EXPECT_TRUE(p.phases[i].empty()) << phaseName(static_cast<ProgramPhase>(i));
  }
}

TEST_F(DiffTest, APlanMadeForOtherNodesIsRefused) {
  SubnetPlan plan = makePlan();
  plan.fabric.node(3).guid = Guid{0x999};
  held.observe(discovered);
  auto out = diff(plan, held, options);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("plan again"), std::string::npos);
}

TEST_F(DiffTest, NothingObservedIsRefused) {
  auto out = diff(makePlan(), HeldSubnet{}, options);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("nothing observed"), std::string::npos);
}

// A switch that already forwards (another SM programmed it): the blocks the
// plan writes are read first, so that only those that differ are written.
TEST_F(DiffTest, BlocksOfARunningSwitchAreReadBeforeTheyAreWritten) {
  const SubnetPlan plan = makePlan();
  const Lid top = plan.routing.lfts[1].top();
  discovered.switchInfo.at(1).linearFdbTop = top.value;
  const ProgramDiff p = steps(plan);
  std::set<std::uint16_t> reads;
  for (const ProgramStep& s : p.phase(ProgramPhase::ReadTables)) {
    EXPECT_EQ(s.request.method, Method::Get);
    const auto& b = std::get<BlockTarget<LftKind>>(s.target);
    EXPECT_EQ(b.node, 1U) << "sw0 forwards nothing (top 0): nothing to read";
    reads.insert(b.index);
  }
  EXPECT_EQ(reads.size(), top.value / 64U + 1U);
  // Once read back and found as planned, nothing is written.
  for (const std::uint16_t b : reads)
    answerRead(1, discovered.fabric.node(1).guid, b, plan.routing.lfts[1]);
  const auto writes = diff(plan, held, options);
  ASSERT_TRUE(writes);
  for (const ProgramStep& s : writes->phase(ProgramPhase::Lfts)) {
    if (const auto* b = std::get_if<BlockTarget<LftKind>>(&s.target)) {
      EXPECT_NE(b->node, 1U);
    }
  }
  EXPECT_TRUE(writes->phase(ProgramPhase::ReadTables).empty());
}

TEST_F(DiffTest, RoutesEnterCaPortsThroughTheirOwnCable) {
  EXPECT_EQ(pathToPort(discovered, kSm), DrPath{});
  EXPECT_EQ(pathToPort(discovered, PortRef{0, 5}), route({1}));
  EXPECT_EQ(pathToPort(discovered, PortRef{1, 0}), route({1, 3}));
  // ca0 port 2: out of the SM's port to sw0, back out of sw0 port 2.
  EXPECT_EQ(pathToPort(discovered, kCa0Port2), route({1, 2}));
  EXPECT_EQ(pathToPort(discovered, kCa1), route({1, 3, 1}));
  discovered.fabric.disconnect(kCa1);
  EXPECT_EQ(pathToPort(discovered, kCa1), std::nullopt);
}

// M_Key protection (issue 29): written with the PortInfo Sets of CA ports
// and switch port 0 only (IBA 14.2.4: a switch's external ports are checked
// against port 0's key); a port that holds it is sent nothing for it; one
// that acknowledged it but keeps no key (ibsim) is not asked again.
class DiffMKeyTest : public DiffTest {
 protected:
  DiffMKeyTest() {
    options.mKeys = security::KeyScheme::single(0x5EC2E7);
    options.mKeyProtectBits = 1;
    options.mKeyLeaseSeconds = 60;
  }
};

TEST_F(DiffMKeyTest, CaPortsAndSwitchPortZeroAreGivenTheirKeyProtectBitsAndLease) {
  const ProgramDiff p = steps(makePlan());
  std::map<PortRef, PortInfo> sets = portSets(p, ProgramPhase::Lids);
  for (const auto& [port, info] : portSets(p, ProgramPhase::SmLid)) sets[port] = info;
  for (const auto& [port, info] : portSets(p, ProgramPhase::Armed)) sets.try_emplace(port, info);
  for (const PortRef port : {kSm, kSw0, kSw1, kCa0Port2, kCa1}) {
    ASSERT_TRUE(sets.contains(port)) << discovered.fabric.describe(port);
    EXPECT_EQ(sets.at(port).mKey, 0x5EC2E7u);
    EXPECT_EQ(sets.at(port).mKeyProtectBits, 1);
    EXPECT_EQ(sets.at(port).mKeyLeasePeriod, 60);
  }
  const PortRef link{0, 3};
  ASSERT_TRUE(sets.contains(link));
  EXPECT_EQ(sets.at(link).mKey, 0u);
  EXPECT_EQ(sets.at(link).mKeyProtectBits, 0);
}

TEST_F(DiffMKeyTest, APortThatHoldsThePlanButNotItsKeyGetsASetOfItsKeyAlone) {
  const SubnetPlan plan = makePlan();
  holdThePlan(plan);
  const ProgramDiff p = steps(plan);
  ASSERT_EQ(p.phase(ProgramPhase::Lids).size() + p.phase(ProgramPhase::SmLid).size(), 5u);
  for (const ProgramStep& s : p.phase(ProgramPhase::Lids))
    EXPECT_TRUE(std::get<PortInfoTarget>(s.target).keyOnly);
  EXPECT_TRUE(p.phase(ProgramPhase::Armed).empty());
}

TEST_F(DiffMKeyTest, APortThatHoldsItsKeyIsSentNothing) {
  const SubnetPlan plan = makePlan();
  for (auto& [ref, pi] : discovered.portInfo) {
    pi.mKey = 0x5EC2E7;
    pi.mKeyProtectBits = 1;
    pi.mKeyLeasePeriod = 60;
  }
  holdThePlan(plan);
  const ProgramDiff p = steps(plan);
  for (std::size_t i = 0; i < kProgramPhases; ++i)
    EXPECT_TRUE(p.phases[i].empty()) << phaseName(static_cast<ProgramPhase>(i));
}

TEST_F(DiffMKeyTest, APortThatAcknowledgedItsKeyButKeepsNoneIsNotAskedAgain) {
  const SubnetPlan plan = makePlan();
  holdThePlan(plan);
  const ProgramDiff first = steps(plan);
  for (const ProgramStep& s : first.phase(ProgramPhase::Lids)) {
    Smp answer;
    answer.header.attributeId = AttributeId::PortInfo;
    answer.data = s.request.data;
    PortInfo kept = decodePortInfo(s.request.data);
    kept.mKey = 0;
    kept.mKeyProtectBits = 0;  // as ibsim answers
    kept.mKeyLeasePeriod = 0;
    answer.data = encode(kept);
    held.apply(s, SmpReply{.outcome = SmpOutcome::Ok, .smp = answer});
  }
  auto again = diff(plan, held, options);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->phase(ProgramPhase::Lids).empty());
}

}  // namespace
}  // namespace ibsm::sm::program
