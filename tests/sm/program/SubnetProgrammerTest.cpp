// The programming step end to end against the in-memory fake fabric:
// read the subnet, plan it with a real routing engine, program it, and
// check what the fake's ports and switches hold afterwards.
#include <gtest/gtest.h>
#include <ibsm/Engines.h>
#include <spdlog/sinks/ostream_sink.h>

#include <functional>
#include <sstream>

#include "sm/program/Diff.h"
#include "tests/sm/program/ProgramBench.h"
#include "tests/support/FabricFixtures.h"

namespace ibsm::sm::program {
namespace {

using namespace std::chrono_literals;
using ibsm::testing::FakeFabricTransport;
using Fate = FakeFabricTransport::Fate;

using Bench = ProgramBench;

struct Scenario {
  std::string name;
  std::function<Fabric()> fabric;
  std::string engine;
};

void PrintTo(const Scenario& s, std::ostream* os) {
  *os << s.name;
}

// Where ibsim attaches the SM: the first port of its net file.
PortRef smPortOf(const Fabric& f) {
  const NodeId first = 0;
  return f.node(first).isSwitch() ? PortRef{first, 0} : PortRef{first, 1};
}

std::vector<Scenario> scenarios() {
  return {
      {"TwoSwitchesUpdn",
       [] { return ibsm::testing::sampleFabric("two-switch-dual-port-hcas.net"); }, "updn"},
      {"FatTree2Ftree",
       [] {
         FatTreeSpec spec;
         spec.levels = 2;
         spec.radix = 8;
         return ibsm::testing::generatedFabric(spec);
       },
       "ftree"},
      {"FatTree3Ftree", [] { return ibsm::testing::sampleFabric("fat-tree-3level-k8.net"); },
       "ftree"},
      {"DragonflyUpdn", [] { return ibsm::testing::sampleFabric("dragonfly-a4-p2-h2.net"); },
       "updn"},
  };
}

class ProgramOnFakeFabric : public ::testing::TestWithParam<Scenario> {
 protected:
  ProgramOnFakeFabric() {
    Fabric f = GetParam().fabric();
    const PortRef sm = smPortOf(f);
    bench = std::make_unique<Bench>(std::move(f), sm, GetParam().engine);
  }
  std::unique_ptr<Bench> bench;
};

TEST_P(ProgramOnFakeFabric, EveryPortEndsActiveWithItsPlannedLidAndEverySwitchWithItsPlannedLft) {
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  EXPECT_EQ(s.table(TableKind::Lft).read, 0U)
      << "a fresh fabric's tables are empty: nothing to read";
  EXPECT_GT(s.table(TableKind::Lft).written, 0U);
  EXPECT_GT(s.portsActivated, 0U);
  bench->expectHoldsThePlan();
}

TEST_P(ProgramOnFakeFabric, ASecondSweepWithNothingChangedSendsNothing) {
  ASSERT_TRUE(bench->sweep().complete());
  const ProgramSummary again = bench->sweep();
  EXPECT_TRUE(again.complete());
  EXPECT_EQ(bench->count([](const Smp& m) { return isSet(m, AttributeId::LinearForwardingTable); }),
            0U);
  EXPECT_EQ(again.requests(), 0U) << "no PortInfo, SwitchInfo or LFT Set, and no read";
  bench->expectHoldsThePlan();
}

TEST_P(ProgramOnFakeFabric, NoPortGoesActiveBeforeTheLftPhaseHasCompleted) {
  // Slow LFT answers: the Active phase must still wait for the last one.
  constexpr auto kLftLatency = 30ms;
  bench->wire().setFaults([&](const Smp& req, std::size_t) {
    return isSet(req, AttributeId::LinearForwardingTable) ? Fate::delayed(kLftLatency) : Fate{};
  });
  ASSERT_TRUE(bench->sweep().complete());
  const auto smps = bench->programSmps();
  std::optional<MadClock::time_point> lastLftAnswer;
  std::optional<std::size_t> lastLft, lastArmed, firstActive;
  for (std::size_t i = 0; i < smps.size(); ++i) {
    const Smp& m = smps[i].smp;
    if (isSet(m, AttributeId::LinearForwardingTable) || isSet(m, AttributeId::SwitchInfo)) {
      lastLft = i;
      lastLftAnswer = smps[i].at + kLftLatency;
    }
    if (setsState(m, PortState::Armed)) lastArmed = i;
    if (setsState(m, PortState::Active) && !firstActive) firstActive = i;
  }
  ASSERT_TRUE(lastLft && lastArmed && firstActive);
  EXPECT_LT(*lastLft, *firstActive);
  EXPECT_LT(*lastArmed, *firstActive) << "both ends are Armed before either goes Active";
  EXPECT_GE(smps[*firstActive].at, *lastLftAnswer)
      << "the first Active Set left before the last LFT Set was acknowledged";
}

INSTANTIATE_TEST_SUITE_P(Fabrics, ProgramOnFakeFabric, ::testing::ValuesIn(scenarios()),
                         [](const auto& info) { return info.param.name; });

// ibsim's two-switch example, for the tests that look at single SMPs.
class ProgramTest : public ::testing::Test {
 protected:
  ProgramTest() {
    Fabric f = ibsm::testing::sampleFabric("two-switch-dual-port-hcas.net");
    const PortRef sm = smPortOf(f);
    bench = std::make_unique<Bench>(std::move(f), sm, "updn");
  }
  std::unique_ptr<Bench> bench;
};

// Issue 27: OpenSM clears SwitchInfo:PortStateChange at the end of its
// heavy sweep (a Set writing the bit 1, IBA: write 1 to clear), so that
// SA SwitchInfoRecords and the next light sweep do not see what discovery
// already took in. Issue 32: on a switch whose LinearFDBTop is written the
// clear rides on that Set (the Armed and Active Sets never raise the flag,
// IBA 14.2.5.4), no SMP of its own; with every other field as the switch
// holds it then.
TEST_F(ProgramTest, APortStateChangeDiscoverySawIsClearedByTheLinearFdbTopSet) {
  const std::vector<NodeId> switches = bench->wire().fabric().switches();
  const NodeId flagged = switches.front();
  bench->wire().flagPortStateChange(flagged);
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  const auto clears = [](const Smp& m) {
    return isSet(m, AttributeId::SwitchInfo) && decodeSwitchInfo(m.data).portStateChange;
  };
  const auto switchInfoSets = [](const Smp& m) { return isSet(m, AttributeId::SwitchInfo); };
  EXPECT_EQ(bench->count(clears), 1U) << "only the flagged switch";
  EXPECT_EQ(bench->count(switchInfoSets), switches.size()) << "one SwitchInfo Set a switch";
  EXPECT_EQ(s.topsWritten, switches.size());
  EXPECT_EQ(s.phase(ProgramPhase::PortStateChange).requests, 0U);

  const auto smps = bench->programSmps();
  const auto clearAt = std::ranges::find_if(smps, [&](const auto& m) { return clears(m.smp); });
  ASSERT_NE(clearAt, smps.end());
  const SwitchInfo sent = decodeSwitchInfo(clearAt->smp.data);
  EXPECT_EQ(sent.linearFdbTop, bench->plan().routing.lfts[flagged].top().value)
      << "the top this run writes";

  ASSERT_TRUE(bench->held().observed().switchInfo.contains(flagged));
  EXPECT_FALSE(bench->held().observed().switchInfo.at(flagged).portStateChange)
      << "the held SwitchInfo (what the SA answers) is the cleared one";
  (void)bench->sweep();
  EXPECT_EQ(bench->count(clears), 0U) << "the switch no longer flags it";
}

// With no LinearFDBTop to write (a later sweep), the clear is a Set of its
// own once every port is Active, carrying the top this run left.
TEST_F(ProgramTest, APortStateChangeSeenWithNoTopToWriteIsClearedOnceThePortsAreActive) {
  ASSERT_TRUE(bench->sweep().complete());
  const NodeId flagged = bench->wire().fabric().switches().front();
  bench->wire().flagPortStateChange(flagged);
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete()) << ::testing::PrintToString(s.failures);
  const auto clears = [](const Smp& m) {
    return isSet(m, AttributeId::SwitchInfo) && decodeSwitchInfo(m.data).portStateChange;
  };
  EXPECT_EQ(bench->count(clears), 1U);
  EXPECT_EQ(s.phase(ProgramPhase::PortStateChange).requests, 1U);
  const auto smps = bench->programSmps();
  const auto clearAt = std::ranges::find_if(smps, [&](const auto& m) { return clears(m.smp); });
  ASSERT_NE(clearAt, smps.end());
  EXPECT_EQ(decodeSwitchInfo(clearAt->smp.data).linearFdbTop,
            bench->plan().routing.lfts[flagged].top().value);
  EXPECT_FALSE(bench->held().observed().switchInfo.at(flagged).portStateChange);
}

TEST_F(ProgramTest, ChangingTheRouteOfOneLidSendsExactlyTheBlocksHoldingIt) {
  ASSERT_TRUE(bench->sweep().complete());
  // Route the highest CA LID out of another port on every switch.
  Lid moved;
  const ProgramSummary s = bench->sweep([&moved](SubnetPlan& plan) {
    for (const LidAssignment& a : plan.lids.assignments) {
      if (!plan.fabric.node(a.port.node).isSwitch()) moved = std::max(moved, a.base);
    }
    for (Lft& lft : plan.routing.lfts) {
      if (lft.port.size() > moved.value) lft.port[moved.value] = lft.port[moved.value] == 3 ? 5 : 3;
    }
  });
  EXPECT_TRUE(s.complete());
  const auto smps = bench->programSmps();
  std::size_t lftSets = 0;
  for (const auto& m : smps) {
    if (!isSet(m.smp, AttributeId::LinearForwardingTable)) continue;
    ++lftSets;
    EXPECT_EQ(m.smp.header.attributeModifier, moved.value / 64U);
  }
  EXPECT_EQ(lftSets, bench->wire().fabric().switches().size()) << "one block per switch";
  EXPECT_EQ(s.requests(), lftSets) << "nothing but those blocks";
  bench->expectHoldsThePlan();
}

TEST_F(ProgramTest, ADroppedLftSetLeavesItsBlockDirtyAndTheNextSweepResendsIt) {
  // Switch2's block 0 is lost on every attempt.
  const NodeId sw2 = ibsm::testing::nodeNamed(bench->wire().fabric(), "Switch2");
  const Guid sw2Guid = bench->wire().fabric().node(sw2).guid;
  const DrPath path = ibsm::testing::routesFrom(bench->wire().fabric(), bench->smPort())[sw2];
  auto toSw2 = [path](const Smp& m) {
    return isSet(m, AttributeId::LinearForwardingTable) && m.initialPath == path.initialPath() &&
           m.header.hopCount == path.hopCount();
  };
  bench->wire().setFaults(
      [&](const Smp& req, std::size_t) { return toSw2(req) ? Fate::dropped() : Fate{}; });
  const ProgramSummary failed = bench->sweep();
  EXPECT_FALSE(failed.complete());
  EXPECT_EQ(failed.phase(ProgramPhase::Lfts).failures, 1U);
  EXPECT_EQ(bench->held().table<LftKind>().block(sw2Guid, 0), std::nullopt)
      << "unknown, not taken as done";
  ASSERT_EQ(failed.failures.size(), 2U) << ::testing::PrintToString(failed.failures);
  EXPECT_NE(failed.failures[0].find("LFT block 0 of switch Switch2"), std::string::npos);
  // Switch2's links stay Armed: its table is not in place.
  EXPECT_GT(failed.phase(ProgramPhase::Active).deferred, 0U);
  EXPECT_EQ(bench->wire().fabric().port({sw2, 1}).state, PortState::Armed);

  bench->wire().setFaults({});
  const ProgramSummary next = bench->sweep();
  EXPECT_TRUE(next.complete()) << ::testing::PrintToString(next.failures);
  EXPECT_EQ(
      bench->count([&](const Smp& m) { return isSet(m, AttributeId::LinearForwardingTable); }), 1U);
  EXPECT_EQ(bench->count(toSw2), 1U);
  EXPECT_EQ(next.portsActivated, failed.phase(ProgramPhase::Active).deferred);
  bench->expectHoldsThePlan();
}

TEST_F(ProgramTest, ARestartedSmOnARunningFabricReadsTheTablesAndRewritesNothing) {
  ASSERT_TRUE(bench->sweep().complete());
  bench->forgetEverything();
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete());
  EXPECT_GT(s.table(TableKind::Lft).read, 0U);
  EXPECT_EQ(s.requests(), s.table(TableKind::Lft).read)
      << "reads only: every block already holds the plan";
  EXPECT_EQ(bench->count([](const Smp& m) { return m.header.method == Method::Set; }), 0U);
}

