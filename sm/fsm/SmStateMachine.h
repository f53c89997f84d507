// The SM's life as a pure transition function: which IBA state it is in
// (IBA 14.4: DISCOVERING, STANDBY, NOTACTIVE, MASTER), what it does next when
// a timer fires, a trap or an SMInfo control packet arrives or a sweep ends.
// It decides and never does: actions come back as values for the caller to
// perform, so every rule is a unit test, and the caller (sm/cli's loop) owns
// all waiting, sending and logging.
//
//   SmContext ctx{.self = {.guid = portGuid, .priority = 10}};
//   auto t = start();                       // DISCOVERING, [SetSmState, Discover]
//   State s = t.state;  run(t.actions);     // ... later, when discovery ends:
//   t = next(ctx, s, Event::discoveryDone(true, smsSeen));
//
// Why each part exists:
// - Phases split MASTER into idle / take-over / heavy / light sweep /
//   handing over / waiting, so "a sweep is running" is state, not a flag the
//   caller keeps: a trap arriving mid-sweep is remembered (sweepDue) and
//   swept after, never run concurrently. DiscoveryFailed is DISCOVERING
//   waiting for the next tick to try again, so a dead port does not spin.
// - Every pass that programs the switches is an action of this machine, so
//   one call site programs and this table shows every pass: HeavySweep,
//   TakeOver, LightSweep (with its in-place reroute), Rebalance and Replan
//   with its reason. The daemon's parts only ask (ReplanWanted,
//   RebalanceDue); the machine runs a pass as master and idle, never beside
//   a sweep: one asked while busy is remembered (replansDue, rebalanceDue)
//   and run when free, dropped when a heavy sweep starts instead (it plans
//   from scratch, with whatever the replan would have taken in) or the SM
//   stops being master.
// - Whenever another SM may have programmed the fabric since our last sweep
//   (we just became master, or were handed it), the sweep is a TakeOver: it
//   adopts the LIDs and LFT entries the fabric holds (traffic keeps
//   flowing; our own picture of the switches is stale), then programs only
//   what is wrong.
// - Set(SMInfo) control packets are checked as OpenSM checks them, so the
//   two interoperate: the sender must present our SM_Key (else the packet is
//   ignored unanswered, IBA's treatment of a wrong key);
//   HANDOVER, DISABLE, STANDBY, DISCOVER must come from a MASTER and
//   ACKNOWLEDGE from the SM we handed to; one not legal in our phase is
//   answered with an error status.
// - Handover: the master sends HANDOVER to a better SM found by a heavy
//   sweep; the new master answers the Set (that answer is enough -- OpenSM
//   sends no ACKNOWLEDGE) and may send ACKNOWLEDGE; either moves us to
//   STANDBY polling it. Receiving HANDOVER we answer, send ACKNOWLEDGE with
//   our SMInfo still saying STANDBY (OpenSM refuses one that says MASTER),
//   then become master.
// - Two masters (SMs that started together, subnets joined by a cable):
//   the worse one hands over when its heavy sweep sees the better; the
//   better one, seeing the worse, tells it with Trap 144 and waits polling
//   it without sweeping (MasterWaiting), so the two never program the
//   switches against each other for more than one sweep; if the worse one
//   dies or yields instead, the better takes the fabric over.
// - A standby polls the master every polling timeout; `pollingRetries`
//   misses in a row (OpenSM's polling_retry_number; 3, 1 s apart, by
//   default) and it rediscovers. A poll is missed only when every try of
//   its one SMP went unanswered, so a lost SMP alone never takes over; its
//   last try waits until 4/5 of the polling timeout, so a master merely
//   slow to answer (busy, behind a sweep's SMPs) is not taken for dead
//   (PeerService::poll, which also repeats uncounted a poll this SM itself
//   was late for).
//   A poll answered by a master we outrank gets a Trap 144 (NotifyMaster),
//   which makes the master sweep, find us and hand over.
// - ActCount is not used for liveness: an SMInfo answer comes from the SM
//   process itself, which is what liveness means (OpenSM does the same).
#pragma once

#include <ibsm/MadAttributes.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ibsm::sm::fsm {

// sm.polling_timeout_ms and sm.polling_retries at their defaults: a dead
// master is found within 3 s plus the last poll's wait for its answer
// (0.8 s; issue 32). OpenSM's sminfo_polling_timeout and polling_retry_number
// default to 10 s and 4 (40 s); its own polling of us is its business.
inline constexpr std::chrono::milliseconds kDefaultPollingTimeout{1000};
inline constexpr std::uint32_t kDefaultPollingRetries = 3;

// What the SM is, fixed between config reloads.
struct SmContext {
  SmInfo self;  // GUID, priority, SM_Key (0: none); smState and actCount unused
  std::uint32_t pollingRetries{kDefaultPollingRetries};  // 0 behaves as 1
};

