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
      portGuid(guid),
      settings(std::move(s)),
      reload(std::move(r)),
      log(logger ? std::move(logger) : spdlog::default_logger()),
      machine(contextOf(portGuid, settings)),
      agent(engine, selfInfo(), log),
      sweep(engine, st, settings.sweep, log),
      multicast(sweep, loop, settings, log, multicastHooks()),
      uptime{.started = now(), .firstUp = {}, .up = false},
      sa(log, agent, sweep,
         {.clock = [this] { return now(); },
          .perfGmp = [this](const ReceivedGmp& in) { counters.deliver(in.mad); },
          .reportResp =
              [this](std::span<const std::uint8_t> mad) { return notices.acknowledge(mad); },
          .answered = [this] { multicast.watch(); }},
         settings.saQueue, settings.saReadsPerTurn),
      notices(log, loop, agent, sweep, portGuid,
              {.clock = [this] { return now(); }, .port = [this] { return sa.port(); }}),
      peerService({.engine = engine,
                   .machine = machine,
                   .self = agent.self(),
                   .settings = settings,
                   .stopping = running.stopping,
                   .wall = [this] { return wall(); },
                   .log = log}),
      lifecycle(agent.self(), uptime.up),
      logControl(log, [this] { return traceCounters(); }) {
  // Plans computed off this thread while the loop keeps serving (SmDaemon.h).
  sweep.planOffLoop(true);
  // The SA before its notices: a sweep's snapshot, then its traps 64/65.
  services.push_back(&sa);
  services.push_back(&notices);
  // After the notices: the traps 67 of groups a sweep left empty follow 64/65.
  services.push_back(&multicast);
  services.push_back(&peerService);
  services.push_back(&lifecycle);
  services.push_back(&logControl);
  // After the log control: the counter sweep adds its requester's trace lines.
  services.push_back(&counters);
  services.push_back(&health);
  services.push_back(&trapService);
  services.push_back(&mKeys);
  // Last: the metrics file shows what the others made of a sweep.
  services.push_back(&metrics);
}

SmDaemon::Impl::~Impl() {
  // The port outlives us and may still read GMPs (umad2sim's settle()).
  sa.unbind();
}

SmInfo SmDaemon::Impl::selfInfo() const {
  SmInfo self;
  self.guid = portGuid;
  self.priority = settings.priority;
  self.smKey = settings.smKey;
  self.smState = SmState::Discovering;
  return self;
}

MadTraceCounters SmDaemon::Impl::traceCounters() const {
  MadTraceCounters sum = engine.traceCounters();
  sum.lines += sa.trace().counters().lines;
  sum.suppressed += sa.trace().counters().suppressed;
  return sum;
}

SmDaemon::SmDaemon(MadEngine& engine, loop::EventLoop& loop, const StateStore& store, Guid portGuid,
                   DaemonSettings settings, ReloadSettings reload,
                   std::shared_ptr<spdlog::logger> logger)
    : impl_(std::make_unique<Impl>(engine, loop, store, portGuid, std::move(settings),
                                   std::move(reload), std::move(logger))) {}

SmDaemon::~SmDaemon() = default;

health::HealthView SmDaemon::Impl::healthView() const {
  health::HealthView view = health.view();
  view.trapPorts = trapService.view();
  return view;
}

health::HealthView SmDaemon::health() const {
  return impl_->healthView();
}

std::string SmDaemon::rotateKeys() {
  return impl_->mKeys.rotate("ibsm keys rotate");
}

void SmDaemon::serveSa(GmpPort& port, std::shared_ptr<GmpResponder> responder) {
  impl_->sa.serve(port, std::move(responder));
}

void SmDaemon::sendNotices(std::shared_ptr<sa::Notifier> notifier) {
  impl_->notices.setNotifier(std::move(notifier));
}

void SmDaemon::manageMulticast(std::shared_ptr<GroupSource> groups) {
  impl_->multicast.manage(std::move(groups));
}

void SmDaemon::describeSa(std::function<void(control::SaStatus&)> describe) {
  impl_->sa.describeWith(std::move(describe));
}

void SmDaemon::onSubnetProgrammed(SubnetListener listener) {
  impl_->sa.onSubnetProgrammed(std::move(listener));
}

void SmDaemon::onLifecycle(LifecycleListener listener) {
  impl_->lifecycle.listen(std::move(listener));
}

int SmDaemon::run() {
  return impl_->run();
}

void SmDaemon::signal(int signo) {
  impl_->signal(signo);
}

const SweepResult* SmDaemon::lastResult() const {
  return impl_->record.lastResult ? &*impl_->record.lastResult : nullptr;
}

control::DaemonStatus SmDaemon::status() const {
  return impl_->status();
}

