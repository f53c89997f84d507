// The SM's life told as stories: a lone master sweeping, traps during
// sweeps, a standby losing its master, handovers both ways, control packets
// and SM_Key.
#include <gtest/gtest.h>

#include "sm/fsm/SmStateMachine.h"
#include "tests/sm/fsm/FsmSpecs.h"

namespace ibsm::sm::fsm {
namespace {

using enum ActionKind;
using P = Phase;

// Holds the state between events as the real loop does.
struct Sm {
  SmContext ctx;
  State state;

  explicit Sm(SmContext c) : ctx(c), state(start().state) {}
  std::vector<Action> feed(const Event& e) {
    auto t = next(ctx, state, e);
    state = t.state;
    return t.actions;
  }
  std::vector<ActionKind> feedKinds(const Event& e) { return kinds(feed(e)); }
};

const SmInfo kSelf = smInfo(0x50, 5, SmState::Discovering);
SmContext ctx(std::uint64_t key = 0) {
  SmContext c{.self = kSelf};
  c.self.smKey = key;
  return c;
}

// Brings an SM up as master of an otherwise SM-less subnet.
Sm master() {
  Sm sm(ctx());
  sm.feed(Event::discoveryDone(true, {}));
  sm.feed(Event::heavySweepDone(true, true, {}));
  EXPECT_EQ(sm.state.phase, P::MasterIdle);
  return sm;
}

// Brings an SM up as standby under master 0x70 (priority 9).
Sm standby(SmContext c = ctx()) {
  Sm sm(c);
  sm.feed(Event::discoveryDone(true, {smInfo(0x70, 9, SmState::Master, c.self.smKey)}));
  EXPECT_EQ(sm.state.phase, P::Standby);
  EXPECT_EQ(sm.state.master, Guid{0x70});
  return sm;
}

TEST(Start, AnSmStartsDiscoveringAndSaysSo) {
  const auto t = start();
  EXPECT_EQ(t.state.phase, P::Discovering);
  ASSERT_EQ(kinds(t.actions), (std::vector{SetSmState, Discover}));
  EXPECT_EQ(t.actions[0].smState, SmState::Discovering);
}

TEST(Start, AloneItBecomesMasterByTakingOverWhatTheFabricHolds) {
  Sm sm(ctx());
  const auto a = sm.feed(Event::discoveryDone(true, {}));
  EXPECT_EQ(kinds(a), (std::vector{SetSmState, TakeOver}));
  EXPECT_EQ(a[0].smState, SmState::Master);
  EXPECT_EQ(sm.state.phase, P::MasterTakeOver);
}

TEST(Start, AFailedDiscoveryIsRetriedOnTheNextTickNotAtOnce) {
  Sm sm(ctx());
  EXPECT_TRUE(sm.feed(Event::discoveryDone(false, {})).empty());
  EXPECT_EQ(sm.state.phase, P::DiscoveryFailed);
  EXPECT_EQ(sm.feedKinds(Event::sweepTimer()), std::vector{Discover});
  EXPECT_EQ(sm.state.phase, P::Discovering);
}

TEST(Start, UnderAnExistingBetterMasterItGoesStandby) {
  Sm sm = standby();
  EXPECT_EQ(sm.feedKinds(Event::pollTimer()), std::vector{PollMaster});
}

TEST(Start, UnderAWorseMasterItGoesStandbyAndAsksForTheSubnet) {
  Sm sm(ctx());
  const auto a = sm.feed(Event::discoveryDone(true, {smInfo(0x70, 1, SmState::Master)}));
  EXPECT_EQ(sm.state.phase, P::Standby);
  ASSERT_EQ(kinds(a), (std::vector{SetSmState, NotifyMaster}));
  EXPECT_EQ(a[1].peer, Guid{0x70});
  // ... and again at every poll the worse master answers.
  sm.feed(Event::pollTimer());
  EXPECT_EQ(sm.feedKinds(Event::masterAnswered(smInfo(0x70, 1, SmState::Master))),
            std::vector{NotifyMaster});
}

TEST(Start, ABetterSmStillDiscoveringIsWaitedFor) {
  Sm sm(ctx());
  sm.feed(Event::discoveryDone(true, {smInfo(0x70, 9, SmState::Discovering)}));
  EXPECT_EQ(sm.state.phase, P::Standby);
  EXPECT_TRUE(sm.feed(Event::masterAnswered(smInfo(0x70, 9, SmState::Discovering))).empty());
  EXPECT_EQ(sm.state.missedPolls, 0U);
}

TEST(MasterSweeps, TheFirstSweepTakesOverTheRestAreLightUntilSomethingChanges) {
  Sm sm = master();
  EXPECT_FALSE(sm.state.takeoverDue);
  EXPECT_EQ(sm.feedKinds(Event::sweepTimer()), std::vector{LightSweep});
  EXPECT_TRUE(sm.feed(Event::lightSweepDone(true, false)).empty());
  EXPECT_EQ(sm.state.phase, P::MasterIdle);
  sm.feed(Event::sweepTimer());
  EXPECT_EQ(sm.feedKinds(Event::lightSweepDone(true, true)), std::vector{HeavySweep});
  EXPECT_EQ(sm.state.phase, P::MasterHeavySweep);
}

TEST(MasterSweeps, ASubnetNotUpGetsAHeavySweepNextTime) {
  Sm sm = master();
  sm.feed(Event::operatorSweep(true));
  sm.feed(Event::heavySweepDone(true, false, {}));
  EXPECT_TRUE(sm.state.heavyDue);
  EXPECT_EQ(sm.feedKinds(Event::sweepTimer()), std::vector{HeavySweep});
  sm.feed(Event::heavySweepDone(true, true, {}));
  EXPECT_EQ(sm.feedKinds(Event::sweepTimer()), std::vector{LightSweep});
}

TEST(MasterSweeps, AFailedTakeOverIsATakeOverAgain) {
  Sm sm(ctx());
  sm.feed(Event::discoveryDone(true, {}));
  EXPECT_TRUE(sm.feed(Event::heavySweepDone(false, false, {})).empty());
  EXPECT_EQ(sm.state.phase, P::MasterIdle);
  EXPECT_EQ(sm.feedKinds(Event::sweepTimer()), std::vector{TakeOver});
}

TEST(MasterSweeps, ATrapStartsALightSweepAtOnceTrap144AHeavyOne) {
  Sm sm = master();
  EXPECT_EQ(sm.feedKinds(Event::trap(false)), std::vector{LightSweep});
  sm.feed(Event::lightSweepDone(true, false));
  EXPECT_EQ(sm.feedKinds(Event::trap(true)), std::vector{HeavySweep});
}

TEST(MasterSweeps, ATrapDuringASweepIsSweptAfterItNeverAlongside) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  EXPECT_TRUE(sm.feed(Event::trap(false)).empty());
  EXPECT_TRUE(sm.feed(Event::trap(false)).empty());  // two traps, one sweep
  EXPECT_TRUE(sm.state.sweepDue);
  EXPECT_EQ(sm.feedKinds(Event::lightSweepDone(true, false)), std::vector{LightSweep});
  EXPECT_TRUE(sm.feed(Event::lightSweepDone(true, false)).empty());
  EXPECT_EQ(sm.state.phase, P::MasterIdle);
}

TEST(MasterSweeps, AHeavyRequestDuringALightSweepMakesTheNextOneHeavy) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  sm.feed(Event::operatorSweep(true));
  EXPECT_EQ(sm.feedKinds(Event::lightSweepDone(true, false)), std::vector{HeavySweep});
}