enum class Phase : std::uint8_t {
  Discovering,       // discovery running: is there a master, or a better SM?
  DiscoveryFailed,   // DISCOVERING; the last discovery could not run; retry on a tick
  Standby,           // polling `master`
  NotActive,         // told DISABLE: sends nothing, answers SMInfo, awaits STANDBY
  MasterIdle,        // between sweeps
  MasterTakeOver,    // heavy sweep adopting what another SM left in the fabric
  MasterHeavySweep,  // discover, plan, program
  MasterLightSweep,  // SwitchInfo of every switch (LightSweep.h)
  MasterRebalance,   // routing afresh on the last sweep's fabric (routing.rebalance_interval)
  MasterReplan,      // planning again from the last sweep's fabric, programming the difference
  MasterHandover,    // HANDOVER sent to `master`; no sweeps until it answers
  MasterWaiting,     // `master` is a second, worse master: told it (Trap 144), polling
                     // it, not sweeping, until it hands over or is gone
  Stopped,           // SIGTERM: absorbs every event
};
inline constexpr std::size_t kPhaseCount = 13;
inline constexpr std::array<Phase, kPhaseCount> kAllPhases = {
    Phase::Discovering,      Phase::DiscoveryFailed,  Phase::Standby,
    Phase::NotActive,        Phase::MasterIdle,       Phase::MasterTakeOver,
    Phase::MasterHeavySweep, Phase::MasterLightSweep, Phase::MasterRebalance,
    Phase::MasterReplan,     Phase::MasterHandover,   Phase::MasterWaiting,
    Phase::Stopped};

// Why a plan is made again from the last sweep's fabric between sweeps.
enum class ReplanReason : std::uint8_t {
  Isolation,  // the health book wants a link isolated or re-admitted
  Reload,     // SIGHUP: new routing, LMC or partitions settings
  Multicast,  // joins and leaves since the groups were last planned
};
inline constexpr std::size_t kReplanReasonCount = 3;

// The SMInfo:SMState the SM shows others in this phase (Stopped: NOTACTIVE,
// so pollers count us gone at once).
SmState smStateOf(Phase phase);

struct State {
  Phase phase{Phase::Discovering};
  Guid master{};                 // Standby, MasterWaiting: the SM polled; MasterHandover: the
                                 // SM handed to; MasterTakeOver: the SM that handed to us
  std::uint32_t missedPolls{0};  // Standby, MasterWaiting: polls in a row showing no master
  bool sweepDue{false};          // a trap/request came while busy: sweep when free
  bool heavyDue{false};          // the next master sweep must be heavy (not up, trap 144, ...)
  bool takeoverDue{false};       // another SM programmed the fabric: next sweep is a TakeOver
  std::uint8_t replansDue{0};    // Replans asked while busy: bit (1 << ReplanReason)
  bool rebalanceDue{false};      // a Rebalance asked while busy
  auto operator<=>(const State&) const = default;
};

enum class EventKind : std::uint8_t {
  SweepTimer,        // the sweep interval elapsed (light sweep as master)
  PollTimer,         // the SMInfo polling timeout elapsed (poll as standby)
  Trap,              // a trap arrived; `heavy` for Trap 144 (an SM or capability changed)
  OperatorSweep,     // `ibsm sweep [--heavy]`
  Reload,            // SIGHUP
  Stop,              // SIGTERM / SIGINT
  DiscoveryDone,     // `ok`, `sms`
  HeavySweepDone,    // `ok`, `up`, `sms`
  LightSweepDone,    // `ok`, `changed`
  MasterAnswered,    // the poll's answer, in `peer`
  MasterSilent,      // the poll got no answer (after the engine's retries)
  HandoverAnswered,  // the answer to our Set(SMInfo, HANDOVER): `ok` false if refused/lost
  SmInfoSet,         // a Set(SMInfo) control packet: `modifier`, sender's SMInfo in `peer`
  ReplanWanted,      // a part of the daemon needs a new plan, for `reason`
  RebalanceDue,      // routing.rebalance_interval: the tables are due to be routed afresh
  PassDone,          // a Rebalance or Replan ended; `ok` false: a heavy sweep must follow now
};
inline constexpr std::size_t kEventKindCount = 16;

// SMInfo attribute modifiers of a Set: IBA's SM control packets.
namespace sminfo {
inline constexpr std::uint32_t kHandover = 1;
inline constexpr std::uint32_t kAcknowledge = 2;
inline constexpr std::uint32_t kDisable = 3;
inline constexpr std::uint32_t kStandby = 4;
inline constexpr std::uint32_t kDiscover = 5;
}  // namespace sminfo

struct Event {
  EventKind kind{EventKind::SweepTimer};
  bool ok{true};              // *Done, HandoverAnswered: false = could not be done at all
  bool up{false};             // HeavySweepDone: every reachable port ACTIVE, every pair routed
  bool changed{false};        // LightSweepDone: something differs from the last fabric
  bool heavy{false};          // Trap, OperatorSweep
  std::vector<SmInfo> sms{};  // DiscoveryDone, HeavySweepDone: SMInfo of the other SMs seen
  SmInfo peer{};              // MasterAnswered: the answer; SmInfoSet: the Set's payload
  std::uint32_t modifier{0};  // SmInfoSet
  ReplanReason reason{ReplanReason::Isolation};  // ReplanWanted