TEST_F(ProgramTest, ASwitchThatLostItsTableIsRewrittenWhole) {
  ASSERT_TRUE(bench->sweep().complete());
  const NodeId sw1 = ibsm::testing::nodeNamed(bench->wire().fabric(), "Switch1");
  bench->wire().fabric().node(sw1).switchData->linearFdbTop = 0;  // as after a reboot
  const ProgramSummary s = bench->sweep();
  EXPECT_TRUE(s.complete());
  EXPECT_EQ(s.topsWritten, 1U);
  EXPECT_EQ(s.table(TableKind::Lft).written,
            bench->plan().routing.lfts[sw1].top().value / 64U + 1U);
}

TEST_F(ProgramTest, WhenTheSmLidCannotBeSetNothingElseIsProgrammed) {
  bench->wire().setFaults([](const Smp& req, std::size_t) {
    return isSet(req, AttributeId::PortInfo) && req.header.hopCount == 0 ? Fate::dropped() : Fate{};
  });
  const ProgramSummary s = bench->sweep();
  EXPECT_EQ(s.stoppedAt, ProgramPhase::SmLid);
  EXPECT_FALSE(s.complete());
  EXPECT_EQ(bench->count([](const Smp& m) { return m.header.method == Method::Set; }),
            s.phase(ProgramPhase::SmLid).transmissions)
      << "only the SM port's Set (and its retries) went out";

  bench->wire().setFaults({});
  EXPECT_TRUE(bench->sweep().complete());
  bench->expectHoldsThePlan();
}