// A reload changes the plan, not the fabric: a Replan (Reload) re-plans
// from the last discovery; no rediscovery follows, only a light sweep.
TEST(MasterSweeps, SighupReloadsReplansAndSweepsLight) {
  Sm sm = master();
  const auto actions = sm.feed(Event::reload());
  ASSERT_EQ(kinds(actions), (std::vector{ReloadConfig, Replan}));
  EXPECT_EQ(actions[1].reason, ReplanReason::Reload);
  EXPECT_EQ(sm.state.phase, P::MasterReplan);
  EXPECT_EQ(sm.feedKinds(Event::passDone(true)), std::vector{LightSweep});
  EXPECT_EQ(sm.feedKinds(Event::reload()), std::vector{ReloadConfig});  // busy: remembered
  const auto after = sm.feed(Event::lightSweepDone(true, false));
  ASSERT_EQ(kinds(after), std::vector{Replan});
  EXPECT_EQ(after[0].reason, ReplanReason::Reload);
  EXPECT_EQ(sm.feedKinds(Event::passDone(true)), std::vector{LightSweep});
}

// A standby has no plan to change: the reload only reads the file.
TEST(MasterSweeps, ANonMasterReloadsWithoutReplanning) {
  Sm sm = standby();
  EXPECT_EQ(sm.feedKinds(Event::reload()), std::vector{ReloadConfig});
  EXPECT_TRUE(sm.feed(Event::replanWanted(ReplanReason::Multicast)).empty());
  EXPECT_EQ(sm.state.replansDue, 0);
}

