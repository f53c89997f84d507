// The held subnet: what an observation and each reply make the SM believe
// the devices hold. Its invariants, one test each: a failed Set leaves the
// block unknown (Stale: written again, unread); a node that lost its LID
// forgets its tables; a reply proves exactly what it carries.
#include <gtest/gtest.h>
#include <ibsm/Routing.h>

#include "sm/program/HeldSubnet.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/support/FabricBuilder.h"

namespace ibsm::sm::program {
namespace {

using enum BlockState;

// sw0 - sw1, with host h0 (the SM's) on sw0 and h1 on sw1.
struct Subnet {
  Subnet() {
    testing::FabricBuilder b;
    sw0 = b.addSwitch("sw0", 8);
    sw1 = b.addSwitch("sw1", 8);
    b.cable("sw0", 1, "sw1", 1);
    h0 = b.addHost("h0", "sw0", 2);
    h1 = b.addHost("h1", "sw1", 2);
    seen = testing::snapshotOf(b.build(), PortRef{h0, 1});
  }
  Guid guid(NodeId n) const { return seen.fabric.node(n).guid; }
  void top(NodeId sw, std::uint16_t value) { seen.switchInfo.at(sw).linearFdbTop = value; }

  NodeId sw0{}, sw1{}, h0{}, h1{};
  discovery::DiscoveredSubnet seen;
};

LftBlock lftOf(std::uint8_t port) {
  LftBlock b;
  b.ports.fill(port);
  return b;
}
PKeyBlock pkeysOf(std::uint16_t first) {
  PKeyBlock b;
  b.pkeys[0] = first;
  return b;
}
SlToVlTable allTo(std::uint8_t vl) {
  SlToVlTable t;
  t.vl.fill(vl);
  return t;
}

SmpReply answered(const SmpData& data) {
  SmpReply r;
  r.outcome = SmpOutcome::Ok;
  r.smp = Smp{};
  r.smp->data = data;
  return r;
}
SmpReply timedOut() {
  SmpReply r;
  r.outcome = SmpOutcome::Timeout;
  r.attempts = 4;
  return r;
}

template <typename Kind, typename Block>
ProgramStep setOf(BlockTarget<Kind> target, const Block& asked) {
  return ProgramStep{
      target, SmpRequest::set(AttributeId::LinearForwardingTable, 0, DrPath{}, encode(asked))};
}
template <typename Kind>
ProgramStep getOf(BlockTarget<Kind> target) {
  return ProgramStep{target, SmpRequest::get(AttributeId::LinearForwardingTable, 0, DrPath{})};
}
ProgramStep topSet(NodeId sw, const SwitchInfo& asked) {
  return ProgramStep{SwitchInfoTarget{sw, Lid{asked.linearFdbTop}, Lid{asked.multicastFdbTop}},
                     SmpRequest::set(AttributeId::SwitchInfo, 0, DrPath{}, encode(asked))};
}
ProgramStep portSet(PortRef port, const PortInfo& asked) {
  return ProgramStep{PortInfoTarget{port},
                     SmpRequest::set(AttributeId::PortInfo, port.port, DrPath{}, encode(asked))};
}

// --- LFTs: what an observation makes of a switch -------------------------

TEST(HeldLfts, ASwitchWithLinearFdbTopZeroForwardsNothingAndNeedsNoReads) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const auto& lfts = held.table<LftKind>();
  EXPECT_EQ(lfts.state(s.guid(s.sw0), 0), Known);
  EXPECT_EQ(lfts.block(s.guid(s.sw0), 767), lftOf(kNoRoute));
}

TEST(HeldLfts, ARunningSwitchHasItsBlocksUpToLinearFdbTopUnknownAndThoseBeyondStale) {
  Subnet s;
  s.top(s.sw0, 130);  // LIDs 0..130 span blocks 0, 1 and 2
  HeldSubnet held;
  held.observe(s.seen);
  const auto& lfts = held.table<LftKind>();
  for (std::uint16_t b : {0, 1, 2}) EXPECT_EQ(lfts.state(s.guid(s.sw0), b), Unknown) << b;
  EXPECT_EQ(lfts.state(s.guid(s.sw0), 3), Stale) << "beyond the top: unknown, not empty";
}

TEST(HeldLfts, ASwitchProgrammedByAnotherSmHasEveryBlockStaleToBeWrittenUnread) {
  Subnet s;
  s.top(s.sw0, 130);
  s.top(s.sw1, 130);
  s.seen.portInfo.at(PortRef{s.h0, 1}).lid = Lid{7};  // this SM's port
  s.seen.portInfo.at(PortRef{s.sw0, 0}).masterSmLid = Lid{9};
  s.seen.portInfo.at(PortRef{s.sw1, 0}).masterSmLid = Lid{7};
  HeldSubnet held;
  held.observe(s.seen);
  const auto& lfts = held.table<LftKind>();
  for (std::uint16_t b : {0, 1, 2, 3}) EXPECT_EQ(lfts.state(s.guid(s.sw0), b), Stale) << b;
  EXPECT_EQ(lfts.state(s.guid(s.sw1), 0), Unknown) << "this SM's own tables (a restart): read";
}

TEST(HeldLfts, ASwitchSeenAgainWithTheTopItWasLeftWithKeepsWhatWasKnown) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const Guid sw = s.guid(s.sw0);
  held.apply(setOf(BlockTarget<LftKind>{s.sw0, sw, 0}, lftOf(1)), answered(encode(lftOf(1))));
  SwitchInfo top = s.seen.switchInfo.at(s.sw0);
  top.linearFdbTop = 40;
  held.apply(topSet(s.sw0, top), answered(encode(top)));
  EXPECT_EQ(held.lftTop(sw), Lid{40});
  s.top(s.sw0, 40);
  held.observe(s.seen);
  EXPECT_EQ(held.table<LftKind>().block(sw, 0), lftOf(1));
  EXPECT_EQ(held.table<LftKind>().block(sw, 1), lftOf(kNoRoute));
}

