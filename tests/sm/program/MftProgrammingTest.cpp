// MFT programming against the in-memory fake fabric: the first programming
// writes only the blocks of the MLIDs in use, a join costs the one block
// that changes, a moved tree is pruned before it grows, MulticastFDBTop
// follows the entries where the switch supports it, a failed prune holds
// back the growth it protects (and no link), and with no multicast plan
// nothing is touched.
#include <gtest/gtest.h>

#include "sm/program/Diff.h"
#include "tests/sm/program/MftBench.h"

namespace ibsm::sm::program {
namespace {

using ibsm::testing::FakeFabricTransport;
using ibsm::testing::sampleFabric;
using Fate = FakeFabricTransport::Fate;

bool isMftSet(const Smp& m) {
  return isSet(m, AttributeId::MulticastForwardingTable);
}
bool isMftSmp(const Smp& m) {
  return m.header.attributeId == AttributeId::MulticastForwardingTable;
}

// Two 8-port switches joined by two cables (ports 3 and 5), each with one
// dual-port HCA on ports 1 and 2: one position per switch.
class MftOnTwoSwitches : public ::testing::Test {
 protected:
  void make(bool topSupported) {
    bench = mftBench(sampleFabric("two-switch-dual-port-hcas.net"), PortRef{0, 0}, "updn",
                     topSupported);
    s1 = guidOf(*bench, "Switch1");
    s2 = guidOf(*bench, "Switch2");
  }
  void SetUp() override { make(false); }
  NodeId wireNode(Guid g) const { return *bench->wire().fabric().findNode(g); }
  McPortMask onWire(Guid sw, std::uint16_t mlid) const {
    return bench->wire().mft(wireNode(sw), mlid);
  }