TEST(MasterSweeps, TimersDoNotPileUpWhileASweepRuns) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  EXPECT_TRUE(sm.feed(Event::sweepTimer()).empty());
  EXPECT_TRUE(sm.feed(Event::pollTimer()).empty());
  EXPECT_FALSE(sm.state.sweepDue);
}

TEST(Stop, SigtermStopsInEveryStateAndShowsNotActiveOnTheWayOut) {
  Sm sm = master();
  const auto a = sm.feed(Event::stop());
  ASSERT_EQ(kinds(a), (std::vector{SetSmState, Stop}));
  EXPECT_EQ(a[0].smState, SmState::NotActive);
  EXPECT_TRUE(sm.feed(Event::sweepTimer()).empty());
}

TEST(Failover, AStandbyCountsMissedPollsAndRediscoversAfterTheLimit) {
  Sm sm = standby();
  // The polls before the last one allowed (sm.polling_retries' default).
  for (std::uint32_t i = 1; i < kDefaultPollingRetries; ++i) {
    sm.feed(Event::pollTimer());
    EXPECT_TRUE(sm.feed(Event::masterSilent()).empty());
    EXPECT_EQ(sm.state.missedPolls, i);
  }
  sm.feed(Event::pollTimer());
  const auto a = sm.feed(Event::masterSilent());
  EXPECT_EQ(kinds(a), (std::vector{SetSmState, Discover}));
  EXPECT_EQ(sm.state.phase, P::Discovering);
  // The master is gone from the fabric: we win and keep what it built.
  EXPECT_EQ(sm.feedKinds(Event::discoveryDone(true, {})), (std::vector{SetSmState, TakeOver}));
}

TEST(Failover, AnAnswerResetsTheCount) {
  Sm sm = standby();
  sm.feed(Event::masterSilent());
  sm.feed(Event::masterSilent());
  sm.feed(Event::masterAnswered(smInfo(0x70, 9, SmState::Master)));
  EXPECT_EQ(sm.state.missedPolls, 0U);
}

TEST(Failover, AMasterThatStoppedBeingMasterIsAMiss) {
  Sm sm = standby();
  sm.feed(Event::masterAnswered(smInfo(0x70, 9, SmState::NotActive)));
  EXPECT_EQ(sm.state.missedPolls, 1U);
}

TEST(Failover, TheRetryNumberIsConfigurable) {
  SmContext c = ctx();
  c.pollingRetries = 1;
  Sm sm = standby(c);
  EXPECT_EQ(sm.feedKinds(Event::masterSilent()), (std::vector{SetSmState, Discover}));
}