TEST(HeldLfts, ASwitchWhoseTopIsNotWhatWasWrittenIsTakenAfresh) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const Guid sw = s.guid(s.sw0);
  held.apply(setOf(BlockTarget<LftKind>{s.sw0, sw, 0}, lftOf(1)), answered(encode(lftOf(1))));
  s.top(s.sw0, 70);  // someone else programmed it: read it again
  held.observe(s.seen);
  EXPECT_EQ(held.table<LftKind>().state(sw, 0), Unknown);
  EXPECT_EQ(held.table<LftKind>().state(sw, 1), Unknown);
  s.top(s.sw0, 0);  // it rebooted: a rebooted switch forwards nothing
  held.observe(s.seen);
  EXPECT_EQ(held.table<LftKind>().block(sw, 0), lftOf(kNoRoute));
}

TEST(HeldLfts, AnUncertainTopAcceptsWhatTheSwitchReportsAndKeepsTheBlocks) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const Guid sw = s.guid(s.sw0);
  held.apply(setOf(BlockTarget<LftKind>{s.sw0, sw, 0}, lftOf(2)), answered(encode(lftOf(2))));
  SwitchInfo top = s.seen.switchInfo.at(s.sw0);
  top.linearFdbTop = 63;
  held.apply(topSet(s.sw0, top), timedOut());  // old top or new
  EXPECT_EQ(held.lftTop(sw), std::nullopt);
  s.top(s.sw0, 63);
  held.observe(s.seen);
  EXPECT_EQ(held.table<LftKind>().block(sw, 0), lftOf(2));
  s.top(s.sw0, 200);  // from now on the top is known again
  held.observe(s.seen);
  EXPECT_EQ(held.table<LftKind>().state(sw, 0), Unknown);
}

// --- MFTs: written outright on first sight, forgotten when rebooted ------

MftBlock mftOf(std::uint16_t mask) {
  MftBlock b;
  b.masks[0] = mask;
  return b;
}

TEST(HeldMfts, ASwitchSeenForTheFirstTimeHasEveryBlockStaleToBeWrittenUnread) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const auto& mfts = held.table<MftKind>();
  EXPECT_EQ(mfts.state(s.guid(s.sw0), mftIndex(0, 0)), Stale);
  EXPECT_EQ(mfts.state(s.guid(s.sw0), mftIndex(511, 15)), Stale);
  EXPECT_EQ(mfts.blocks(s.guid(s.sw0)), 0U);
}

