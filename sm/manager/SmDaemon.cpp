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

int SmDaemon::Impl::run() {
  if (!settings.controlSocket.empty()) {
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
  }
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

  auto sweepAt = now() + settings.sweepInterval;
  auto pollAt = now() + settings.pollingTimeout;
  for (;;) {
    while (auto a = machine.take()) {
      if (a->kind == ActionKind::Stop) {  // --once: stopped before up
        end(once() ? 1 : 0, "stopped");
        ended->signal = stopSignal;
        ended->stoppedDuring = stoppedDuring;
        return ended->code;
      }
      // A sweep's SMPs first: the counter sweep sends nothing new meanwhile.
      pauseCounters(true);
      perform(*a);
      pauseCounters(false);
      if (auto code = onceEnd()) return *code;
    }
    if (auto code = onceEnd()) return *code;
    if (!machine.idle()) continue;
    if (multicastReady()) {
      multicastPass();
      continue;
    }
    if (countersTurn()) continue;
    if (servicesTurn()) continue;
    // --once sweeps heavy until it ends: no timed light sweeps.
    const bool timedSweeps = !once() && settings.sweepInterval.count() > 0;
    const auto t = now();
    if (timedSweeps && t >= sweepAt) {
      sweepAt = t + settings.sweepInterval;
      machine.feed(Event::sweepTimer());
      continue;
    }
    if (t >= pollAt) {
      pollAt = t + settings.pollingTimeout;
      machine.feed(Event::pollTimer());
      continue;
    }
    // The one wait: the engine answers SMInfo queries and traps while the
    // loop serves signals and the control socket; back to the machine at
    // the next timer or as soon as a handler gave it work.
    auto until = timedSweeps ? std::min(pollAt, sweepAt) : pollAt;
    if (multicastAt) until = std::min(until, *multicastAt);
    if (const auto counters = nextCounterPass()) until = std::min(until, *counters);
    if (const auto due = servicesDeadline()) until = std::min(until, *due);
    if (auto ok = engine.runUntil(until,
                                  [this] {
                                    return !machine.idle() || multicastReady() || countersReady() ||
                                           servicesReady();
                                  });
        !ok) {
      if (stopping) continue;  // the machine holds Stop
      log->error("SM-0006 port failed: {}", ok.error().message);
      return end(1, "port failed", {ok.error().message});
    }
  }
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
    const bool programming = phase == fsm::Phase::MasterTakeOver ||
                             phase == fsm::Phase::MasterHeavySweep ||
                             phase == fsm::Phase::MasterLightSweep;
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
      if (agent.self().smState != a.smState) {
        log->info("SM-0101 state {} ({})", fsm::name(a.smState), fsm::name(machine.state().phase));
        ++states.changes;
        if (a.smState == SmState::Master) ++states.timesMaster;
        states.recent.push_back({std::string(fsm::name(a.smState)), wall()});
        if (states.recent.size() > control::StateHistory::kRecentStates) states.recent.pop_front();
      }
      if (agent.self().smState != a.smState) servicesOnState(agent.self().smState, a.smState);
      if (agent.self().smState != a.smState) {
        // Not when the process stops: the groups end with it.
        if (agent.self().smState == SmState::Master && !stopping) forgetGroups();
        resetNotices();
        multicastAt.reset();
      }
      agent.setState(a.smState);
      if (a.smState != SmState::Master) up = false;
      // A master is ready after its first sweep (recordSweep); the others
      // as soon as they know their place.
      if (a.smState == SmState::Standby || a.smState == SmState::NotActive)
        announce(SmDaemon::Lifecycle::Ready);
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
      applyReload();
      if (reloadAnnounced) announce(SmDaemon::Lifecycle::Ready);
      break;
  }
  performing = false;
  // A standby does not sweep: the metrics still show the state it is in.
  if (a.kind == ActionKind::SetSmState) writeMetrics();
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

void SmDaemon::Impl::applyReload() {
  if (!reload) return;
  auto next = reload();
  if (!next) {
    log->error("SM-0108 configuration not reloaded, the running one stays: {}",
               next.error().message);
    ++reloads.refused;
    reloads.error = next.error().message;
    return;
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
  ++reloads.taken;
  reloads.error.clear();
  log->info("SM-0107 configuration reloaded: priority {}, sweep interval {} s", settings.priority,
            settings.sweepInterval.count());
  if (agent.self().smState != SmState::Master) return;
  // The fabric did not change, the plan may have: program the difference
  // now; the machine follows with a light sweep.
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
  recordSweep(
      sweepInfo(control::SweepKind::Replan, since(t0), result->mads, result->changes, up, &*result),
      &*result);
  if (!up) machine.feed(Event::operatorSweep(true));
}

}  // namespace ibsm::sm::manager