TEST(HandoverOut, ABetterStandbyFoundBySweepingGetsTheSubnet) {
  Sm sm = master();
  sm.feed(Event::trap(true));
  const auto a = sm.feed(Event::heavySweepDone(true, true, {smInfo(0x70, 9, SmState::Standby)}));
  ASSERT_EQ(kinds(a), std::vector{SendHandover});
  EXPECT_EQ(a[0].peer, Guid{0x70});
  EXPECT_EQ(a[0].smState, SmState::Master);
  EXPECT_EQ(sm.state.phase, P::MasterHandover);
  // No sweeping while it decides.
  EXPECT_TRUE(sm.feed(Event::sweepTimer()).empty());
  EXPECT_EQ(sm.feedKinds(Event::handoverAnswered(true)), std::vector{SetSmState});
  EXPECT_EQ(sm.state.phase, P::Standby);
  EXPECT_EQ(sm.state.master, Guid{0x70});
}

TEST(HandoverOut, AnAcknowledgeFromTheNewMasterAlsoCompletesIt) {
  Sm sm = master();
  sm.feed(Event::trap(true));
  sm.feed(Event::heavySweepDone(true, true, {smInfo(0x70, 9, SmState::Standby)}));
  const auto a = sm.feed(Event::smInfoSet(sminfo::kAcknowledge, smInfo(0x70, 9, SmState::Standby)));
  ASSERT_EQ(kinds(a), (std::vector{AnswerSet, SetSmState}));
  EXPECT_TRUE(a[0].accepted);
  EXPECT_EQ(sm.state.phase, P::Standby);
  // The answer to our Set arriving after is old news.
  EXPECT_TRUE(sm.feed(Event::handoverAnswered(true)).empty());
  EXPECT_EQ(sm.state.phase, P::Standby);
}

TEST(HandoverOut, ARefusedHandoverLeavesUsMasterToLookAgainWithAHeavySweep) {
  Sm sm = master();
  sm.feed(Event::trap(true));
  sm.feed(Event::heavySweepDone(true, true, {smInfo(0x70, 9, SmState::Standby)}));
  sm.feed(Event::trap(false));  // came in meanwhile
  EXPECT_EQ(sm.feedKinds(Event::handoverAnswered(false)), std::vector{HeavySweep});
  EXPECT_EQ(sm.state.phase, P::MasterHeavySweep);
}

TEST(HandoverIn, AStandbyToldHandoverAnswersAcknowledgesAndTakesOver) {
  Sm sm = standby();
  const auto a = sm.feed(Event::smInfoSet(sminfo::kHandover, smInfo(0x70, 9, SmState::Master)));
  ASSERT_EQ(kinds(a), (std::vector{AnswerSet, SendAcknowledge, SetSmState, TakeOver}));
  EXPECT_TRUE(a[0].accepted);
  EXPECT_EQ(a[1].peer, Guid{0x70});
  EXPECT_EQ(a[1].smState, SmState::Standby);  // what OpenSM checks in an ACKNOWLEDGE
  EXPECT_EQ(a[2].smState, SmState::Master);
}

TEST(HandoverIn, OnlyAMasterMayHandOver) {
  Sm sm = standby();
  const auto a = sm.feed(Event::smInfoSet(sminfo::kHandover, smInfo(0x71, 9, SmState::Standby)));
  ASSERT_EQ(kinds(a), std::vector{AnswerSet});
  EXPECT_FALSE(a[0].accepted);
  EXPECT_EQ(sm.state.phase, P::Standby);
}

TEST(HandoverIn, AMasterHandedTheSubnetByAnotherMasterTakesOverWhatThatOneProgrammed) {
  Sm sm = master();
  const auto a = sm.feed(Event::smInfoSet(sminfo::kHandover, smInfo(0x90, 1, SmState::Master)));
  EXPECT_EQ(kinds(a), (std::vector{AnswerSet, SendAcknowledge, TakeOver}));
  EXPECT_EQ(a[1].smState, SmState::Master);
}

TEST(HandoverIn, AHandoverDuringASweepMakesTheNextSweepATakeOver) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  EXPECT_EQ(sm.feedKinds(Event::smInfoSet(sminfo::kHandover, smInfo(0x90, 1, SmState::Master))),
            (std::vector{AnswerSet, SendAcknowledge}));
  EXPECT_EQ(sm.feedKinds(Event::lightSweepDone(true, false)), std::vector{TakeOver});
}