int SmDaemon::Impl::end(int code, std::string reason, std::vector<std::string> details) {
  running.ended = control::DaemonExit{.code = code,
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
  auto server = control::ControlServer::listen(settings.controlSocket, settings.controlAccess);
  if (!server) {
    log->error("SM-0110 control socket: {}", server.error().message);
    return end(1, "control socket", {server.error().message});
  }
  controlServer = std::move(*server);
  controlServer->provideDrawing(
      [this] { return drawLastSweep(record.lastResult, health.published()); });
  controlServer->provideDump([this](control::DumpKind kind) {
    return dumpHeldTables(kind, sweep.lastPlan().get(), sweep.held(),
                          agent.self().smState == SmState::Master);
  });
  controlServer->providePaths([this](std::string_view line) {
    return answerPath(line, sweep.lastPlan().get(), sweep.multicastPlan().get(), sweep.held(),
                      multicast.mlids());
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
  controlServer->onReadmit([this](std::string_view link) { return health.readmit(link); });
  controlServer->onLogLevel([this](std::string_view level) { return logControl.setLevel(level); });
  controlServer->onKeysRotate([this] { return mKeys.rotate("ibsm keys rotate"); });
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
  // A trap that stands is forwarded now; its sweep is asked by the trap
  // service, coalesced, when the machine is idle (TrapService.h).
  agent.onTrap([this](const Notice& notice, const TrapOrigin& origin) {
    if (!trapService.received(notice, origin.source, origin.modifier)) return false;
    notices.trapReceived(notice, origin.issuer);
    return true;
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
      if (paused) counters.pause(false);
      end(once() ? 1 : 0, "stopped");
      running.ended->signal = running.stopSignal;
      running.ended->stoppedDuring = running.stoppedDuring;
      return running.ended->code;
    }
    // A sweep's SMPs first: the counter sweep sends nothing new meanwhile.
    if (pausesCounters(*a) && !paused) counters.pause(true);
    paused = pausesCounters(*a);
    perform(*a);
    if (paused && !followsOn(machine.peek())) {
      counters.pause(false);
      paused = false;
    }
    if (auto code = onceEnd()) {
      if (paused) counters.pause(false);
      return code;
    }
  }
  if (paused) counters.pause(false);
  return onceEnd();
}

void SmDaemon::Impl::requestReplan(ReplanReason why) {
  machine.feed(Event::replanWanted(why));
}

// The loop's top, the machine idle: ask what is due, in one place; true
// when something was done or asked (the machine may have work again).
bool SmDaemon::Impl::askTurn(LoopTimers& timers) {
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
  if (const auto due = servicesDeadline()) until = std::min(until, *due);
  const auto workDue = [this] { return !machine.idle() || servicesReady(); };
  if (auto ok = engine.runUntil(until, workDue); !ok) {
    if (running.stopping) return std::nullopt;  // the machine holds Stop
    log->error("SM-0006 port failed: {}", ok.error().message);
    return end(1, "port failed", {ok.error().message});
  }
  return std::nullopt;
}

void SmDaemon::Impl::signal(int signo) {
  if (signo == SIGHUP) {
    log->info("SM-0125 SIGHUP: re-reading the configuration");
    lifecycle.reloading();
    machine.feed(Event::reload());
    return;
  }
  log->info("SM-0005 signal {}: stopping", signo);
  lifecycle.stopping();
  if (running.stopSignal == 0) running.stopSignal = signo;
  if (running.performing && !engine.cancelled()) {
    const auto phase = machine.state().phase;
    const bool programming =
        phase == fsm::Phase::MasterTakeOver || phase == fsm::Phase::MasterHeavySweep ||
        phase == fsm::Phase::MasterLightSweep || phase == fsm::Phase::MasterRebalance ||
        phase == fsm::Phase::MasterReplan;
    log->info("SM-0117 stopped during {}: its MADs are cancelled{}", fsm::name(phase),
              programming ? "; what it left half-programmed is repaired by the next master's "
                            "heavy sweep"
                          : "");
    running.stoppedDuring = std::string(fsm::name(phase));
    engine.cancel();
  }
  running.stopping = true;
  machine.feed(Event::stop());
}

// The one call site that programs: every pass the machine decides on
// (sweeps, the rebalance, a replan for its reason) is dispatched here.
void SmDaemon::Impl::perform(const Action& a) {
  // A discovery is fresh only for the sweep it leads to at once.
  std::optional<FreshDiscovery> discovery;
  if (a.kind != ActionKind::SetSmState && a.kind != ActionKind::AnswerSet)
    discovery = std::exchange(running.fresh, std::nullopt);
  if (discovery && discovery->traps != trapService.watch().counts().received) discovery.reset();
  running.performing = true;
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
      peerService.poll(a.peer);
      break;
    case ActionKind::NotifyMaster:
      peerService.notify(a.peer);
      break;
    case ActionKind::SendHandover:
      peerService.handover(a.peer);
      break;
    case ActionKind::SendAcknowledge:
      peerService.acknowledge(a.peer, a.smState);
      break;
    case ActionKind::ReloadConfig:
      running.reloadTook = applyReload();
      lifecycle.reloaded();
      break;
  }
  running.performing = false;
  // A standby does not sweep: the metrics still show the state it is in
  // (here, not in onState, which comes before the state is set).
  if (a.kind == ActionKind::SetSmState) metrics.write();
}

void SmDaemon::Impl::setState(SmState to) {
  const SmState from = agent.self().smState;
  if (from != to) {
    log->info("SM-0101 state {} ({})", fsm::name(to), fsm::name(machine.state().phase));
    ++record.states.changes;
    if (to == SmState::Master) ++record.states.timesMaster;
    record.states.recent.push_back({std::string(fsm::name(to)), wall()});
    if (record.states.recent.size() > control::StateHistory::kRecentStates)
      record.states.recent.pop_front();
    servicesOnState(from, to);
  }
  agent.setState(to);
  if (to != SmState::Master) uptime.up = false;
}

std::optional<int> SmDaemon::Impl::onceEnd() {
  if (running.ended || !once())
    return running.ended ? std::optional(running.ended->code) : std::nullopt;
  const auto& st = machine.state();
  const auto who = [&](Guid g) {
    const auto& sms = peerService.lastSms();
    auto it = std::ranges::find_if(sms, [g](const SmInfo& s) { return s.guid == g; });
    if (it == sms.end()) return fmt::format("SM {}", g);
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
      return running.ended ? running.ended->code : end(1, "discovery failed");
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

}  // namespace ibsm::sm::manager