TEST(HeldMfts, WhatWasWrittenIsKeptUntilTheSwitchRebootsOrIsProgrammedByAnother) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const Guid sw = s.guid(s.sw1);
  const BlockTarget<MftKind> block{.node = s.sw1, .owner = sw, .index = mftIndex(1, 0)};
  held.apply(setOf(block, mftOf(0x6)), answered(encode(mftOf(0x6))));
  held.observe(s.seen);
  EXPECT_EQ(held.table<MftKind>().block(sw, mftIndex(1, 0)), mftOf(0x6));
  EXPECT_EQ(held.table<MftKind>().state(sw, mftIndex(0, 0)), Stale) << "never written";

  s.seen.portInfo.at({s.sw1, 0}).lid = Lid{};  // sw1 rebooted
  held.observe(s.seen);
  EXPECT_EQ(held.table<MftKind>().state(sw, mftIndex(1, 0)), Stale);

  s.seen.portInfo.at({s.sw1, 0}).lid = Lid{2};
  held.observe(s.seen);
  held.apply(setOf(block, mftOf(0x6)), answered(encode(mftOf(0x6))));
  s.top(s.sw1, 70);  // someone else programmed it
  held.observe(s.seen);
  EXPECT_EQ(held.table<MftKind>().state(sw, mftIndex(1, 0)), Stale);
}

TEST(HeldMfts, AFailedWriteLeavesATrackedStaleBlock) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const Guid sw = s.guid(s.sw0);
  const BlockTarget<MftKind> block{.node = s.sw0, .owner = sw, .index = mftIndex(0, 0)};
  held.apply(setOf(block, mftOf(0x6)), answered(encode(mftOf(0x6))));
  held.apply(setOf(block, mftOf(0x2)), timedOut());
  EXPECT_EQ(held.table<MftKind>().state(sw, mftIndex(0, 0)), Stale);
  // Tracked: the diff clears it before it grows (it may hold either).
  EXPECT_GT(held.table<MftKind>().blocks(sw), mftIndex(0, 0));
}

// --- the invariants --------------------------------------------------------

TEST(HeldInvariants, AFailedSetLeavesTheBlockUnknownToBeWrittenAgainUnread) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const PortKey port{s.guid(s.h1), 1};
  const BlockTarget<PKeyKind> block{.node = s.h1, .owner = port, .index = 0, .count = 2};
  held.apply(setOf(block, pkeysOf(0xffff)), answered(encode(pkeysOf(0xffff))));
  ASSERT_EQ(held.table<PKeyKind>().block(port, 0), pkeysOf(0xffff));
  held.apply(setOf(block, pkeysOf(0x8001)), timedOut());
  EXPECT_EQ(held.table<PKeyKind>().block(port, 0), std::nullopt);
  EXPECT_EQ(held.table<PKeyKind>().state(port, 0), Stale);
  const BlockTarget<LftKind> lft{s.sw1, s.guid(s.sw1), 0};
  held.apply(setOf(lft, lftOf(3)), timedOut());
  EXPECT_EQ(held.table<LftKind>().state(s.guid(s.sw1), 0), Stale);
}