TEST(TwoMasters, TheWorseOneHandsOverToTheBetterWhenItSeesIt) {
  Sm sm = master();
  sm.feed(Event::trap(true));
  const auto a = sm.feed(Event::heavySweepDone(true, true, {smInfo(0x70, 9, SmState::Master)}));
  ASSERT_EQ(kinds(a), std::vector{SendHandover});
  EXPECT_EQ(a[0].peer, Guid{0x70});
}

TEST(TwoMasters, TheBetterOneTellsTheWorseAndWaitsWithoutSweeping) {
  Sm sm = master();
  sm.feed(Event::trap(true));
  const auto a = sm.feed(Event::heavySweepDone(true, true, {smInfo(0x70, 1, SmState::Master)}));
  ASSERT_EQ(kinds(a), std::vector{NotifyMaster});
  EXPECT_EQ(a[0].peer, Guid{0x70});
  EXPECT_EQ(sm.state.phase, P::MasterWaiting);
  EXPECT_TRUE(sm.feed(Event::sweepTimer()).empty());
  EXPECT_TRUE(sm.feed(Event::trap(false)).empty());  // remembered for later
  EXPECT_EQ(sm.feedKinds(Event::pollTimer()), std::vector{PollMaster});
  // Still master: reminded at every poll, as a trap can be lost.
  EXPECT_EQ(sm.feedKinds(Event::masterAnswered(smInfo(0x70, 1, SmState::Master))),
            std::vector{NotifyMaster});
  // Its HANDOVER ends the wait; what it programmed meanwhile is taken over.
  EXPECT_EQ(sm.feedKinds(Event::smInfoSet(sminfo::kHandover, smInfo(0x70, 1, SmState::Master))),
            (std::vector{AnswerSet, SendAcknowledge, TakeOver}));
  EXPECT_EQ(sm.state.phase, P::MasterTakeOver);
}

TEST(TwoMasters, TheWorseOneDyingEndsTheWaitWithATakeOver) {
  Sm sm = master();
  sm.feed(Event::trap(true));
  sm.feed(Event::heavySweepDone(true, true, {smInfo(0x70, 1, SmState::Master)}));
  for (std::uint32_t i = 1; i < kDefaultPollingRetries; ++i)
    EXPECT_TRUE(sm.feed(Event::masterSilent()).empty());
  EXPECT_EQ(sm.feedKinds(Event::masterSilent()), std::vector{TakeOver});
}

TEST(TwoMasters, TheWorseOneYieldingEndsTheWaitWithATakeOver) {
  Sm sm = master();
  sm.feed(Event::trap(true));
  sm.feed(Event::heavySweepDone(true, true, {smInfo(0x70, 1, SmState::Master)}));
  EXPECT_EQ(sm.feedKinds(Event::masterAnswered(smInfo(0x70, 1, SmState::Standby))),
            std::vector{TakeOver});
}

TEST(ControlPackets, DisableSilencesAStandbyAndStandbyWakesItToPollTheSender) {
  Sm sm = standby();
  const SmInfo boss = smInfo(0x80, 9, SmState::Master);
  EXPECT_EQ(sm.feedKinds(Event::smInfoSet(sminfo::kDisable, boss)),
            (std::vector{AnswerSet, SetSmState}));
  EXPECT_EQ(sm.state.phase, P::NotActive);
  EXPECT_TRUE(sm.feed(Event::pollTimer()).empty());  // polls nobody
  EXPECT_TRUE(sm.feed(Event::sweepTimer()).empty());
  EXPECT_EQ(sm.feedKinds(Event::smInfoSet(sminfo::kStandby, boss)),
            (std::vector{AnswerSet, SetSmState}));
  EXPECT_EQ(sm.state.phase, P::Standby);
  EXPECT_EQ(sm.state.master, Guid{0x80});
}

TEST(ControlPackets, DiscoverSendsAStandbyBackToDiscovering) {
  Sm sm = standby();
  EXPECT_EQ(sm.feedKinds(Event::smInfoSet(sminfo::kDiscover, smInfo(0x70, 9, SmState::Master))),
            (std::vector{AnswerSet, SetSmState, Discover}));
  EXPECT_EQ(sm.state.phase, P::Discovering);
}