TEST_F(ProgramTest, APortWhoseArmedSetFailedIsNotActivatedNorIsItsPeer) {
  const NodeId hca2 = ibsm::testing::nodeNamed(bench->wire().fabric(), "Hca2");
  const PortRef victim{hca2, 2};
  const DrPath path =
      *pathToPort(ibsm::testing::snapshotOf(bench->wire().fabric(), bench->smPort()), victim);
  bench->wire().setFaults([path](const Smp& req, std::size_t) {
    const bool hit = isSet(req, AttributeId::PortInfo) && req.header.attributeModifier == 2 &&
                     req.initialPath == path.initialPath() &&
                     req.header.hopCount == path.hopCount();
    return hit ? Fate::answeredWith(madstatus::kInvalidField) : Fate{};
  });
  const ProgramSummary s = bench->sweep();
  // Its LID rides on its Armed Set (PortDiff.cpp): that is the Set that fails.
  EXPECT_EQ(s.phase(ProgramPhase::Armed).failures, 1U);
  EXPECT_NE(s.failures.front().find("answered with status"), std::string::npos);
  const PortRef peer = *bench->wire().fabric().port(victim).remote;
  // The fake lands a Set it answers with an error, as a device may.
  EXPECT_NE(bench->wire().fabric().port(victim).state, PortState::Active);
  EXPECT_EQ(bench->wire().fabric().port(peer).state, PortState::Armed) << "armed, not active";
  EXPECT_EQ(bench->wire().fabric().port({hca2, 1}).state, PortState::Active);
  EXPECT_EQ(s.phase(ProgramPhase::Active).deferred, 2U);

  bench->wire().setFaults({});
  EXPECT_TRUE(bench->sweep().complete());
  bench->expectHoldsThePlan();
}

// What PROG-0301 and PROG-0306 log, as the counters the status shows.
TEST_F(ProgramTest, EachPhaseReportsItsSmpCountAndDuration) {
  const ProgramSummary s = bench->sweep();
  ASSERT_TRUE(s.complete());
  std::chrono::microseconds total{0};
  for (const ProgramPhase p : {ProgramPhase::ReadTables, ProgramPhase::SmLid, ProgramPhase::Lids,
                               ProgramPhase::Lfts, ProgramPhase::Armed, ProgramPhase::Active}) {
    EXPECT_TRUE(s.phase(p).ran) << phaseName(p);
    EXPECT_EQ(s.phase(p).failures, 0U) << phaseName(p);
    total += s.phase(p).duration;
  }
  EXPECT_GT(s.phase(ProgramPhase::Lfts).requests, 0U);
  EXPECT_GE(s.phase(ProgramPhase::Lfts).transmissions, s.phase(ProgramPhase::Lfts).requests);
  EXPECT_EQ(s.duration(),
            total + s.phase(ProgramPhase::PKeys).duration + s.phase(ProgramPhase::Sl2Vl).duration);
}

}  // namespace
}  // namespace ibsm::sm::program
