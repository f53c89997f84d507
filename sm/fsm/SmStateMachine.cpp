#include "sm/fsm/SmStateMachine.h"

#include <algorithm>

#include "sm/fsm/Election.h"

namespace ibsm::sm::fsm {
namespace {

using Actions = std::vector<Action>;
using Handler = Transition (*)(const SmContext&, const State&, const Event&);

Action action(ActionKind kind, Guid peer = {}, SmState smState = SmState::NotActive) {
  return {.kind = kind, .peer = peer, .smState = smState};
}
Action answerSet(bool accepted) {
  return {.kind = ActionKind::AnswerSet, .accepted = accepted};
}

// Every change of phase goes through here, so SetSmState appears exactly
// when the state others see changes, between the replies to the sender
// (`first`) and the work of the new phase (`then`).
Transition moveTo(const State& from, State to, Actions first, const Actions& then) {
  if (smStateOf(from.phase) != smStateOf(to.phase))
    first.push_back(action(ActionKind::SetSmState, {}, smStateOf(to.phase)));
  first.insert(first.end(), then.begin(), then.end());
  return {to, std::move(first)};
}

Transition stay(const State& s, Actions actions = {}) {
  return {s, std::move(actions)};
}

Transition enterDiscovering(const State& from, Actions first = {}) {
  return moveTo(from, State{.phase = Phase::Discovering}, std::move(first),
                {action(ActionKind::Discover)});
}

Transition enterStandby(const State& from, Guid master, Actions first = {}) {
  return moveTo(from, State{.phase = Phase::Standby, .master = master}, std::move(first), {});
}

Transition becomeMaster(const State& from, Actions first = {}) {
  return moveTo(from, State{.phase = Phase::MasterTakeOver}, std::move(first),
                {action(ActionKind::TakeOver)});
}

std::uint8_t bit(ReplanReason r) {
  return static_cast<std::uint8_t>(1U << static_cast<unsigned>(r));
}

// Master phases: start the due sweep now (the strongest one due). A heavy
// sweep plans from scratch with everything a Replan or Rebalance would
// bring in (the isolation asked, the settings read, the groups, routes
// afresh when a rebalance is due), so it drops those remembered.
Transition startSweep(const State& from, bool heavy, Actions first = {}) {
  State to = from;
  to.master = Guid{};
  to.missedPolls = 0;
  to.sweepDue = false;
  const bool takeover = from.takeoverDue;
  heavy = heavy || from.heavyDue || takeover;
  if (heavy) {
    to.heavyDue = false;
    to.replansDue = 0;
    to.rebalanceDue = false;
  }
  to.takeoverDue = false;
  to.phase = takeover ? Phase::MasterTakeOver
             : heavy  ? Phase::MasterHeavySweep
                      : Phase::MasterLightSweep;
  const auto kind = takeover ? ActionKind::TakeOver
                    : heavy  ? ActionKind::HeavySweep
                             : ActionKind::LightSweep;
  return moveTo(from, to, std::move(first), {action(kind)});
}

// The first Replan remembered, in ReplanReason's order (isolation before a
// reload's, as the old in-sweep replan came first); the others wait their turn.
Transition startReplan(State s, Actions first = {}) {
  for (std::size_t r = 0; r < kReplanReasonCount; ++r) {
    const auto reason = static_cast<ReplanReason>(r);
    if ((s.replansDue & bit(reason)) == 0) continue;
    s.replansDue = static_cast<std::uint8_t>(s.replansDue & ~bit(reason));
    s.phase = Phase::MasterReplan;
    Action replan = action(ActionKind::Replan);
    replan.reason = reason;
    first.push_back(replan);
    return stay(s, std::move(first));
  }
  return stay(s, std::move(first));
}

Transition startRebalance(State s) {
  s.rebalanceDue = false;
  s.phase = Phase::MasterRebalance;
  return stay(s, {action(ActionKind::Rebalance)});
}

State queueSweep(State s, bool heavy) {
  s.sweepDue = true;
  s.heavyDue = s.heavyDue || heavy;
  return s;
}

State queueReplan(State s, ReplanReason why) {
  s.replansDue = static_cast<std::uint8_t>(s.replansDue | bit(why));
  return s;
}

// A master sweep, pass or handover attempt ended: run what came in
// meanwhile. A heavy sweep asked goes first and drops the passes; the
// passes go before a light sweep asked (a reload's replan, then the light
// sweep that follows it).
Transition whenFree(State s) {
  if (s.sweepDue && (s.heavyDue || s.takeoverDue)) return startSweep(s, false);
  if (s.replansDue != 0) return startReplan(s);
  if (s.rebalanceDue) return startRebalance(s);
  if (s.sweepDue) return startSweep(s, false);
  s.phase = Phase::MasterIdle;
  return stay(s);
}

Transition missedPoll(const SmContext& ctx, State s) {
  if (++s.missedPolls >= std::max(ctx.pollingRetries, 1U)) return enterDiscovering(s);
  return stay(s);
}

// ---- handlers: one per cell of the table below ----

Transition ignore(const SmContext&, const State& s, const Event&) {
  return stay(s);
}

Transition reload(const SmContext&, const State& s, const Event&) {
  return stay(s, {action(ActionKind::ReloadConfig)});
}

Transition stop(const SmContext&, const State& s, const Event&) {
  return moveTo(s, State{.phase = Phase::Stopped}, {}, {action(ActionKind::Stop)});
}

Transition retryDiscovery(const SmContext&, const State& s, const Event&) {
  return enterDiscovering(s);
}

Transition discoveryDone(const SmContext& ctx, const State& s, const Event& e) {
  if (!e.ok) return stay(State{.phase = Phase::DiscoveryFailed});
  const Election election = electMaster(ctx.self, e.sms);
  if (election.selfWins) return becomeMaster(s);
  auto t = enterStandby(s, election.winner.guid);
  // We outrank the master: ask it now rather than at the first poll.
  if (election.winner.smState == SmState::Master && outranks(ctx.self, election.winner))
    t.actions.push_back(action(ActionKind::NotifyMaster, election.winner.guid));
  return t;
}

Transition standbyPoll(const SmContext&, const State& s, const Event&) {
  return stay(s, {action(ActionKind::PollMaster, s.master)});
}

Transition standbyAnswered(const SmContext& ctx, const State& s, const Event& e) {
  if (!pollShowsAlive(ctx.self, s.master, e.peer)) return missedPoll(ctx, s);
  State alive = s;
  alive.missedPolls = 0;
  if (e.peer.smState == SmState::Master && outranks(ctx.self, e.peer))
    return stay(alive, {action(ActionKind::NotifyMaster, s.master)});
  return stay(alive);
}

Transition standbySilent(const SmContext& ctx, const State& s, const Event&) {
  return missedPoll(ctx, s);
}

Transition idleSweepTimer(const SmContext&, const State& s, const Event&) {
  return startSweep(s, false);
}

Transition idleRequest(const SmContext&, const State& s, const Event& e) {
  return startSweep(s, e.heavy);
}

Transition busyRequest(const SmContext&, const State& s, const Event& e) {
  return stay(queueSweep(s, e.heavy));
}

// New settings change the plan (routing, LMC, partitions), never the
// fabric: a Replan (Reload) re-plans from the last discovery and programs
// the difference, and what follows is only a light sweep -- a
// partitions.conf edit costs its PKey blocks, not a rediscovery. The
// Replan is the machine's, not the reload's: the caller performs it as
// nothing to do when the file was refused. Idle, it runs at once, before
// even a heavy sweep due (the order SIGHUP always had).
Transition masterReload(const SmContext&, const State& s, const Event&) {
  State after = queueReplan(queueSweep(s, false), ReplanReason::Reload);
  if (s.phase == Phase::MasterIdle) return startReplan(after, {action(ActionKind::ReloadConfig)});
  return stay(after, {action(ActionKind::ReloadConfig)});
}

// A pass asked: run now when idle, else when the running work ends.
Transition idleReplan(const SmContext&, const State& s, const Event& e) {
  return whenFree(queueReplan(s, e.reason));
}

Transition busyReplan(const SmContext&, const State& s, const Event& e) {
  return stay(queueReplan(s, e.reason));
}

Transition idleRebalance(const SmContext&, const State& s, const Event&) {
  State after = s;
  after.rebalanceDue = true;
  return whenFree(after);
}

Transition busyRebalance(const SmContext&, const State& s, const Event&) {
  State after = s;
  after.rebalanceDue = true;
  return stay(after);
}

// A pass that could not program, or left the subnet not up: a heavy sweep
// at once (what a light sweep that found it so would start).
Transition passDone(const SmContext&, const State& s, const Event& e) {
  if (!e.ok) return startSweep(s, true);
  return whenFree(s);
}

// Ends a TakeOver or a heavy sweep; the SMs it saw decide what comes next.
Transition heavyDone(const SmContext& ctx, const State& s, const Event& e) {
  State after = s;
  if (!e.ok) {
    after.heavyDue = true;
    after.takeoverDue = s.takeoverDue || s.phase == Phase::MasterTakeOver;
    return whenFree(after);
  }
  after.heavyDue = s.heavyDue || !e.up;  // requests made during the sweep still count
  if (auto target = handoverTarget(ctx.self, e.sms)) {
    after.phase = Phase::MasterHandover;
    after.master = target->guid;
    return stay(after, {action(ActionKind::SendHandover, target->guid, SmState::Master)});
  }
  // The SM that handed us the subnet may still say MASTER to a sweep that
  // started at once: that is the handover in flight, not a second master.
  std::vector<SmInfo> others = e.sms;
  if (s.phase == Phase::MasterTakeOver && s.master)
    std::erase_if(others, [&](const SmInfo& o) { return o.guid == s.master; });
  if (auto rival = rivalMaster(ctx.self, others)) {
    after.phase = Phase::MasterWaiting;
    after.master = rival->guid;
    after.missedPolls = 0;
    return stay(after, {action(ActionKind::NotifyMaster, rival->guid)});
  }
  return whenFree(after);
}

// A rebalance is only for a light sweep that found nothing to sweep heavy
// for: a heavy sweep due routes afresh anyway.
Transition lightDone(const SmContext&, const State& s, const Event& e) {
  State after = s;
  if (!e.ok) {
    after.heavyDue = true;
    after.rebalanceDue = false;
    return whenFree(after);
  }
  if (e.changed) return startSweep(after, true);
  return whenFree(after);
}

// MasterWaiting: the worse master has gone or yielded; whatever it left in
// the fabric is taken over by a sweep.
Transition endWait(State s, Actions first = {}) {
  s.takeoverDue = true;
  return startSweep(s, true, std::move(first));
}

Transition waitingPoll(const SmContext&, const State& s, const Event&) {
  return stay(s, {action(ActionKind::PollMaster, s.master)});
}

Transition waitingSilent(const SmContext& ctx, const State& s, const Event&) {
  State after = s;
  if (++after.missedPolls >= std::max(ctx.pollingRetries, 1U)) return endWait(after);
  return stay(after);
}

Transition waitingAnswered(const SmContext& ctx, const State& s, const Event& e) {
  const SmInfo& a = e.peer;
  if (a.guid != s.master || !trusts(ctx.self.smKey, a.smKey)) return waitingSilent(ctx, s, e);
  if (a.smState == SmState::Master && outranks(ctx.self, a)) {
    State alive = s;  // still master: remind it (a trap can be lost), as OpenSM does
    alive.missedPolls = 0;
    return stay(alive, {action(ActionKind::NotifyMaster, s.master)});
  }
  return endWait(s);  // it yielded, or now outranks us: a sweep sorts it out
}

Transition handoverAnswered(const SmContext&, const State& s, const Event& e) {
  if (e.ok) return enterStandby(s, s.master);
  State after = s;  // refused or lost: re-read the SMs before trying again
  after.master = Guid{};
  after.heavyDue = true;
  return whenFree(after);
}

Transition onHandover(const State& s, const SmInfo& sender) {
  const Actions reply = {answerSet(true),
                         action(ActionKind::SendAcknowledge, sender.guid, smStateOf(s.phase))};
  switch (s.phase) {
    case Phase::Discovering:
    case Phase::DiscoveryFailed:
    case Phase::Standby: {
      auto t = becomeMaster(s, reply);
      t.state.master = sender.guid;  // see heavyDone
      return t;
    }
    case Phase::MasterIdle:
    case Phase::MasterWaiting: {
      auto t = endWait(s, reply);  // the sender was programming the fabric too
      t.state.master = sender.guid;
      return t;
    }
    case Phase::MasterTakeOver:
    case Phase::MasterHeavySweep:
    case Phase::MasterLightSweep:
    case Phase::MasterRebalance:
    case Phase::MasterReplan: {
      State after = queueSweep(s, true);
      after.takeoverDue = true;
      return stay(after, reply);
    }
    case Phase::MasterHandover:  // handing over ourselves
    case Phase::NotActive:       // told to keep quiet
    case Phase::Stopped:
      break;
  }
  return stay(s, {answerSet(false)});
}

Transition onAcknowledge(const State& s, const SmInfo& sender) {
  const bool fromTarget = sender.guid == s.master &&
                          (sender.smState == SmState::Standby || sender.smState == SmState::Master);
  if (fromTarget && s.phase == Phase::MasterHandover)
    return enterStandby(s, s.master, {answerSet(true)});
  if (fromTarget && s.phase == Phase::Standby) return stay(s, {answerSet(true)});
  return stay(s, {answerSet(false)});
}

Transition onDiscover(const State& s) {
  if (s.phase == Phase::NotActive) return stay(s, {answerSet(false)});
  if (s.phase == Phase::Discovering) return stay(s, {answerSet(true)});
  return enterDiscovering(s, {answerSet(true)});
}

Transition smInfoSet(const SmContext& ctx, const State& s, const Event& e) {
  // IBA: a control packet without our SM_Key is not answered at all.
  if (!trustsControl(ctx.self.smKey, e.modifier, e.peer.smKey)) return stay(s);
  if (e.modifier == sminfo::kAcknowledge) return onAcknowledge(s, e.peer);
  // Every other control packet is a master's command.
  if (e.peer.smState != SmState::Master) return stay(s, {answerSet(false)});
  switch (e.modifier) {
    case sminfo::kHandover:
      return onHandover(s, e.peer);
    case sminfo::kDisable:
      if (s.phase == Phase::Standby)
        return moveTo(s, State{.phase = Phase::NotActive}, {answerSet(true)}, {});
      break;
    case sminfo::kStandby:
      if (s.phase == Phase::NotActive || s.phase == Phase::Standby)
        return enterStandby(s, e.peer.guid, {answerSet(true)});
      break;
    case sminfo::kDiscover:
      return onDiscover(s);
    default:
      break;
  }
  return stay(s, {answerSet(false)});
}

// Rows: phases in enum order. Columns: events in enum order.
constexpr std::size_t kCols = kEventKindCount;
using Row = std::array<Handler, kCols>;
// clang-format off
//                  SweepTimer      PollTimer       Trap         OperatorSweep   Reload        Stop    DiscoveryDone  HeavySweepDone LightSweepDone MasterAnswered   MasterSilent   HandoverAnswered  SmInfoSet  ReplanWanted RebalanceDue   PassDone
constexpr std::array<Row, kPhaseCount> kTable = {{
  /* Discovering */ {ignore,         ignore,         ignore,      ignore,         reload,       stop,   discoveryDone, ignore,        ignore,        ignore,          ignore,        ignore,           smInfoSet, ignore,      ignore,        ignore},
  /* DiscFailed  */ {retryDiscovery, retryDiscovery, ignore,      retryDiscovery, reload,       stop,   ignore,        ignore,        ignore,        ignore,          ignore,        ignore,           smInfoSet, ignore,      ignore,        ignore},
  /* Standby     */ {ignore,         standbyPoll,    ignore,      ignore,         reload,       stop,   ignore,        ignore,        ignore,        standbyAnswered, standbySilent, ignore,           smInfoSet, ignore,      ignore,        ignore},
  /* NotActive   */ {ignore,         ignore,         ignore,      ignore,         reload,       stop,   ignore,        ignore,        ignore,        ignore,          ignore,        ignore,           smInfoSet, ignore,      ignore,        ignore},
  /* MasterIdle  */ {idleSweepTimer, ignore,         idleRequest, idleRequest,    masterReload, stop,   ignore,        ignore,        ignore,        ignore,          ignore,        ignore,           smInfoSet, idleReplan,  idleRebalance, ignore},
  /* MasterTakeOv*/ {ignore,         ignore,         busyRequest, busyRequest,    masterReload, stop,   ignore,        heavyDone,     ignore,        ignore,          ignore,        ignore,           smInfoSet, busyReplan,  busyRebalance, ignore},
  /* MasterHeavy */ {ignore,         ignore,         busyRequest, busyRequest,    masterReload, stop,   ignore,        heavyDone,     ignore,        ignore,          ignore,        ignore,           smInfoSet, busyReplan,  busyRebalance, ignore},
  /* MasterLight */ {ignore,         ignore,         busyRequest, busyRequest,    masterReload, stop,   ignore,        ignore,        lightDone,     ignore,          ignore,        ignore,           smInfoSet, busyReplan,  busyRebalance, ignore},
  /* MasterRebal */ {ignore,         ignore,         busyRequest, busyRequest,    masterReload, stop,   ignore,        ignore,        ignore,        ignore,          ignore,        ignore,           smInfoSet, busyReplan,  busyRebalance, passDone},
  /* MasterReplan*/ {ignore,         ignore,         busyRequest, busyRequest,    masterReload, stop,   ignore,        ignore,        ignore,        ignore,          ignore,        ignore,           smInfoSet, busyReplan,  busyRebalance, passDone},
  /* MasterHandov*/ {ignore,         ignore,         busyRequest, busyRequest,    masterReload, stop,   ignore,        ignore,        ignore,        ignore,          ignore,        handoverAnswered, smInfoSet, busyReplan,  busyRebalance, ignore},
  /* MasterWaitin*/ {ignore,         waitingPoll,    busyRequest, busyRequest,    masterReload, stop,   ignore,        ignore,        ignore,        waitingAnswered, waitingSilent, ignore,           smInfoSet, busyReplan,  busyRebalance, ignore},
  /* Stopped     */ {ignore,         ignore,         ignore,      ignore,         ignore,       ignore, ignore,        ignore,        ignore,        ignore,          ignore,        ignore,           ignore,    ignore,      ignore,        ignore},
}};
// clang-format on

}  // namespace

SmState smStateOf(Phase phase) {
  switch (phase) {
    case Phase::Discovering:
    case Phase::DiscoveryFailed:
      return SmState::Discovering;
    case Phase::Standby:
      return SmState::Standby;
    case Phase::NotActive:
    case Phase::Stopped:
      return SmState::NotActive;
    case Phase::MasterIdle:
    case Phase::MasterTakeOver:
    case Phase::MasterHeavySweep:
    case Phase::MasterLightSweep:
    case Phase::MasterRebalance:
    case Phase::MasterReplan:
    case Phase::MasterHandover:
    case Phase::MasterWaiting:
      return SmState::Master;
  }
  return SmState::NotActive;
}

Transition start() {
  return {State{.phase = Phase::Discovering},
          {action(ActionKind::SetSmState, {}, SmState::Discovering), action(ActionKind::Discover)}};
}

Transition next(const SmContext& ctx, const State& state, const Event& event) {
  const Handler handler =
      kTable.at(static_cast<std::size_t>(state.phase)).at(static_cast<std::size_t>(event.kind));
  return handler(ctx, state, event);
}

}  // namespace ibsm::sm::fsm