TEST(ControlPackets, CommandsThatMakeNoSenseHereAreRefused) {
  const SmInfo boss = smInfo(0x70, 9, SmState::Master);
  Sm m = master();
  for (auto mod : {sminfo::kDisable, sminfo::kStandby, sminfo::kAcknowledge, 0U, 6U}) {
    const auto a = m.feed(Event::smInfoSet(mod, boss));
    ASSERT_EQ(kinds(a), std::vector{AnswerSet}) << mod;
    EXPECT_FALSE(a[0].accepted) << mod;
    EXPECT_EQ(m.state.phase, P::MasterIdle);
  }
}

TEST(ControlPackets, AnAcknowledgeFromAnSmWeDidNotHandToIsRefused) {
  Sm sm = standby();
  const auto a = sm.feed(Event::smInfoSet(sminfo::kAcknowledge, smInfo(0x71, 9, SmState::Standby)));
  ASSERT_EQ(kinds(a), std::vector{AnswerSet});
  EXPECT_FALSE(a[0].accepted);
}

TEST(SmKey, ControlPacketsWithoutOurKeyAreIgnoredUnanswered) {
  Sm sm = standby(ctx(0xc0ffee));
  EXPECT_TRUE(
      sm.feed(Event::smInfoSet(sminfo::kDisable, smInfo(0x70, 9, SmState::Master, 0))).empty());
  EXPECT_TRUE(sm.feed(Event::smInfoSet(sminfo::kHandover, smInfo(0x70, 9, SmState::Master, 0xbad)))
                  .empty());
  EXPECT_EQ(sm.state.phase, P::Standby);
  const auto a =
      sm.feed(Event::smInfoSet(sminfo::kHandover, smInfo(0x70, 9, SmState::Master, 0xc0ffee)));
  EXPECT_TRUE(a.at(0).accepted);
  EXPECT_EQ(sm.state.phase, P::MasterTakeOver);
}

// OpenSM shows its SM_Key only to SMs it knows as MASTER: its HANDOVER to a
// standby carries 0, and must still hand the subnet over.
TEST(SmKey, AHandoverWithoutAnyKeyIsTakenAsOpenSmSendsIt) {
  Sm sm = standby(ctx(0xc0ffee));
  const auto a = sm.feed(Event::smInfoSet(sminfo::kHandover, smInfo(0x70, 9, SmState::Master, 0)));
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(a.at(0).accepted);
  EXPECT_EQ(sm.state.phase, P::MasterTakeOver);
}

TEST(SmKey, AMasterOfAnotherKeyDoesNotExistForUs) {
  Sm sm(ctx(0xc0ffee));
  sm.feed(Event::discoveryDone(true, {smInfo(0x70, 15, SmState::Master, 0)}));
  EXPECT_EQ(sm.state.phase, P::MasterTakeOver);
  sm.feed(Event::heavySweepDone(true, true, {smInfo(0x70, 15, SmState::Standby, 0)}));
  EXPECT_EQ(sm.state.phase, P::MasterIdle);  // no handover to it either
}

TEST(SmKey, PollAnswersWithoutOurKeyAreMisses) {
  Sm sm = standby(ctx(0xc0ffee));
  sm.feed(Event::masterAnswered(smInfo(0x70, 9, SmState::Master, 0)));
  EXPECT_EQ(sm.state.missedPolls, 1U);
  sm.feed(Event::masterAnswered(smInfo(0x70, 9, SmState::Master, 0xc0ffee)));
  EXPECT_EQ(sm.state.missedPolls, 0U);
}

TEST(LateResults, ResultsOfWorkAbandonedByAStateChangeAreIgnored) {
  // A DISCOVER during a heavy sweep: the sweep's result lands in DISCOVERING.
  Sm sm = master();
  sm.feed(Event::operatorSweep(true));
  sm.feed(Event::smInfoSet(sminfo::kDiscover, smInfo(0x70, 9, SmState::Master)));
  EXPECT_EQ(sm.state.phase, P::Discovering);
  EXPECT_TRUE(sm.feed(Event::heavySweepDone(true, true, {})).empty());
  EXPECT_EQ(sm.state.phase, P::Discovering);
}

