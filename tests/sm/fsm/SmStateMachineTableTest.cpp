// Every (phase, event) pair of the SM state machine, written out: the cells
// where something happens are listed; in every other cell nothing does.
// Then rules that must hold for every phase, flag combination and event
// variant (SetSmState exactly when the visible state changes, one sweep at
// a time, a NOTACTIVE SM initiates nothing, ...).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "sm/fsm/SmStateMachine.h"
#include "tests/sm/fsm/FsmSpecs.h"

namespace ibsm::sm::fsm {
namespace {

using enum ActionKind;
using P = Phase;
using E = EventKind;

const SmContext kCtx{.self = smInfo(0x50, 5, SmState::Discovering)};
const Guid kPeer{0x70};
const SmInfo kBetterMaster = smInfo(0x70, 9, SmState::Master);

State canonical(Phase p) {
  State s;
  s.phase = p;
  if (p == P::Standby || p == P::MasterHandover || p == P::MasterWaiting) s.master = kPeer;
  return s;
}

// One plain event of each kind: a lone SM's sweeps succeed, the polled
// master answers, the handover is answered, a better master hands over.
Event canonical(EventKind k) {
  switch (k) {
    case E::SweepTimer:
      return Event::sweepTimer();
    case E::PollTimer:
      return Event::pollTimer();
    case E::Trap:
      return Event::trap(false);
    case E::OperatorSweep:
      return Event::operatorSweep(false);
    case E::Reload:
      return Event::reload();
    case E::Stop:
      return Event::stop();
    case E::DiscoveryDone:
      return Event::discoveryDone(true, {});
    case E::HeavySweepDone:
      return Event::heavySweepDone(true, true, {});
    case E::LightSweepDone:
      return Event::lightSweepDone(true, false);
    case E::MasterAnswered:
      return Event::masterAnswered(kBetterMaster);
    case E::MasterSilent:
      return Event::masterSilent();
    case E::HandoverAnswered:
      return Event::handoverAnswered(true);
    case E::SmInfoSet:
      return Event::smInfoSet(sminfo::kHandover, kBetterMaster);
    case E::ReplanWanted:
      return Event::replanWanted(ReplanReason::Isolation);
    case E::RebalanceDue:
      return Event::rebalanceDue();
    case E::PassDone:
      return Event::passDone(true);
  }
  return {};
}

struct Cell {
  Phase to;
  std::vector<ActionKind> actions;
};

// clang-format off
const std::map<std::pair<Phase, EventKind>, Cell> kSpec = {
  {{P::Discovering, E::Reload},        {P::Discovering, {ReloadConfig}}},
  {{P::Discovering, E::Stop},          {P::Stopped, {SetSmState, Stop}}},
  {{P::Discovering, E::DiscoveryDone}, {P::MasterTakeOver, {SetSmState, TakeOver}}},
  {{P::Discovering, E::SmInfoSet},     {P::MasterTakeOver, {AnswerSet, SendAcknowledge, SetSmState, TakeOver}}},

  {{P::DiscoveryFailed, E::SweepTimer},    {P::Discovering, {Discover}}},
  {{P::DiscoveryFailed, E::PollTimer},     {P::Discovering, {Discover}}},
  {{P::DiscoveryFailed, E::OperatorSweep}, {P::Discovering, {Discover}}},
  {{P::DiscoveryFailed, E::Reload},        {P::DiscoveryFailed, {ReloadConfig}}},
  {{P::DiscoveryFailed, E::Stop},          {P::Stopped, {SetSmState, Stop}}},
  {{P::DiscoveryFailed, E::SmInfoSet},     {P::MasterTakeOver, {AnswerSet, SendAcknowledge, SetSmState, TakeOver}}},

  {{P::Standby, E::PollTimer}, {P::Standby, {PollMaster}}},
  {{P::Standby, E::Reload},    {P::Standby, {ReloadConfig}}},
  {{P::Standby, E::Stop},      {P::Stopped, {SetSmState, Stop}}},
  {{P::Standby, E::SmInfoSet}, {P::MasterTakeOver, {AnswerSet, SendAcknowledge, SetSmState, TakeOver}}},
  // MasterAnswered (alive, better than us) and one MasterSilent change only the miss count.

  {{P::NotActive, E::Reload},    {P::NotActive, {ReloadConfig}}},
  {{P::NotActive, E::Stop},      {P::Stopped, {Stop}}},         // already NOTACTIVE to others
  {{P::NotActive, E::SmInfoSet}, {P::NotActive, {AnswerSet}}},  // refused: HANDOVER to a disabled SM

  {{P::MasterIdle, E::SweepTimer},    {P::MasterLightSweep, {LightSweep}}},
  {{P::MasterIdle, E::Trap},          {P::MasterLightSweep, {LightSweep}}},
  {{P::MasterIdle, E::OperatorSweep}, {P::MasterLightSweep, {LightSweep}}},
  // The reload's replan at once; the light sweep after it (sweepDue).
  {{P::MasterIdle, E::Reload},        {P::MasterReplan, {ReloadConfig, Replan}}},
  {{P::MasterIdle, E::Stop},          {P::Stopped, {SetSmState, Stop}}},
  // Handed the subnet by a master we did not know of: it was programming the switches too.
  {{P::MasterIdle, E::SmInfoSet},     {P::MasterTakeOver, {AnswerSet, SendAcknowledge, TakeOver}}},
  {{P::MasterIdle, E::ReplanWanted},  {P::MasterReplan, {Replan}}},
  {{P::MasterIdle, E::RebalanceDue},  {P::MasterRebalance, {Rebalance}}},

  {{P::MasterTakeOver, E::Reload},         {P::MasterTakeOver, {ReloadConfig}}},
  {{P::MasterTakeOver, E::Stop},           {P::Stopped, {SetSmState, Stop}}},
  {{P::MasterTakeOver, E::HeavySweepDone}, {P::MasterIdle, {}}},
  {{P::MasterTakeOver, E::SmInfoSet},      {P::MasterTakeOver, {AnswerSet, SendAcknowledge}}},

  {{P::MasterHeavySweep, E::Reload},         {P::MasterHeavySweep, {ReloadConfig}}},
  {{P::MasterHeavySweep, E::Stop},           {P::Stopped, {SetSmState, Stop}}},
  {{P::MasterHeavySweep, E::HeavySweepDone}, {P::MasterIdle, {}}},
  {{P::MasterHeavySweep, E::SmInfoSet},      {P::MasterHeavySweep, {AnswerSet, SendAcknowledge}}},

  {{P::MasterLightSweep, E::Reload},         {P::MasterLightSweep, {ReloadConfig}}},
  {{P::MasterLightSweep, E::Stop},           {P::Stopped, {SetSmState, Stop}}},
  {{P::MasterLightSweep, E::LightSweepDone}, {P::MasterIdle, {}}},
  {{P::MasterLightSweep, E::SmInfoSet},      {P::MasterLightSweep, {AnswerSet, SendAcknowledge}}},

  // A pass asked, a trap or a sweep request while a pass runs: remembered, nothing now.
  {{P::MasterRebalance, E::Reload},    {P::MasterRebalance, {ReloadConfig}}},
  {{P::MasterRebalance, E::Stop},      {P::Stopped, {SetSmState, Stop}}},
  {{P::MasterRebalance, E::SmInfoSet}, {P::MasterRebalance, {AnswerSet, SendAcknowledge}}},
  {{P::MasterRebalance, E::PassDone},  {P::MasterIdle, {}}},

  {{P::MasterReplan, E::Reload},    {P::MasterReplan, {ReloadConfig}}},
  {{P::MasterReplan, E::Stop},      {P::Stopped, {SetSmState, Stop}}},
  {{P::MasterReplan, E::SmInfoSet}, {P::MasterReplan, {AnswerSet, SendAcknowledge}}},
  {{P::MasterReplan, E::PassDone},  {P::MasterIdle, {}}},

  {{P::MasterHandover, E::Reload},           {P::MasterHandover, {ReloadConfig}}},
  {{P::MasterHandover, E::Stop},             {P::Stopped, {SetSmState, Stop}}},
  {{P::MasterHandover, E::HandoverAnswered}, {P::Standby, {SetSmState}}},
  {{P::MasterHandover, E::SmInfoSet},        {P::MasterHandover, {AnswerSet}}},  // refused

  {{P::MasterWaiting, E::PollTimer},      {P::MasterWaiting, {PollMaster}}},
  {{P::MasterWaiting, E::Reload},         {P::MasterWaiting, {ReloadConfig}}},
  {{P::MasterWaiting, E::Stop},           {P::Stopped, {SetSmState, Stop}}},
  // The polled master now outranks us: a sweep (taking over what it did) sorts it out.
  {{P::MasterWaiting, E::MasterAnswered}, {P::MasterTakeOver, {TakeOver}}},
  {{P::MasterWaiting, E::SmInfoSet},      {P::MasterTakeOver, {AnswerSet, SendAcknowledge, TakeOver}}},
};
// clang-format on

TEST(SmStateMachineTable, EveryPhaseAndEventPairHasTheSpecifiedOutcome) {
  std::size_t cells = 0;
  for (const Phase p : kAllPhases)
    for (std::size_t k = 0; k < kEventKindCount; ++k) {
      const auto kind = static_cast<EventKind>(k);
      const auto it = kSpec.find({p, kind});
      const Cell expected = it != kSpec.end() ? it->second : Cell{p, {}};
      const auto t = next(kCtx, canonical(p), canonical(kind));
      EXPECT_EQ(t.state.phase, expected.to) << name(p) << " + " << name(kind);
      EXPECT_EQ(kinds(t.actions), expected.actions) << name(p) << " + " << name(kind);
      ++cells;
    }
  EXPECT_EQ(cells, kPhaseCount * kEventKindCount);
  EXPECT_EQ(cells, 208U);
}

// ---- rules over every phase, flag combination and event variant ----

std::vector<State> stateVariants() {
  std::vector<State> out;
  for (const Phase p : kAllPhases)
    for (int flags = 0; flags < 64; ++flags)
      for (std::uint32_t missed : {0U, 3U}) {
        State s = canonical(p);
        s.sweepDue = flags & 1;
        s.heavyDue = flags & 2;
        s.takeoverDue = flags & 4;
        s.rebalanceDue = flags & 8;
        // Replans remembered: none, a reload's, or an isolation's and a multicast's.
        s.replansDue = static_cast<std::uint8_t>((flags >> 4) == 1 ? 2 : (flags >> 4) == 2 ? 5 : 0);
        if ((flags >> 4) == 3) continue;
        s.missedPolls = (p == P::Standby || p == P::MasterWaiting) ? missed : 0;
        out.push_back(s);
      }
  return out;
}

std::vector<Event> eventVariants() {
  std::vector<Event> out;
  out.reserve(128);
  for (std::size_t k = 0; k < kEventKindCount; ++k) out.push_back(canonical(EventKind(k)));
  out.push_back(Event::trap(true));
  out.push_back(Event::operatorSweep(true));
  const std::vector<SmInfo> better = {smInfo(0x70, 9, SmState::Standby)};
  const std::vector<SmInfo> masterBelow = {smInfo(0x70, 1, SmState::Master)};
  for (bool ok : {true, false}) {
    out.push_back(Event::discoveryDone(ok, better));
    out.push_back(Event::discoveryDone(ok, masterBelow));
    for (bool up : {true, false}) {
      out.push_back(Event::heavySweepDone(ok, up, {}));
      out.push_back(Event::heavySweepDone(ok, up, better));
    }
    for (bool changed : {true, false}) out.push_back(Event::lightSweepDone(ok, changed));
    out.push_back(Event::handoverAnswered(ok));
    out.push_back(Event::passDone(ok));
  }
  for (std::size_t r = 0; r < kReplanReasonCount; ++r)
    out.push_back(Event::replanWanted(ReplanReason(r)));
  for (SmState st : {SmState::NotActive, SmState::Discovering, SmState::Standby, SmState::Master})
    for (std::uint8_t prio : {1, 9}) out.push_back(Event::masterAnswered(smInfo(0x70, prio, st)));
  out.push_back(Event::masterAnswered(smInfo(0x71, 9, SmState::Master)));
  for (std::uint32_t mod = 0; mod <= 6; ++mod)
    for (SmState st : {SmState::NotActive, SmState::Discovering, SmState::Standby, SmState::Master})
      for (std::uint64_t guid : {0x70, 0x71})
        out.push_back(Event::smInfoSet(mod, smInfo(guid, 9, st)));
  return out;
}

bool isWork(ActionKind k) {
  return k == Discover || k == TakeOver || k == HeavySweep || k == LightSweep || k == Rebalance ||
         k == Replan || k == PollMaster || k == SendHandover;
}

// The phases a piece of work may leave the SM in.
std::set<Phase> phasesOfWork(ActionKind k) {
  switch (k) {
    case Discover:
      return {P::Discovering};
    case TakeOver:
      return {P::MasterTakeOver};
    case HeavySweep:
      return {P::MasterHeavySweep};
    case LightSweep:
      return {P::MasterLightSweep};
    case Rebalance:
      return {P::MasterRebalance};
    case Replan:
      return {P::MasterReplan};
    case SendHandover:
      return {P::MasterHandover};
    default:  // PollMaster
      return {P::Standby, P::MasterWaiting};
  }
}

template <typename Check>
void forEveryTransition(const SmContext& ctx, Check check) {
  const auto states = stateVariants();
  const auto events = eventVariants();
  for (const auto& s : states)
    for (const auto& e : events) {
      SCOPED_TRACE(fmt::format(
          "{} (sweepDue {} heavyDue {} takeoverDue {} rebalanceDue {} replansDue {} missed {}) + "
          "{} mod {}",
          name(s.phase), s.sweepDue, s.heavyDue, s.takeoverDue, s.rebalanceDue, s.replansDue,
          s.missedPolls, name(e.kind), e.modifier));
      check(s, e, next(ctx, s, e));
    }
}

TEST(SmStateMachineRules, SetSmStateExactlyWhenTheStateOthersSeeChanges) {
  forEveryTransition(kCtx, [](const State& s, const Event&, const Transition& t) {
    const bool changes = smStateOf(s.phase) != smStateOf(t.state.phase);
    const auto n = std::ranges::count(kinds(t.actions), SetSmState);
    EXPECT_EQ(n, changes ? 1 : 0);
    for (const auto& a : t.actions)
      if (a.kind == SetSmState) {
        EXPECT_EQ(a.smState, smStateOf(t.state.phase));
      }
  });
}

TEST(SmStateMachineRules, ATrustedSetIsAnsweredFirstAndOnlyASetIsAnswered) {
  forEveryTransition(kCtx, [](const State& s, const Event& e, const Transition& t) {
    const bool answered = e.kind == E::SmInfoSet && s.phase != P::Stopped;
    const auto n = std::ranges::count(kinds(t.actions), AnswerSet);
    EXPECT_EQ(n, answered ? 1 : 0);
    if (answered) {
      EXPECT_EQ(t.actions.front().kind, AnswerSet);
    }
  });
}

TEST(SmStateMachineRules, AtMostOnePieceOfWorkAndThePhaseSaysWhichOneRuns) {
  forEveryTransition(kCtx, [](const State& s, const Event&, const Transition& t) {
    std::vector<ActionKind> work;
    for (auto k : kinds(t.actions))
      if (isWork(k)) work.push_back(k);
    ASSERT_LE(work.size(), 1U);
    if (!work.empty()) {
      EXPECT_TRUE(phasesOfWork(work[0]).contains(t.state.phase)) << name(work[0]);
      EXPECT_EQ(t.actions.back().kind, work[0]);  // the work comes last
    }
    // Entering a phase that stands for running work means starting it.
    const std::set<Phase> busy = {P::Discovering,      P::MasterTakeOver,  P::MasterHeavySweep,
                                  P::MasterLightSweep, P::MasterRebalance, P::MasterReplan,
                                  P::MasterHandover};
    if (busy.contains(t.state.phase) && t.state.phase != s.phase) {
      EXPECT_EQ(work.size(), 1U);
    }
    // Waiting for a worse master means having told it.
    if (t.state.phase == P::MasterWaiting && s.phase != P::MasterWaiting) {
      EXPECT_EQ(kinds(t.actions), std::vector{NotifyMaster});
    }
  });
}

TEST(SmStateMachineRules, ANotActiveSmInitiatesNothing) {
  forEveryTransition(kCtx, [](const State&, const Event&, const Transition& t) {
    if (t.state.phase != P::NotActive) return;
    for (auto k : kinds(t.actions))
      EXPECT_TRUE(k == AnswerSet || k == SetSmState || k == ReloadConfig) << name(k);
  });
}

TEST(SmStateMachineRules, StopEndsEverythingAndStoppedIsFinal) {
  forEveryTransition(kCtx, [](const State& s, const Event& e, const Transition& t) {
    if (s.phase == P::Stopped) {
      EXPECT_EQ(t.state.phase, P::Stopped);
      EXPECT_TRUE(t.actions.empty());
    } else if (e.kind == E::Stop) {
      EXPECT_EQ(t.state.phase, P::Stopped);
      ASSERT_FALSE(t.actions.empty());
      EXPECT_EQ(t.actions.back().kind, Stop);
    } else {
      EXPECT_NE(t.state.phase, P::Stopped);
      EXPECT_EQ(std::ranges::count(kinds(t.actions), Stop), 0);
    }
  });
}

TEST(SmStateMachineRules, OnlyAnAcceptedHandoverIsAcknowledgedWithOurStateBeforeIt) {
  forEveryTransition(kCtx, [](const State& s, const Event& e, const Transition& t) {
    for (const auto& a : t.actions) {
      if (a.kind != SendAcknowledge) continue;
      EXPECT_EQ(e.kind, E::SmInfoSet);
      EXPECT_EQ(e.modifier, sminfo::kHandover);
      EXPECT_TRUE(t.actions.front().accepted);
      EXPECT_EQ(a.peer, e.peer.guid);
      EXPECT_EQ(a.smState, smStateOf(s.phase));
      EXPECT_EQ(smStateOf(t.state.phase), SmState::Master);
    }
  });
}

// A TakeOver whenever another SM may have programmed the switches since our
// last sweep, or an earlier TakeOver did not finish -- and only then.
TEST(SmStateMachineRules, ANewMasterAlwaysStartsByTakingOver) {
  forEveryTransition(kCtx, [](const State& s, const Event& e, const Transition& t) {
    const bool becameMaster =
        smStateOf(s.phase) != SmState::Master && smStateOf(t.state.phase) == SmState::Master;
    const bool handedOver = e.kind == E::SmInfoSet && e.modifier == sminfo::kHandover &&
                            !t.actions.empty() && t.actions.front().accepted;
    const bool takeOver = std::ranges::count(kinds(t.actions), TakeOver) > 0;
    if (becameMaster) {
      EXPECT_EQ(t.state.phase, P::MasterTakeOver);
      EXPECT_TRUE(takeOver);
    }
    if (takeOver) {
      EXPECT_EQ(t.state.phase, P::MasterTakeOver);
      EXPECT_TRUE(becameMaster || handedOver || s.takeoverDue || s.phase == P::MasterTakeOver ||
                  s.phase == P::MasterWaiting);
    }
    if (handedOver && smStateOf(s.phase) == SmState::Master) {
      EXPECT_TRUE(takeOver || t.state.takeoverDue);
    }
  });
}

// The variants present no key; only a HANDOVER may come unkeyed (as
// OpenSM sends it to a standby), since it can only give us the subnet.
TEST(SmStateMachineRules, WithAnSmKeySetsWithoutItAreIgnoredUnanswered) {
  SmContext keyed = kCtx;
  keyed.self.smKey = 0x5eed;
  forEveryTransition(keyed, [](const State& s, const Event& e, const Transition& t) {
    if (e.kind != E::SmInfoSet || e.modifier == sminfo::kHandover) return;
    EXPECT_EQ(t.state, s);
    EXPECT_TRUE(t.actions.empty());
  });
}

TEST(SmStateMachineRules, TheSameInputGivesTheSameOutput) {
  forEveryTransition(kCtx, [](const State& s, const Event& e, const Transition& t) {
    const auto again = next(kCtx, s, e);
    EXPECT_EQ(again.state, t.state);
    EXPECT_EQ(again.actions, t.actions);
  });
}

// Every programming pass is an action of the machine, and the machine runs
// one at a time: a Rebalance or Replan starts only from MasterIdle, or as
// the next thing when a sweep, a pass or a handover attempt ends.
TEST(SmStateMachineRules, APassStartsOnlyWhenTheMasterIsFree) {
  forEveryTransition(kCtx, [](const State& s, const Event& e, const Transition& t) {
    const auto k = kinds(t.actions);
    if (std::ranges::count(k, Rebalance) + std::ranges::count(k, Replan) == 0) return;
    const bool workEnded = e.kind == E::HeavySweepDone || e.kind == E::LightSweepDone ||
                           e.kind == E::PassDone || e.kind == E::HandoverAnswered;
    EXPECT_TRUE(s.phase == P::MasterIdle || workEnded) << name(s.phase);
    // A SIGHUP's replan runs at once, as it always did, the heavy sweep after it.
    if (e.kind != E::Reload) {
      EXPECT_FALSE(t.state.sweepDue && (t.state.heavyDue || t.state.takeoverDue))
          << "a heavy sweep asked goes first";
    }
  });
}

// A heavy sweep plans from scratch (the isolation asked, the settings read,
// the groups, routes afresh when due): it takes the remembered passes with it.
// Not master any more: nothing of the master's is left to do.
TEST(SmStateMachineRules, AHeavySweepOrLeavingMasterDropsThePassesRemembered) {
  forEveryTransition(kCtx, [](const State& s, const Event&, const Transition& t) {
    const auto k = kinds(t.actions);
    const bool heavy = std::ranges::count(k, HeavySweep) + std::ranges::count(k, TakeOver) > 0;
    const bool leftMaster =
        smStateOf(s.phase) == SmState::Master && smStateOf(t.state.phase) != SmState::Master;
    if (heavy || leftMaster) {
      EXPECT_EQ(t.state.replansDue, 0);
      EXPECT_FALSE(t.state.rebalanceDue);
    }
  });
}

// A pass asked is never lost while master: it runs now, is remembered, or
// a heavy sweep starting now takes it in.
TEST(SmStateMachineRules, APassAskedAsMasterRunsNowOrIsRemembered) {
  forEveryTransition(kCtx, [](const State& s, const Event& e, const Transition& t) {
    if (smStateOf(s.phase) != SmState::Master || s.phase == P::Stopped) return;
    const auto k = kinds(t.actions);
    const bool heavy = std::ranges::count(k, HeavySweep) + std::ranges::count(k, TakeOver) > 0;
    if (e.kind == E::ReplanWanted) {
      const auto bit = 1U << static_cast<unsigned>(e.reason);
      const bool now = std::ranges::count(k, Replan) > 0 && t.actions.back().reason == e.reason;
      EXPECT_TRUE(now || heavy || (t.state.replansDue & bit) != 0);
    }
    if (e.kind == E::RebalanceDue) {
      EXPECT_TRUE(std::ranges::count(k, Rebalance) > 0 || heavy || t.state.rebalanceDue);
    }
  });
}

TEST(SmStateMachineNames, EveryPhaseEventAndActionHasAName) {
  std::set<std::string_view> seen;
  for (const Phase p : kAllPhases) EXPECT_TRUE(seen.insert(name(p)).second);
  for (std::size_t k = 0; k < kEventKindCount; ++k)
    EXPECT_TRUE(seen.insert(name(EventKind(k))).second);
  for (int k = 0; k <= static_cast<int>(Stop); ++k) EXPECT_FALSE(name(ActionKind(k)).empty());
  for (std::size_t r = 0; r < kReplanReasonCount; ++r)
    EXPECT_TRUE(seen.insert(name(ReplanReason(r))).second);
}

}  // namespace
}  // namespace ibsm::sm::fsm