TEST(HeldInvariants, ANodeThatLostItsLidForgetsItsTablesAndItsQuirk) {
  Subnet s;
  s.seen.switchInfo.at(s.sw1).partitionEnforcementCap = 32;  // one block per external port
  HeldSubnet held;
  held.observe(s.seen);
  const Guid sw = s.guid(s.sw1);
  held.apply(setOf(BlockTarget<PKeyKind>{s.sw1, PortKey{sw, 2}, 0, 1}, pkeysOf(1)),
             answered(encode(pkeysOf(1))));
  held.apply(setOf(BlockTarget<Sl2VlKind>{s.sw1, PortPairKey{sw, 1, 2}, 0, 1}, allTo(1)),
             answered(encode(allTo(1))));
  PortInfo asked = s.seen.portInfo.at({s.sw1, 2});
  asked.partitionEnforcementInbound = asked.partitionEnforcementOutbound = true;
  EXPECT_TRUE(
      held.apply(portSet({s.sw1, 2}, asked), answered(encode(s.seen.portInfo.at({s.sw1, 2})))));
  const PortKey h1{s.guid(s.h1), 1};
  held.apply(setOf(BlockTarget<PKeyKind>{s.h1, h1, 0, 2}, pkeysOf(2)),
             answered(encode(pkeysOf(2))));

  held.observe(s.seen);  // nothing lost: all kept
  EXPECT_EQ(held.table<PKeyKind>().block(PortKey{sw, 2}, 0), pkeysOf(1));
  s.seen.portInfo.at({s.sw1, 0}).lid = Lid{};  // sw1 rebooted
  held.observe(s.seen);
  EXPECT_FALSE(held.table<PKeyKind>().has(PortKey{sw, 2}));
  EXPECT_FALSE(held.table<Sl2VlKind>().has(PortPairKey{sw, 1, 2}));
  EXPECT_FALSE(held.ignoresEnforcement(PortKey{sw, 2}));
  EXPECT_EQ(held.table<PKeyKind>().block(h1, 0), pkeysOf(2)) << "other nodes keep theirs";
  s.seen.portInfo.at({s.h1, 1}).lid = Lid{};  // a CA port reset
  held.observe(s.seen);
  EXPECT_FALSE(held.table<PKeyKind>().has(h1));
}

TEST(HeldInvariants, AReplyProvesExactlyWhatItCarriesNotWhatWasAsked) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const PortKey port{s.guid(s.h1), 1};
  const BlockTarget<PKeyKind> block{s.h1, port, 0, 2};
  held.apply(setOf(block, pkeysOf(0x8001)), answered(encode(pkeysOf(0x7fff))));
  EXPECT_EQ(held.table<PKeyKind>().block(port, 0), pkeysOf(0x7fff));
  EXPECT_EQ(held.table<PKeyKind>().state(port, 1), Unknown) << "the other block is untouched";
  held.apply(getOf(BlockTarget<PKeyKind>{s.h1, port, 1, 2}), answered(encode(pkeysOf(5))));
  EXPECT_EQ(held.table<PKeyKind>().block(port, 1), pkeysOf(5));

  PortInfo asked = s.seen.portInfo.at({s.h1, 1});
  asked.lid = Lid{9};
  PortInfo now = asked;
  now.lid = Lid{8};
  now.portState = PortState::Armed;
  held.apply(portSet({s.h1, 1}, asked), answered(encode(now)));
  EXPECT_EQ(held.observed().portInfo.at({s.h1, 1}).lid, Lid{8});
  EXPECT_EQ(held.observed().fabric.port({s.h1, 1}).lid, Lid{8});
  EXPECT_EQ(held.observed().fabric.port({s.h1, 1}).state, PortState::Armed);
}

TEST(HeldInvariants, AFailedPortInfoSetChangesNothingHeld) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  PortInfo asked = s.seen.portInfo.at({s.h1, 1});
  const Lid before = asked.lid;
  asked.lid = Lid{9};
  EXPECT_FALSE(held.apply(portSet({s.h1, 1}, asked), timedOut()));
  EXPECT_EQ(held.observed().portInfo.at({s.h1, 1}).lid, before);
}

// --- PKeys, SL2VL, the quirk, forget ---------------------------------------

TEST(HeldPKeys, APortReportingAnotherCapacityIsTakenAfresh) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const PortKey port{s.guid(s.h1), 1};
  held.apply(getOf(BlockTarget<PKeyKind>{s.h1, port, 0, 2}), answered(encode(pkeysOf(1))));
  held.observe(s.seen);  // PartitionCap 64: still 2 blocks
  EXPECT_EQ(held.table<PKeyKind>().block(port, 0), pkeysOf(1));
  s.seen.fabric.node(s.h1).partitionCap = 128;
  held.observe(s.seen);
  EXPECT_FALSE(held.table<PKeyKind>().has(port));
}

TEST(HeldSl2Vl, EachPortPairIsItsOwnTable) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const Guid sw = s.guid(s.sw0);
  held.apply(setOf(BlockTarget<Sl2VlKind>{s.sw0, PortPairKey{sw, 1, 2}}, allTo(1)),
             answered(encode(allTo(1))));
  EXPECT_EQ(held.table<Sl2VlKind>().block(PortPairKey{sw, 1, 2}, 0), allTo(1));
  EXPECT_EQ(held.table<Sl2VlKind>().state(PortPairKey{sw, 2, 1}, 0), Unknown)
      << "(2, 1) is not (1, 2)";
}

