// SmDaemon's loop: take the machine's actions and perform them; between
// them wait, in the MAD engine, on everything at once (SmDaemon.h).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>

#include "sm/manager/DaemonDraw.h"
#include "sm/manager/DaemonDump.h"
#include "sm/manager/DaemonImpl.h"
#include "sm/manager/DaemonPath.h"

namespace ibsm::sm::manager {

using fsm::Action;
using fsm::ActionKind;
using fsm::Event;
using fsm::ReplanReason;

fsm::SmContext contextOf(Guid portGuid, const DaemonSettings& s) {
  fsm::SmContext ctx;
  ctx.self.guid = portGuid;
  ctx.self.priority = s.priority;
  ctx.self.smKey = s.smKey;
  ctx.pollingRetries = s.pollingRetries;
  return ctx;
}

SmDaemon::Impl::Impl(MadEngine& e, loop::EventLoop& l, const StateStore& st, Guid guid,
                     DaemonSettings s, ReloadSettings r, std::shared_ptr<spdlog::logger> logger)
    : engine(e),
      loop(l),
      store(st),
      portGuid(guid),
      settings(std::move(s)),
      reload(std::move(r)),
      log(logger ? std::move(logger) : spdlog::default_logger()),
      machine(contextOf(portGuid, settings)),
      agent(engine, selfInfo(), log),
      sweep(engine, store, settings.sweep, log),
      started(now()) {}

SmDaemon::Impl::~Impl() {
  // The port outlives us and may still read GMPs (umad2sim's settle()).
  if (gmpPort != nullptr) gmpPort->onGmp({});
  counterRun.reset();  // its outstanding GMPs cancelled while the rest is alive
}

SmInfo SmDaemon::Impl::selfInfo() const {
  SmInfo self;
  self.guid = portGuid;
  self.priority = settings.priority;
  self.smKey = settings.smKey;
  self.smState = SmState::Discovering;
  return self;
}

SmDaemon::SmDaemon(MadEngine& engine, loop::EventLoop& loop, const StateStore& store, Guid portGuid,
                   DaemonSettings settings, ReloadSettings reload,
                   std::shared_ptr<spdlog::logger> logger)
    : impl_(std::make_unique<Impl>(engine, loop, store, portGuid, std::move(settings),
                                   std::move(reload), std::move(logger))) {}

SmDaemon::~SmDaemon() = default;

void SmDaemon::serveSa(GmpPort& port, std::shared_ptr<GmpResponder> responder) {
  impl_->serveSa(port, std::move(responder));
}

void SmDaemon::sendNotices(std::shared_ptr<sa::Notifier> notifier) {
  impl_->notifier = std::move(notifier);
}

void SmDaemon::describeSa(std::function<void(control::SaCounters&)> describe) {
  impl_->describeSa = std::move(describe);
}

void SmDaemon::onSubnetProgrammed(SubnetListener listener) {
  impl_->subnetListener = std::move(listener);
}

void SmDaemon::onLifecycle(LifecycleListener listener) {
  impl_->lifecycle = std::move(listener);
}

void SmDaemon::Impl::announce(SmDaemon::Lifecycle what) {
  if (what == SmDaemon::Lifecycle::Ready) {
    // Once at start; after that only to end a reload announced as such.
    if (announcedReady && !reloadAnnounced) return;
    announcedReady = true;
    reloadAnnounced = false;
  }
  if (what == SmDaemon::Lifecycle::Reloading) {
    if (!announcedReady) return;  // not ready yet: the first Ready is still to come
    reloadAnnounced = true;
  }
  if (!lifecycle) return;
  const auto self = agent.self().smState;
  std::string line{fsm::name(self)};
  if (self == SmState::Master) line += up ? ", subnet up" : ", subnet not up";
  lifecycle(what, line);
}

int SmDaemon::run() {
  return impl_->run();
}

void SmDaemon::signal(int signo) {
  impl_->signal(signo);
}

const SweepResult* SmDaemon::lastResult() const {
  return impl_->lastResult ? &*impl_->lastResult : nullptr;
}

control::DaemonStatus SmDaemon::status() const {
  return impl_->status();
}

int SmDaemon::Impl::end(int code, std::string reason, std::vector<std::string> details) {
  ended = control::DaemonExit{.code = code,
                              .reason = std::move(reason),
                              .details = std::move(details),
                              .signal = 0,
                              .stoppedDuring = {}};
  return code;
}

// The control socket: status, sweep requests, drawing, dumps and paths;
// an error ends run() with its exit status.
std::optional<int> SmDaemon::Impl::openControl() {
  if (settings.controlSocket.empty()) return std::nullopt;
  auto server = control::ControlServer::listen(settings.controlSocket);
  if (!server) {
    log->error("SM-0110 control socket: {}", server.error().message);
    return end(1, "control socket", {server.error().message});
  }
  controlServer = std::move(*server);
  controlServer->provideDrawing([this] { return drawLastSweep(lastResult, health); });
  controlServer->provideDump([this](control::DumpKind kind) {
    return dumpHeldTables(kind, sweep.lastPlan().get(), sweep.held(),
                          agent.self().smState == SmState::Master);
  });
  controlServer->providePaths([this](std::string_view line) {
    std::vector<std::pair<Gid, Lid>> mlids;
    if (groups.routes)
      for (const McGroupRoute& g : groups.routes()) mlids.emplace_back(g.mgid, g.mlid);
    return answerPath(line, sweep.lastPlan().get(), sweep.held(), mlids);
  });
  controlServer->attach(
      loop, [this] { return status(); },
      [this](control::SweepAsk ask) {
        using control::SweepAsk;
        log->info("SM-0111 sweep requested by the operator{}", ask == SweepAsk::Light ? ""
                                                               : ask == SweepAsk::Heavy
                                                                   ? " (heavy)"
                                                                   : " (heavy, routes afresh)");
        if (ask == SweepAsk::Rebalance) sweep.requestRebalance();
        machine.feed(Event::operatorSweep(ask != SweepAsk::Light));
      });
  controlServer->onReadmit([this](std::string_view link) { return readmit(link); });
  controlServer->onLogLevel([this](std::string_view level) { return setLogLevel(level); });
  controlServer->provideHealth([this] { return healthView(); });
  return std::nullopt;
}

int SmDaemon::Impl::run() {
  if (auto code = openControl()) return *code;
  // Set(SMInfo) must be answered from inside the engine's callback; traps
  // only queue a sweep behind whatever runs now.
  agent.onSmInfoSet([this](std::uint32_t modifier, const SmInfo& sender) {
    return machine.feed(Event::smInfoSet(modifier, sender));
  });
  agent.onTrap([this](const Notice& notice, Lid from) {
    ++traps;
    noticeTrap(notice, from);
    machine.feed(Event::trap(notice.trapNumber == 144));
  });

  LoopTimers timers{.sweepAt = now() + settings.sweepInterval,
                    .pollAt = now() + settings.pollingTimeout};
  for (;;) {
    if (auto code = performPending()) return *code;
    if (!machine.idle()) continue;
    if (askTurn(timers)) continue;
    if (auto code = waitForWork(timers)) return *code;
  }
}

namespace {

// The multicast pass, a few MFT blocks, never paused the counter sweep.
bool pausesCounters(const Action& a) {
  return !(a.kind == ActionKind::Replan && a.reason == ReplanReason::Multicast);
}

// A replan or rebalance the action just ended asked for, run next: it was
// part of that action before the machine ran it, so the counter sweep
// stays paused through both (one pause, as status counts them).
bool followsOn(const std::optional<Action>& next) {
  return next && pausesCounters(*next) &&
         (next->kind == ActionKind::Replan || next->kind == ActionKind::Rebalance);
}

}  // namespace

std::optional<int> SmDaemon::Impl::performPending() {
  bool paused = false;
  while (auto a = machine.take()) {
    if (a->kind == ActionKind::Stop) {  // --once: stopped before up
      if (paused) pauseCounters(false);
      end(once() ? 1 : 0, "stopped");
      ended->signal = stopSignal;
      ended->stoppedDuring = stoppedDuring;
      return ended->code;
    }
    // A sweep's SMPs first: the counter sweep sends nothing new meanwhile.
    if (pausesCounters(*a) && !paused) pauseCounters(true);
    paused = pausesCounters(*a);
    perform(*a);
    if (paused && !followsOn(machine.peek())) {
      pauseCounters(false);
      paused = false;
    }
    if (auto code = onceEnd()) {
      if (paused) pauseCounters(false);
      return code;
    }
  }
  if (paused) pauseCounters(false);
  return onceEnd();
}

void SmDaemon::Impl::requestReplan(ReplanReason why) {
  machine.feed(Event::replanWanted(why));
}

bool SmDaemon::Impl::multicastWanted() const {
  // Only from MasterIdle: a pass asked elsewhere would wait in the machine
  // while the loop, seeing it still due, never slept.
  return multicastReady() && machine.state().phase == fsm::Phase::MasterIdle;
}

// The loop's top, the machine idle: ask what is due, in one place; true
// when something was done or asked (the machine may have work again).
bool SmDaemon::Impl::askTurn(LoopTimers& timers) {
  if (multicastWanted()) {
    requestReplan(ReplanReason::Multicast);
    return true;
  }
  if (countersTurn()) return true;
  if (servicesTurn()) return true;
  const auto t = now();
  if (timedSweeps() && t >= timers.sweepAt) {
    timers.sweepAt = t + settings.sweepInterval;
    machine.feed(Event::sweepTimer());
    return true;
  }
  if (t >= timers.pollAt) {
    timers.pollAt = t + settings.pollingTimeout;
    machine.feed(Event::pollTimer());
    return true;
  }
  return false;
}

// The one wait: the engine answers SMInfo queries and traps while the
// loop serves signals and the control socket; back to the machine at
// the next timer or as soon as a handler gave it work.
std::optional<int> SmDaemon::Impl::waitForWork(const LoopTimers& timers) {
  auto until = timedSweeps() ? std::min(timers.pollAt, timers.sweepAt) : timers.pollAt;
  if (multicastAt && machine.state().phase == fsm::Phase::MasterIdle)
    until = std::min(until, *multicastAt);
  if (const auto counters = nextCounterPass()) until = std::min(until, *counters);
  if (const auto due = servicesDeadline()) until = std::min(until, *due);
  const auto workDue = [this] {
    return !machine.idle() || multicastWanted() || countersReady() || servicesReady();
  };
  if (auto ok = engine.runUntil(until, workDue); !ok) {
    if (stopping) return std::nullopt;  // the machine holds Stop
    log->error("SM-0006 port failed: {}", ok.error().message);
    return end(1, "port failed", {ok.error().message});
  }
  return std::nullopt;
}

void SmDaemon::Impl::signal(int signo) {
  if (signo == SIGHUP) {
    log->info("SM-0125 SIGHUP: re-reading the configuration");
    announce(SmDaemon::Lifecycle::Reloading);
    machine.feed(Event::reload());
    return;
  }
  log->info("SM-0005 signal {}: stopping", signo);
  announce(SmDaemon::Lifecycle::Stopping);
  if (stopSignal == 0) stopSignal = signo;
  if (performing && !engine.cancelled()) {
    const auto phase = machine.state().phase;
    const bool programming =
        phase == fsm::Phase::MasterTakeOver || phase == fsm::Phase::MasterHeavySweep ||
        phase == fsm::Phase::MasterLightSweep || phase == fsm::Phase::MasterRebalance ||
        phase == fsm::Phase::MasterReplan;
    log->info("SM-0117 stopped during {}: its MADs are cancelled{}", fsm::name(phase),
              programming ? "; what it left half-programmed is repaired by the next master's "
                            "heavy sweep"
                          : "");
    stoppedDuring = std::string(fsm::name(phase));
    engine.cancel();
  }
  stopping = true;
  machine.feed(Event::stop());
}

// The one call site that programs: every pass the machine decides on
// (sweeps, the rebalance, a replan for its reason) is dispatched here.
void SmDaemon::Impl::perform(const Action& a) {
  // A discovery is fresh only for the sweep it leads to at once.
  std::optional<FreshDiscovery> discovery;
  if (a.kind != ActionKind::SetSmState && a.kind != ActionKind::AnswerSet)
    discovery = std::exchange(fresh, std::nullopt);
  if (discovery && discovery->traps != traps) discovery.reset();
  performing = true;
  switch (a.kind) {
    case ActionKind::AnswerSet:  // answered inside the callback (SmMachine)
    case ActionKind::Stop:
      break;
    case ActionKind::SetSmState:
      setState(a.smState);
      break;
    case ActionKind::Discover:
      discover();
      break;
    case ActionKind::TakeOver:
    case ActionKind::HeavySweep:
      heavy(a.kind == ActionKind::TakeOver, std::move(discovery));
      break;
    case ActionKind::LightSweep:
      light();
      break;
    case ActionKind::Rebalance:
      rebalancePass();
      break;
    case ActionKind::Replan:
      replan(a.reason);
      break;
    case ActionKind::PollMaster:
      poll(a.peer);
      break;
    case ActionKind::NotifyMaster:
      notify(a.peer);
      break;
    case ActionKind::SendHandover:
      handover(a.peer);
      break;
    case ActionKind::SendAcknowledge:
      acknowledge(a.peer, a.smState);
      break;
    case ActionKind::ReloadConfig:
      reloadTook = applyReload();
      if (reloadAnnounced) announce(SmDaemon::Lifecycle::Ready);
      break;
  }
  performing = false;
  // A standby does not sweep: the metrics still show the state it is in.
  if (a.kind == ActionKind::SetSmState) writeMetrics();
}

void SmDaemon::Impl::setState(SmState to) {
  const SmState from = agent.self().smState;
  if (from != to) {
    log->info("SM-0101 state {} ({})", fsm::name(to), fsm::name(machine.state().phase));
    ++stateChanges;
    if (to == SmState::Master) ++timesMaster;
    recentStates.push_back({std::string(fsm::name(to)), wall()});
    if (recentStates.size() > 16) recentStates.pop_front();
    servicesOnState(from, to);
    // Not when the process stops: the groups end with it.
    if (from == SmState::Master && !stopping) forgetGroups();
    resetNotices();
    multicastAt.reset();
  }
  agent.setState(to);
  if (to != SmState::Master) up = false;
  // A master is ready after its first sweep (recordSweep); the others
  // as soon as they know their place.
  if (to == SmState::Standby || to == SmState::NotActive) announce(SmDaemon::Lifecycle::Ready);
}

// Each reason's replan is the function that has always done it; the
// machine hears PassDone after it (a replan that could not run, or left
// the subnet not up, asked for a heavy sweep itself).
void SmDaemon::Impl::replan(ReplanReason why) {
  switch (why) {
    case ReplanReason::Isolation:
      replanForIsolation();
      publishHealth();  // the book's isolation as planned, shown at once (it was, inside the sweep)
      break;
    case ReplanReason::Reload:
      // A configuration refused (SM-0108) changes no plan.
      if (std::exchange(reloadTook, false)) replanForReload();
      break;
    case ReplanReason::Multicast:
      multicastPass();
      break;
  }
  machine.feed(Event::passDone(true));
}

std::optional<int> SmDaemon::Impl::onceEnd() {
  if (ended || !once()) return ended ? std::optional(ended->code) : std::nullopt;
  const auto& st = machine.state();
  const auto who = [&](Guid g) {
    auto it = std::ranges::find_if(lastSms, [g](const SmInfo& s) { return s.guid == g; });
    if (it == lastSms.end()) return fmt::format("SM {}", g);
    return fmt::format("SM {} (priority {}, {})", g, it->priority, fsm::name(it->smState));
  };
  std::string owner;
  switch (st.phase) {
    case fsm::Phase::Standby:
      owner = fmt::format("{} is master or outranks this SM", who(st.master));
      break;
    case fsm::Phase::MasterWaiting:
      owner = fmt::format("{} is master too", who(st.master));
      break;
    case fsm::Phase::NotActive:
      owner = "the master told this SM to stand down (SMInfo DISABLE)";
      break;
    case fsm::Phase::DiscoveryFailed:  // discover() said why
      return ended ? ended->code : end(1, "discovery failed");
    case fsm::Phase::MasterIdle:
      // Not up yet (onceSwept decides up and out-of-tries): sweep again now.
      if (machine.idle()) machine.feed(Event::operatorSweep(true));
      return std::nullopt;
    default:
      return std::nullopt;
  }
  log->error("SM-0116 --once: another SM has the subnet: {}; exiting without sweeping it", owner);
  return end(1, "another SM has the subnet", {owner});
}

bool SmDaemon::Impl::applyReload() {
  if (!reload) return false;
  auto next = reload();
  if (!next) {
    log->error("SM-0108 configuration not reloaded, the running one stays: {}",
               next.error().message);
    ++reloadsRefused;
    reloadError = next.error().message;
    return false;
  }
  if (next->controlSocket != settings.controlSocket)
    log->warn("SM-0126 control_socket changes only on restart");
  next->controlSocket = settings.controlSocket;
  next->onceMaxSweeps = settings.onceMaxSweeps;
  settings = std::move(*next);
  applyConfigLogLevel();
  machine.setContext(contextOf(portGuid, settings));
  agent.setPriority(settings.priority);
  agent.setSmKey(settings.smKey);
  sweep.setSettings(settings.sweep);
  if (groups.precreate) groups.precreate(settings.multicastGroups);
  ++reloads;
  reloadError.clear();
  log->info("SM-0107 configuration reloaded: priority {}, sweep interval {} s", settings.priority,
            settings.sweepInterval.count());
  return true;
}

// The fabric did not change, the plan may have: program the difference
// now; the machine follows with a light sweep.
void SmDaemon::Impl::replanForReload() {
  if (agent.self().smState != SmState::Master) return;
  const auto t0 = now();
  auto result = sweep.replan();
  if (!result) {
    if (stopping) return;
    log->warn("SM-0127 could not re-plan from the last sweep ({}): sweeping heavy",
              result.error().message);
    machine.feed(Event::operatorSweep(true));
    return;
  }
  log->info(
      "SM-0114 re-planned with the new configuration: {} MADs, {} PKey blocks and {} LFT "
      "blocks written",
      result->mads, result->program.table(program::TableKind::PKey).written,
      result->program.table(program::TableKind::Lft).written);
  setUp(result->up);
  recordSweep(sweepInfo("replan", since(t0), result->mads, result->changes, up, &*result),
              &*result);
  if (!up) machine.feed(Event::operatorSweep(true));
}

}  // namespace ibsm::sm::manager