// ---- passes between sweeps: rebalance and replans ----

std::vector<ReplanReason> reasons(const std::vector<Action>& actions) {
  std::vector<ReplanReason> out;
  for (const auto& a : actions)
    if (a.kind == Replan) out.push_back(a.reason);
  return out;
}

TEST(Passes, AReplanAskedWhileIdleRunsAtOnceAndEndsIdle) {
  Sm sm = master();
  const auto actions = sm.feed(Event::replanWanted(ReplanReason::Multicast));
  EXPECT_EQ(reasons(actions), std::vector{ReplanReason::Multicast});
  EXPECT_EQ(sm.state.phase, P::MasterReplan);
  EXPECT_TRUE(sm.feed(Event::sweepTimer()).empty()) << "no sweep beside a pass";
  EXPECT_TRUE(sm.feed(Event::passDone(true)).empty());
  EXPECT_EQ(sm.state.phase, P::MasterIdle);
}

// What the health book finds after a sweep is re-planned after that sweep
// ends, never inside it.
TEST(Passes, AReplanAskedDuringASweepRunsWhenItEnds) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  EXPECT_TRUE(sm.feed(Event::replanWanted(ReplanReason::Isolation)).empty());
  EXPECT_EQ(reasons(sm.feed(Event::lightSweepDone(true, false))),
            std::vector{ReplanReason::Isolation});
  EXPECT_EQ(sm.state.replansDue, 0);
}

TEST(Passes, ReplansRememberedRunOneAfterAnotherInReasonOrderThenTheLightSweep) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  sm.feed(Event::replanWanted(ReplanReason::Multicast));
  sm.feed(Event::reload());  // remembers Replan (Reload) and the light sweep after it
  sm.feed(Event::replanWanted(ReplanReason::Isolation));
  sm.feed(Event::replanWanted(ReplanReason::Isolation));  // once is enough
  std::vector<ReplanReason> order;
  auto actions = sm.feed(Event::lightSweepDone(true, false));
  for (int i = 0; i < 3; ++i) {
    auto r = reasons(actions);
    ASSERT_EQ(r.size(), 1U);
    order.push_back(r[0]);
    actions = sm.feed(Event::passDone(true));
  }
  EXPECT_EQ(order,
            (std::vector{ReplanReason::Isolation, ReplanReason::Reload, ReplanReason::Multicast}));
  EXPECT_EQ(kinds(actions), std::vector{LightSweep});
}

// A heavy sweep plans from scratch with whatever a replan would bring in.
TEST(Passes, AHeavySweepDueDropsTheReplansAndTheRebalance) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  sm.feed(Event::replanWanted(ReplanReason::Isolation));
  sm.feed(Event::rebalanceDue());
  sm.feed(Event::trap(true));
  EXPECT_EQ(sm.feedKinds(Event::lightSweepDone(true, false)), std::vector{HeavySweep});
  EXPECT_EQ(sm.state.replansDue, 0);
  EXPECT_FALSE(sm.state.rebalanceDue);
  EXPECT_TRUE(sm.feed(Event::heavySweepDone(true, true, {})).empty());
  EXPECT_EQ(sm.state.phase, P::MasterIdle);
}

TEST(Passes, ALightSweepThatNeedsAHeavyOneDropsThem) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  sm.feed(Event::replanWanted(ReplanReason::Isolation));
  sm.feed(Event::rebalanceDue());
  EXPECT_EQ(sm.feedKinds(Event::lightSweepDone(true, true)), std::vector{HeavySweep});
  EXPECT_TRUE(sm.feed(Event::heavySweepDone(true, true, {})).empty());
}