TEST(HeldSl2Vl, ANodeNoSmConfiguredHasItsTablesWrittenUnreadUntilItHoldsALid) {
  // No LID and no M_Key: as its reset left it, tables the vendor's own; a
  // Get would cost what the Set does and be followed by it.
  Subnet s;
  s.seen.portInfo.at({s.sw1, 0}).lid = Lid{};
  s.seen.portInfo.at({s.h1, 1}).lid = Lid{};
  HeldSubnet held;
  held.observe(s.seen);
  const PortPairKey sw1Table{s.guid(s.sw1), 1, 2};
  const PortPairKey sw1FromPort0{s.guid(s.sw1), 0, 2};
  const PortPairKey h1Table{s.guid(s.h1), 0, 1};
  EXPECT_EQ(held.state<Sl2VlKind>(sw1Table, 0), Stale);
  EXPECT_EQ(held.state<Sl2VlKind>(sw1FromPort0, 0), Stale);
  EXPECT_EQ(held.state<Sl2VlKind>(h1Table, 0), Stale);
  EXPECT_EQ(held.state<Sl2VlKind>(PortPairKey{s.guid(s.sw0), 1, 2}, 0), Unknown)
      << "sw0 holds a LID: an SM configured it";
  EXPECT_EQ(held.state<Sl2VlKind>(PortPairKey{s.guid(s.h0), 0, 1}, 0), Unknown);

  held.apply(setOf(BlockTarget<Sl2VlKind>{s.sw1, sw1Table}, allTo(1)), answered(encode(allTo(1))));
  EXPECT_EQ(held.state<Sl2VlKind>(sw1Table, 0), Known);

  // Holding a LID: a table not written since is read first, as after a
  // restart; and so is one of a port with an M_Key and no LID (some SM
  // configured it).
  s.seen.portInfo.at({s.sw1, 0}).lid = Lid{7};
  s.seen.portInfo.at({s.h1, 1}).mKey = 0x1234;
  held.observe(s.seen);
  EXPECT_EQ(held.state<Sl2VlKind>(sw1FromPort0, 0), Unknown);
  EXPECT_EQ(held.state<Sl2VlKind>(sw1Table, 0), Known) << "what was written is kept";
  EXPECT_EQ(held.state<Sl2VlKind>(h1Table, 0), Unknown);
}

TEST(HeldQuirk, ASwitchPortThatKeepsItsEnforcementBitsIsToldOnceAndRemembered) {
  Subnet s;
  HeldSubnet held;
  held.observe(s.seen);
  const PortRef edge{s.sw1, 2};
  PortInfo asked = s.seen.portInfo.at(edge);
  asked.partitionEnforcementInbound = asked.partitionEnforcementOutbound = true;
  const SmpReply kept = answered(encode(s.seen.portInfo.at(edge)));
  EXPECT_TRUE(held.apply(portSet(edge, asked), kept));
  EXPECT_FALSE(held.apply(portSet(edge, asked), kept)) << "told once";
  EXPECT_TRUE(held.ignoresEnforcement(PortKey{s.guid(s.sw1), 2}));
  PortInfo took = asked;
  EXPECT_FALSE(held.apply(portSet({s.sw0, 2}, took), answered(encode(took))));
  EXPECT_FALSE(held.ignoresEnforcement(PortKey{s.guid(s.sw0), 2}));
}

TEST(HeldSubnet, ForgettingDropsTheObservationAndEveryTable) {
  Subnet s;
  s.top(s.sw0, 64);
  HeldSubnet held;
  held.observe(s.seen);
  held.apply(getOf(BlockTarget<LftKind>{s.sw0, s.guid(s.sw0), 0}), answered(encode(lftOf(1))));
  held.forget();
  EXPECT_FALSE(held.hasObservation());
  EXPECT_FALSE(held.table<LftKind>().has(s.guid(s.sw0)));
  held.observe(s.seen);
  EXPECT_EQ(held.table<LftKind>().state(s.guid(s.sw0), 0), Unknown) << "read again";
}

}  // namespace
}  // namespace ibsm::sm::program
