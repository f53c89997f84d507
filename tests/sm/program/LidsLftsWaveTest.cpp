// The Lids and Lfts phases as one wave (ProgramDiff::lidsKept, issue 32):
// when no PortInfo Set of the Lids phase gives a port another LID -- a
// takeover, which adopts the LIDs the fabric holds and tells every port
// the new MasterSMLID -- the LFT blocks go out beside those Sets instead of
// waiting for the last of them. When a LID moves (a bring-up) the LFTs
// still wait for the Lids phase, in the IBA's order. Either way the fabric
// ends up holding the plan and each phase is reported on its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "sm/program/Diff.h"
#include "tests/sm/program/ProgramBench.h"
#include "tests/sm/program/SubnetSnapshot.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::program {
namespace {

using ibsm::testing::FakeFabricTransport;
using Fate = FakeFabricTransport::Fate;

constexpr auto kSlow = std::chrono::milliseconds(50);

class LidsLftsWaveTest : public ::testing::Test {
 protected:
  // A Set of PortInfo to `port` answered kSlow late; everything else at once.
  void slowPortInfoSet(PortRef port) {
    const DrPath path =
        *pathToPort(ibsm::testing::snapshotOf(bench.wire().fabric(), bench.smPort()), port);
    victim = [port, path](const Smp& m) {
      return isSet(m, AttributeId::PortInfo) && m.header.attributeModifier == port.port &&
             m.initialPath == path.initialPath() && m.header.hopCount == path.hopCount();
    };
    bench.wire().setFaults(
        [this](const Smp& m, std::size_t) { return victim(m) ? Fate::delayed(kSlow) : Fate{}; });
  }
  // When the slow Set was sent, and the LFT Sets sent before its answer.
  std::pair<MadClock::time_point, std::size_t> lftSetsBeforeTheSlowAnswer() const {
    const auto smps = bench.programSmps();
    const auto slow = std::ranges::find_if(smps, [this](const auto& s) { return victim(s.smp); });
    EXPECT_NE(slow, smps.end()) << "the slow Set went out";
    if (slow == smps.end()) return {};
    std::size_t early = 0;
    for (const auto& s : smps)
      early += isSet(s.smp, AttributeId::LinearForwardingTable) && s.at < slow->at + kSlow;
    return {slow->at, early};
  }

  ProgramBench bench{ibsm::testing::sampleFabric("two-switch-dual-port-hcas.net"), PortRef{0, 0},
                     "updn"};
  std::function<bool(const Smp&)> victim;
};

TEST_F(LidsLftsWaveTest, ATakeoverSendsTheLftBlocksBesideTheLidsPhaseSets) {
  ASSERT_TRUE(bench.sweep().complete()) << bench.log();
  // What a takeover finds: ports holding the LIDs the plan keeps, whose
  // clients must re-register with the new SA (a Lids-phase Set each), and
  // switches whose tables must be written (as if routed otherwise).
  const Fabric& f = bench.wire().fabric();
  for (NodeId n : f.endNodes())
    for (std::uint8_t p = 1; p <= f.node(n).numPorts(); ++p)
      bench.wire().fabric().port({n, p}).capabilityMask |=
          capability::kIsClientReregistrationSupported;
  for (NodeId sw : f.switches()) bench.wire().fabric().node(sw).switchData->linearFdbTop = 0;
  bench.forgetEverything();
  const NodeId hca1 = ibsm::testing::nodeNamed(f, "Hca1");
  slowPortInfoSet({hca1, 1});

  const ProgramSummary s = bench.sweep();
  ASSERT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  const PhaseReport& lids = s.phase(ProgramPhase::Lids);
  const PhaseReport& lfts = s.phase(ProgramPhase::Lfts);
  ASSERT_GT(lids.requests, 0U) << "every CA port told to re-register";
  ASSERT_GT(lfts.requests, 0U);
  // The slow Set may be sent again (its answer is late); nothing else is.
  EXPECT_EQ(lfts.transmissions, lfts.requests) << "no LFT block sent twice";
  const auto [slowAt, early] = lftSetsBeforeTheSlowAnswer();
  EXPECT_EQ(early, bench.count([](const Smp& m) {
    return isSet(m, AttributeId::LinearForwardingTable);
  })) << "no LFT block waited for the slow Set";
  EXPECT_GE(lids.duration, kSlow) << "the Lids phase ends with its slow Set";
  EXPECT_LT(lfts.duration, lids.duration) << "the LFTs were done before it";
  bench.expectHoldsThePlan();
}

TEST_F(LidsLftsWaveTest, ABringUpWritesNoLftBlockBeforeEverySwitchHoldsItsLid) {
  // A switch whose LID the Lids phase sets: not the SM's own.
  const auto switches = bench.wire().fabric().switches();
  const auto other = std::ranges::find_if(switches, [this](NodeId sw) {
    return PortRef{sw, 0} != bench.smPort();
  });
  ASSERT_NE(other, switches.end());
  slowPortInfoSet({*other, 0});

  const ProgramSummary s = bench.sweep();
  ASSERT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  ASSERT_GT(s.phase(ProgramPhase::Lfts).requests, 0U);
  const auto [slowAt, early] = lftSetsBeforeTheSlowAnswer();
  EXPECT_EQ(early, 0U) << "the LFTs wait for the Lids phase when a LID moves";
  bench.expectHoldsThePlan();
}

TEST_F(LidsLftsWaveTest, ALostLidsPhaseSetInTheWaveIsRetriedAndOnlyItsPortStaysDirty) {
  ASSERT_TRUE(bench.sweep().complete()) << bench.log();
  for (NodeId sw : bench.wire().fabric().switches())
    bench.wire().fabric().node(sw).switchData->linearFdbTop = 0;
  const NodeId hca1 = ibsm::testing::nodeNamed(bench.wire().fabric(), "Hca1");
  bench.wire().fabric().port({hca1, 1}).capabilityMask |=
      capability::kIsClientReregistrationSupported;
  bench.forgetEverything();
  slowPortInfoSet({hca1, 1});
  bench.wire().setFaults(
      [this](const Smp& m, std::size_t) { return victim(m) ? Fate::dropped() : Fate{}; });

  const ProgramSummary failed = bench.sweep();
  EXPECT_EQ(failed.phase(ProgramPhase::Lids).failures, 1U);
  EXPECT_GT(failed.phase(ProgramPhase::Lids).transmissions, 1U) << "retried before given up";
  EXPECT_EQ(failed.phase(ProgramPhase::Lfts).failures, 0U);
  EXPECT_FALSE(failed.complete());

  bench.wire().setFaults({});
  const ProgramSummary next = bench.sweep();
  EXPECT_TRUE(next.complete()) << ::testing::PrintToString(next.failures);
  EXPECT_EQ(next.phase(ProgramPhase::Lids).requests, 1U) << "only the lost Set is sent again";
  EXPECT_EQ(next.table(TableKind::Lft).written, 0U);
  bench.expectHoldsThePlan();
}

}  // namespace
}  // namespace ibsm::sm::program