  std::unique_ptr<ProgramBench> bench;
  Guid s1, s2;
};

// Switches no SM has configured since their reset (no LID, no M_Key) hold
// empty MFTs (as ibsim's; OpenSM writes none at bring-up): only the blocks
// a tree fills are written, never read (issue 32).
TEST_F(MftOnTwoSwitches, OnAFreshFabricOnlyTheBlocksATreeFillsAreWritten) {
  const auto plan = withMfts({
      {s1, {{0xC001, portsOf({1, 3})}, {0xC040, portsOf({2})}}},  // MLID blocks 0 and 2
      {s2, {{0xC001, portsOf({1, 3})}}},
  });
  const ProgramSummary s = bench->sweep(plan);
  ASSERT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  // Switch1: blocks 0 and 2; Switch2: block 0. Block 1 holds what it must.
  EXPECT_EQ(bench->count(isMftSet), 3U);
  EXPECT_EQ(bench->count(isMftSmp), 3U);
  EXPECT_EQ(s.table(TableKind::Mft).written, 3U);
  EXPECT_EQ(s.phase(ProgramPhase::MftPrune).tableRequests[TableKind::Mft], 0U);
  EXPECT_EQ(s.phase(ProgramPhase::Mfts).tableRequests[TableKind::Mft], 3U);
  EXPECT_EQ(onWire(s1, 0xC001), portsOf({1, 3}));
  EXPECT_EQ(onWire(s1, 0xC040), portsOf({2}));
  EXPECT_EQ(onWire(s2, 0xC001), portsOf({1, 3}));
  EXPECT_TRUE(onWire(s2, 0xC040).none());
  EXPECT_TRUE(bench->sweep(plan).complete());
  EXPECT_EQ(bench->count(isMftSmp), 0U);
}

// Switches that hold a LID were configured by an SM (a restart, a
// takeover): their MFTs may hold anything, so every position of the blocks
// in use is written.
TEST_F(MftOnTwoSwitches, OnConfiguredSwitchesEveryPositionOfTheBlocksInUseIsWrittenAndNoMore) {
  bench->wire().fabric().port({wireNode(s1), 0}).lid = Lid{60};
  bench->wire().fabric().port({wireNode(s2), 0}).lid = Lid{61};
  const auto plan = withMfts({
      {s1, {{0xC001, portsOf({1, 3})}, {0xC040, portsOf({2})}}},  // MLID blocks 0 and 2
      {s2, {{0xC001, portsOf({1, 3})}}},
  });
  const ProgramSummary s = bench->sweep(plan);
  ASSERT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  // Switch1: blocks 0, 1 (empty: cleared, as OpenSM writes it) and 2;
  // Switch2: block 0. Written outright, never read.
  EXPECT_EQ(bench->count(isMftSet), 4U);
  EXPECT_EQ(bench->count(isMftSmp), 4U);
  EXPECT_EQ(s.table(TableKind::Mft).written, 4U);
  EXPECT_EQ(s.phase(ProgramPhase::MftPrune).tableRequests[TableKind::Mft], 1U);
  EXPECT_EQ(s.phase(ProgramPhase::Mfts).tableRequests[TableKind::Mft], 3U);
  EXPECT_TRUE(onWire(s2, 0xC040).none());
  EXPECT_TRUE(bench->sweep(plan).complete());
  EXPECT_EQ(bench->count(isMftSmp), 0U);
}

TEST_F(MftOnTwoSwitches, AJoinThatAddsAPortWritesOneBlockAndPrunesNothing) {
  bench->sweep(withMfts({{s1, {{0xC000, portsOf({1, 3})}}}, {s2, {{0xC000, portsOf({3})}}}}));
  const ProgramSummary s = bench->sweep(
      withMfts({{s1, {{0xC000, portsOf({1, 3})}}}, {s2, {{0xC000, portsOf({1, 3})}}}}));
  ASSERT_TRUE(s.complete());
  EXPECT_EQ(s.phase(ProgramPhase::MftPrune).requests, 0U);
  EXPECT_EQ(s.phase(ProgramPhase::Mfts).requests, 1U);
  EXPECT_EQ(bench->count(isMftSmp), 1U);
  EXPECT_EQ(onWire(s2, 0xC000), portsOf({1, 3}));
}

TEST_F(MftOnTwoSwitches, ALeaveThatDropsAPortWritesOneBlockInThePrunePhase) {
  bench->sweep(withMfts({{s1, {{0xC000, portsOf({1, 3})}}}, {s2, {{0xC000, portsOf({1, 3})}}}}));
  const ProgramSummary s =
      bench->sweep(withMfts({{s1, {{0xC000, portsOf({1, 3})}}}, {s2, {{0xC000, portsOf({3})}}}}));
  ASSERT_TRUE(s.complete());
  EXPECT_EQ(s.phase(ProgramPhase::MftPrune).requests, 1U);
  EXPECT_EQ(s.phase(ProgramPhase::Mfts).requests, 0U);
  EXPECT_EQ(onWire(s2, 0xC000), portsOf({3}));
}

TEST_F(MftOnTwoSwitches, AMovedTreeIsPrunedToWhatBothKeepBeforeItGrows) {
  bench->sweep(withMfts({{s1, {{0xC000, portsOf({1, 3})}}}, {s2, {{0xC000, portsOf({1, 3})}}}}));
  const ProgramSummary s = bench->sweep(
      withMfts({{s1, {{0xC000, portsOf({1, 5})}}}, {s2, {{0xC000, portsOf({1, 5})}}}}));
  ASSERT_TRUE(s.complete());
  EXPECT_EQ(s.phase(ProgramPhase::MftPrune).requests, 2U);
  EXPECT_EQ(s.phase(ProgramPhase::Mfts).requests, 2U);
  // On the wire: both prunes (port 1 only) before either growth.
  std::vector<std::uint16_t> sent;
  for (const auto& m : bench->programSmps())
    if (isMftSet(m.smp)) sent.push_back(decodeMftBlock(m.smp.data).masks[0]);
  EXPECT_EQ(sent, (std::vector<std::uint16_t>{0x0002, 0x0002, 0x0022, 0x0022}));
  EXPECT_EQ(onWire(s1, 0xC000), portsOf({1, 5}));
  EXPECT_EQ(onWire(s2, 0xC000), portsOf({1, 5}));
}

TEST_F(MftOnTwoSwitches, WithNoMulticastPlanNoMftIsReadOrWritten) {
  bench->wire().setMft(wireNode(s1), 0xC000, portsOf({1, 2, 3}));
  const ProgramSummary s = bench->sweep([](SubnetPlan& plan) { plan.multicast.reset(); });
  ASSERT_TRUE(s.complete());
  EXPECT_EQ(bench->count(isMftSmp), 0U);
  EXPECT_EQ(s.requests(TableKind::Mft), 0U);
  EXPECT_EQ(onWire(s1, 0xC000), portsOf({1, 2, 3}));
}

TEST_F(MftOnTwoSwitches, EntriesAboveWhatThePlanUsesAreClearedOnceKnown) {
  bench->sweep(withMfts({{s1, {{0xC000, portsOf({1})}, {0xC060, portsOf({2})}}}}));
  const ProgramSummary s = bench->sweep(withMfts({{s1, {{0xC000, portsOf({1})}}}}));
  ASSERT_TRUE(s.complete());
  EXPECT_EQ(s.phase(ProgramPhase::MftPrune).requests, 1U);  // block 3 cleared
  EXPECT_EQ(s.phase(ProgramPhase::Mfts).requests, 0U);
  EXPECT_TRUE(onWire(s1, 0xC060).none());
}

// A failover: the switches hold the entries of the SM that had the subnet
// before; the new master's groups (pre-created, nobody joined again yet)
// hold MLIDs of block 0, so block 0 is written on every switch -- on no
// tree, empty -- once, and the old master's entries there are gone.
TEST_F(MftOnTwoSwitches, TheBlocksOfTheGroupsMlidsAreClearedOnSwitchesOnNoTree) {
  bench->wire().fabric().port({wireNode(s1), 0}).lid = Lid{60};  // the old master's LIDs
  bench->wire().fabric().port({wireNode(s2), 0}).lid = Lid{61};
  bench->wire().setMft(wireNode(s1), 0xC002, portsOf({1, 3}));  // and entries
  bench->wire().setMft(wireNode(s2), 0xC002, portsOf({1, 3}));
  bench->wire().setMft(wireNode(s2), 0xC040, portsOf({2}));  // above every group's MLID
  const auto groupsWithoutMembers = [](SubnetPlan& plan) {
    withMfts({})(plan);
    plan.multicast->trees = {
        McTree{.mlid = Lid{0xC000}, .root = std::nullopt, .switches = 0, .receivers = 0},
        McTree{.mlid = Lid{0xC001}, .root = std::nullopt, .switches = 0, .receivers = 0}};
  };
  const ProgramSummary s = bench->sweep(groupsWithoutMembers);
  ASSERT_TRUE(s.complete());
  EXPECT_EQ(s.phase(ProgramPhase::MftPrune).tableRequests[TableKind::Mft], 2U) << "block 0 of each";
  EXPECT_EQ(s.phase(ProgramPhase::Mfts).requests, 0U);
  EXPECT_TRUE(onWire(s1, 0xC002).none());
  EXPECT_TRUE(onWire(s2, 0xC002).none());
  EXPECT_EQ(onWire(s2, 0xC040), portsOf({2})) << "blocks above the groups' MLIDs are left alone";
  // Known empty now: the next sweep writes nothing.
  EXPECT_TRUE(bench->sweep(groupsWithoutMembers).complete());
  EXPECT_EQ(bench->count(isMftSmp), 0U);
}

TEST_F(MftOnTwoSwitches, MulticastFdbTopIsLeftAloneWhereTheSwitchDoesNotSupportIt) {
  const ProgramSummary s = bench->sweep(withMfts({{s1, {{0xC001, portsOf({1, 3})}}}}));
  ASSERT_TRUE(s.complete());
  EXPECT_EQ(s.phase(ProgramPhase::MftTop).requests, 0U);
  EXPECT_EQ(bench->wire().mcastTop(wireNode(s1)), 0U);
}

TEST_F(MftOnTwoSwitches, MulticastFdbTopIsRaisedAfterItsEntriesAndLoweredWithThePrunes) {
  make(/*topSupported=*/true);
  const ProgramSummary s = bench->sweep(withMfts({
      {s1, {{0xC001, portsOf({1, 3})}, {0xC040, portsOf({2})}}},
      {s2, {{0xC001, portsOf({1, 3})}}},
  }));
  ASSERT_TRUE(s.complete());
  EXPECT_EQ(s.phase(ProgramPhase::MftTop).requests, 2U);
  EXPECT_EQ(bench->wire().mcastTop(wireNode(s1)), 0xC040);
  EXPECT_EQ(bench->wire().mcastTop(wireNode(s2)), 0xC001);
  std::optional<std::size_t> lastMft, firstTop;
  const auto smps = bench->programSmps();
  for (std::size_t i = 0; i < smps.size(); ++i) {
    if (isMftSet(smps[i].smp)) lastMft = i;
    if (isSet(smps[i].smp, AttributeId::SwitchInfo) &&
        decodeSwitchInfo(smps[i].smp.data).multicastFdbTop != 0 && !firstTop)
      firstTop = i;
  }
  ASSERT_TRUE(lastMft && firstTop);
  EXPECT_LT(*lastMft, *firstTop);

  // Switch1 leaves MLID block 2: its top comes down in the prune phase,
  // with the clearing of the block, and is not raised again.
  const ProgramSummary down = bench->sweep(withMfts({
      {s1, {{0xC001, portsOf({1, 3})}}},
      {s2, {{0xC001, portsOf({1, 3})}}},
  }));
  ASSERT_TRUE(down.complete());
  EXPECT_EQ(down.phase(ProgramPhase::MftPrune).requests, 2U);  // the top and block 2
  EXPECT_EQ(down.phase(ProgramPhase::MftTop).requests, 0U);
  EXPECT_EQ(bench->wire().mcastTop(wireNode(s1)), 0xC001);
  EXPECT_TRUE(onWire(s1, 0xC040).none());
  // LinearFDBTop rode along unchanged.
  const Lft& lft = bench->plan().routing.lfts[*bench->plan().fabric.findNode(s1)];
  EXPECT_EQ(bench->wire().fabric().node(wireNode(s1)).switchData->linearFdbTop, lft.top().value);
}

TEST_F(MftOnTwoSwitches, AFailedPruneDefersTheGrowthOfItsMlidBlockButHoldsNoLink) {
  bench->sweep(withMfts({{s1, {{0xC000, portsOf({1, 3})}}}, {s2, {{0xC000, portsOf({1, 3})}}}}));
  bool failed = false;
  bench->wire().setFaults([&failed](const Smp& m, std::size_t) {
    if (!isMftSet(m) || failed) return Fate{};
    failed = true;
    return Fate::answeredWith(madstatus::kInvalidField);
  });
  const MftEntries moved{{s1, {{0xC000, portsOf({1, 5})}}}, {s2, {{0xC000, portsOf({1, 5})}}}};
  const ProgramSummary s = bench->sweep(withMfts(moved));
  EXPECT_FALSE(s.complete());
  EXPECT_EQ(s.phase(ProgramPhase::MftPrune).failures, 1U);
  EXPECT_EQ(s.phase(ProgramPhase::Mfts).requests, 0U);
  EXPECT_EQ(s.phase(ProgramPhase::Mfts).deferred, 2U);
  EXPECT_EQ(s.failed(), 3U);  // the prune, and the two writes it held back
  for (const std::string& line : s.failures) EXPECT_EQ(line.find("held back"), std::string::npos);
  EXPECT_EQ(
      std::ranges::count_if(
          s.failures, [](const std::string& l) { return l.starts_with("2 mfts steps deferred"); }),
      1);
  std::map<NodeId, McPortMask> now{{wireNode(s1), onWire(s1, 0xC000)},
                                   {wireNode(s2), onWire(s2, 0xC000)}};
  EXPECT_FALSE(forwardsInALoop(bench->wire().fabric(), now));

  // The next sweep clears the block it could not prune, then writes both.
  bench->wire().setFaults({});
  const ProgramSummary next = bench->sweep(withMfts(moved));
  ASSERT_TRUE(next.complete()) << ::testing::PrintToString(next.failures);
  EXPECT_EQ(onWire(s1, 0xC000), portsOf({1, 5}));
  EXPECT_EQ(onWire(s2, 0xC000), portsOf({1, 5}));
}

}  // namespace
}  // namespace ibsm::sm::program