  static Event sweepTimer() { return {.kind = EventKind::SweepTimer}; }
  static Event pollTimer() { return {.kind = EventKind::PollTimer}; }
  static Event trap(bool heavy) { return {.kind = EventKind::Trap, .heavy = heavy}; }
  static Event operatorSweep(bool heavy) {
    return {.kind = EventKind::OperatorSweep, .heavy = heavy};
  }
  static Event reload() { return {.kind = EventKind::Reload}; }
  static Event stop() { return {.kind = EventKind::Stop}; }
  static Event discoveryDone(bool ok, std::vector<SmInfo> sms) {
    return {.kind = EventKind::DiscoveryDone, .ok = ok, .sms = std::move(sms)};
  }
  static Event heavySweepDone(bool ok, bool up, std::vector<SmInfo> sms) {
    return {.kind = EventKind::HeavySweepDone, .ok = ok, .up = up, .sms = std::move(sms)};
  }
  static Event lightSweepDone(bool ok, bool changed) {
    return {.kind = EventKind::LightSweepDone, .ok = ok, .changed = changed};
  }
  static Event masterAnswered(SmInfo answer) {
    return {.kind = EventKind::MasterAnswered, .peer = answer};
  }
  static Event masterSilent() { return {.kind = EventKind::MasterSilent}; }
  static Event handoverAnswered(bool ok) { return {.kind = EventKind::HandoverAnswered, .ok = ok}; }
  static Event smInfoSet(std::uint32_t modifier, SmInfo sender) {
    return {.kind = EventKind::SmInfoSet, .peer = sender, .modifier = modifier};
  }
  static Event replanWanted(ReplanReason why) {
    return {.kind = EventKind::ReplanWanted, .reason = why};
  }
  static Event rebalanceDue() { return {.kind = EventKind::RebalanceDue}; }
  static Event passDone(bool ok) { return {.kind = EventKind::PassDone, .ok = ok}; }
};

enum class ActionKind : std::uint8_t {
  AnswerSet,        // GetResp to the Set(SMInfo) being handled; `accepted` false: error status
  SendAcknowledge,  // Set(SMInfo, ACKNOWLEDGE) to `peer`, our SMInfo saying `smState`
  SetSmState,       // from now on SMInfo answers say `smState`
  Discover,         // read the fabric and the SMInfo of every SM port; program nothing
  TakeOver,         // heavy sweep adopting the LIDs/LFT entries the fabric holds
  HeavySweep,       // discover, plan, program the difference
  LightSweep,       // SwitchInfo of every switch, then only what changed (LightSweep.h)
  Rebalance,        // route afresh on the last sweep's fabric, program the difference;
                    // PassDone(ok: the subnet is up after it) when it ends
  Replan,           // plan again for `reason` from the last sweep's fabric, program the
                    // difference; PassDone when it ends
  PollMaster,       // SubnGet(SMInfo) to `peer`, presenting our SM_Key; the answer (or
                    // its absence) comes back as MasterAnswered / MasterSilent
  NotifyMaster,     // Trap 144 (SM priority changed) to master `peer`: we outrank it
  SendHandover,     // Set(SMInfo, HANDOVER) to `peer`, our SMInfo saying `smState`
  ReloadConfig,     // re-read the config file (the caller rebuilds SmContext); as master
                    // a Replan (Reload) follows
  Stop,             // leave the loop
};

struct Action {
  ActionKind kind{ActionKind::Stop};
  Guid peer{};
  SmState smState{SmState::NotActive};
  bool accepted{false};
  ReplanReason reason{ReplanReason::Isolation};  // Replan
  auto operator<=>(const Action&) const = default;
};

// Actions are in the order to perform them: AnswerSet first (the caller
// answers inside the MAD callback; the rest may wait for the loop, see
// SmMachine.h), then SendAcknowledge or ReloadConfig, then SetSmState, then
// what the new phase does: at most one piece of work (Discover, TakeOver,
// HeavySweep, LightSweep, Rebalance, Replan, PollMaster, SendHandover), a
// NotifyMaster, or Stop.
struct Transition {
  State state;
  std::vector<Action> actions;
};

// The first transition: DISCOVERING, [SetSmState(Discovering), Discover].
Transition start();

// Every (phase, event) pair has an outcome; an event that means nothing in
// a phase (a late result of a sweep abandoned by a state change, a timer a
// phase does not use) leaves the state as it is with no actions.
Transition next(const SmContext& ctx, const State& state, const Event& event);

std::string_view name(SmState state);  // as IBA spells it: "MASTER", "STANDBY", ...
std::string_view name(Phase phase);
std::string_view name(EventKind kind);
std::string_view name(ActionKind kind);
std::string_view name(ReplanReason reason);  // "isolation", "reload", "multicast"

}  // namespace ibsm::sm::fsm