// The scheduled rebalance is its own action after a quiet light sweep.
TEST(Passes, ARebalanceDueRunsAfterAQuietLightSweep) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  EXPECT_TRUE(sm.feed(Event::rebalanceDue()).empty());
  EXPECT_EQ(sm.feedKinds(Event::lightSweepDone(true, false)), std::vector{Rebalance});
  EXPECT_EQ(sm.state.phase, P::MasterRebalance);
  EXPECT_TRUE(sm.feed(Event::passDone(true)).empty());
  EXPECT_EQ(sm.state.phase, P::MasterIdle);
}

// A light sweep that could not look at every switch asks for a heavy one
// (at the next tick); a rebalance would route afresh on a fabric not read.
TEST(Passes, AFailedLightSweepDropsTheRebalanceButKeepsTheReplan) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  sm.feed(Event::rebalanceDue());
  sm.feed(Event::replanWanted(ReplanReason::Isolation));
  EXPECT_EQ(reasons(sm.feed(Event::lightSweepDone(false, false))),
            std::vector{ReplanReason::Isolation});
  EXPECT_TRUE(sm.feed(Event::passDone(true)).empty());
  EXPECT_EQ(sm.state.phase, P::MasterIdle);
  EXPECT_TRUE(sm.state.heavyDue);
  EXPECT_EQ(sm.feedKinds(Event::sweepTimer()), std::vector{HeavySweep});
}

// A rebalance that could not run or left the subnet not up: sweep heavy at once.
TEST(Passes, APassThatFailedIsFollowedByAHeavySweepAtOnce) {
  Sm sm = master();
  sm.feed(Event::rebalanceDue());
  EXPECT_EQ(sm.feedKinds(Event::passDone(false)), std::vector{HeavySweep});
}

// A replan that could not run asks for the heavy sweep itself (as
// `ibsm sweep --heavy` would): after the pass, before anything else.
TEST(Passes, AHeavySweepAskedDuringAPassRunsAfterItAndDropsTheRest) {
  Sm sm = master();
  sm.feed(Event::reload());
  sm.feed(Event::replanWanted(ReplanReason::Multicast));
  sm.feed(Event::operatorSweep(true));
  EXPECT_EQ(sm.feedKinds(Event::passDone(true)), std::vector{HeavySweep});
  EXPECT_EQ(sm.state.replansDue, 0);
}

TEST(Passes, LeavingMasterDropsThePassesRemembered) {
  Sm sm = master();
  sm.feed(Event::sweepTimer());
  sm.feed(Event::replanWanted(ReplanReason::Isolation));
  sm.feed(Event::rebalanceDue());
  sm.feed(Event::smInfoSet(sminfo::kDiscover, smInfo(0x70, 9, SmState::Master)));
  EXPECT_EQ(sm.state.phase, P::Discovering);
  EXPECT_EQ(sm.state.replansDue, 0);
  EXPECT_FALSE(sm.state.rebalanceDue);
}

// A master handing over keeps what it was asked until the answer:
// accepted, it is a standby with nothing to program; refused, still
// master, it re-plans now and looks again with a heavy sweep at the next tick.
TEST(Passes, AHandoverAnsweredEndsOrRunsTheReplansRemembered) {
  for (bool accepted : {true, false}) {
    Sm sm = master();
    sm.feed(Event::sweepTimer());
    sm.feed(Event::trap(true));
    sm.feed(Event::lightSweepDone(true, false));  // the heavy sweep
    sm.feed(Event::replanWanted(ReplanReason::Isolation));
    sm.feed(Event::heavySweepDone(true, true, {smInfo(0x70, 9, SmState::Standby)}));
    ASSERT_EQ(sm.state.phase, P::MasterHandover);
    EXPECT_NE(sm.state.replansDue, 0);
    const auto actions = sm.feed(Event::handoverAnswered(accepted));
    if (accepted) {
      EXPECT_EQ(sm.state.phase, P::Standby);
      EXPECT_EQ(sm.state.replansDue, 0);
    } else {
      EXPECT_EQ(reasons(actions), std::vector{ReplanReason::Isolation});
      EXPECT_TRUE(sm.state.heavyDue);
    }
  }
}

}  // namespace
}  // namespace ibsm::sm::fsm
