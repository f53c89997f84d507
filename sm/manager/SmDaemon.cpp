#include "SmDaemon.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <optional>
#include <unordered_map>

#include "ControlServer.h"
#include "Discovery.h"
#include "ForeignSms.h"
#include "PeerSms.h"
#include "SmInfoAgent.h"
#include "SmMachine.h"
#include "StatusFormat.h"

namespace ibsm::sm {
namespace {

using Clock = std::chrono::steady_clock;
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

control::SweepInfo sweepInfo(std::string kind, std::chrono::milliseconds duration,
                             std::uint64_t mads, std::vector<std::string> changes, bool up) {
  return {.kind = std::move(kind),
          .when = std::chrono::system_clock::now(),
          .duration = duration,
          .mads = mads,
          .changes = std::move(changes),
          .up = up};
}

}  // namespace

struct SmDaemon::Impl {
  Impl(MadEngine& e, const StateStore& st, Guid guid, DaemonSettings s, ReloadSettings r,
       std::shared_ptr<spdlog::logger> l)
      : engine(e),
        store(st),
        portGuid(guid),
        settings(std::move(s)),
        reload(std::move(r)),
        log(l ? std::move(l) : spdlog::default_logger()),
        machine(contextOf(portGuid, settings)),
        agent(engine, selfInfo(), log),
        sweep(engine, store, settings.sweep, log),
        started(now()) {}

  // The engine's clock: real time in the daemon, a fake transport's in tests.
  Clock::time_point now() const { return engine.options().clock(); }
  std::chrono::milliseconds since(Clock::time_point t) const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now() - t);
  }

  SmInfo selfInfo() const {
    SmInfo self;
    self.guid = portGuid;
    self.priority = settings.priority;
    self.smKey = settings.smKey;
    self.smState = SmState::Discovering;
    return self;
  }

  int run(const SmDaemon::SignalSource& signals);
  void perform(const Action& a);
  void discover();
  void heavy(bool takeover);
  void light();
  void poll(Guid master);
  void notify(Guid master);
  void handover(Guid to);
  void acknowledge(Guid to, SmState as);
  void applyReload();
  void learnPeers(const DiscoveredSubnet& subnet);
  std::vector<SmInfo> readPeers();
  const PeerSm* peer(Guid guid) const;
  void recordSweep(const control::SweepInfo& info, const SweepResult* result);
  control::DaemonStatus status() const;

  MadEngine& engine;
  const StateStore& store;
  Guid portGuid;
  DaemonSettings settings;
  ReloadSettings reload;
  std::shared_ptr<spdlog::logger> log;
  fsm::SmMachine machine;
  SmInfoAgent agent;
  MasterSweep sweep;
  std::unique_ptr<control::ControlServer> controlServer;

  // How to reach every SM port the last discovery saw, by port GUID.
  std::unordered_map<Guid, PeerSm> peers;
  ForeignSms foreign;
  Lid ownLid{};
  bool up{false};
  Guid lastMasterLogged{};
  Clock::time_point started;
  std::uint64_t sweeps{0};
  std::uint64_t traps{0};
  std::optional<control::SweepInfo> lastSweep;
  std::optional<control::SweepInfo> lastHeavy;
  std::optional<SweepResult> lastResult;
};

SmDaemon::SmDaemon(MadEngine& engine, const StateStore& store, Guid portGuid,
                   DaemonSettings settings, ReloadSettings reload,
                   std::shared_ptr<spdlog::logger> logger)
    : impl_(std::make_unique<Impl>(engine, store, portGuid, std::move(settings), std::move(reload),
                                   std::move(logger))) {}

SmDaemon::~SmDaemon() = default;

int SmDaemon::run(const SignalSource& signals) {
  return impl_->run(signals);
}

int SmDaemon::Impl::run(const SmDaemon::SignalSource& signals) {
  if (!settings.controlSocket.empty()) {
    auto server = control::ControlServer::listen(settings.controlSocket);
    if (!server) {
      log->error("SM-0110 control socket: {}", server.error().message);
      return 1;
    }
    controlServer = std::move(*server);
  }
  // Set(SMInfo) must be answered from inside the engine's callback; traps
  // only queue a sweep behind whatever runs now.
  agent.onSmInfoSet([this](std::uint32_t modifier, const SmInfo& sender) {
    return machine.feed(Event::smInfoSet(modifier, sender));
  });
  agent.onTrap([this](std::uint16_t number, Lid) {
    ++traps;
    machine.feed(Event::trap(number == 144));
  });

  auto sweepAt = now() + settings.sweepInterval;
  auto pollAt = now() + settings.pollingTimeout;
  for (;;) {
    while (auto a = machine.take()) {
      if (a->kind == ActionKind::Stop) return 0;
      perform(*a);
    }
    const auto t = now();
    if (settings.sweepInterval.count() > 0 && t >= sweepAt) {
      sweepAt = t + settings.sweepInterval;
      machine.feed(Event::sweepTimer());
      continue;
    }
    if (t >= pollAt) {
      pollAt = t + settings.pollingTimeout;
      machine.feed(Event::pollTimer());
      continue;
    }
    // Wait in short slices so signals and the control socket are served
    // while the engine keeps answering SMInfo queries and traps.
    auto until = std::min(t + std::chrono::milliseconds(100), pollAt);
    if (settings.sweepInterval.count() > 0) until = std::min(until, sweepAt);
    if (auto ok = engine.runUntil(until); !ok) {
      log->error("SM-0006 port failed: {}", ok.error().message);
      return 1;
    }
    if (auto sig = signals()) {
      if (*sig == SIGHUP) {
        log->info("SM-0107 SIGHUP: re-reading the configuration");
        machine.feed(Event::reload());
      } else {
        log->info("SM-0005 signal {}: stopping", *sig);
        machine.feed(Event::stop());
      }
    }
    if (controlServer)
      controlServer->serve([this] { return status(); },
                           [this](bool heavySweep) {
                             log->info("SM-0111 sweep requested by the operator{}",
                                       heavySweep ? " (heavy)" : "");
                             machine.feed(Event::operatorSweep(heavySweep));
                           });
  }
}

void SmDaemon::Impl::perform(const Action& a) {
  switch (a.kind) {
    case ActionKind::AnswerSet:  // answered inside the callback (SmMachine)
    case ActionKind::Stop:
      return;
    case ActionKind::SetSmState:
      if (agent.self().smState != a.smState)
        log->info("SM-0101 state {} ({})", fsm::name(a.smState), fsm::name(machine.state().phase));
      agent.setState(a.smState);
      if (a.smState != SmState::Master) up = false;
      return;
    case ActionKind::Discover:
      return discover();
    case ActionKind::TakeOver:
      return heavy(true);
    case ActionKind::HeavySweep:
      return heavy(false);
    case ActionKind::LightSweep:
      return light();
    case ActionKind::PollMaster:
      return poll(a.peer);
    case ActionKind::NotifyMaster:
      return notify(a.peer);
    case ActionKind::SendHandover:
      return handover(a.peer);
    case ActionKind::SendAcknowledge:
      return acknowledge(a.peer, a.smState);
    case ActionKind::ReloadConfig:
      return applyReload();
  }
}

void SmDaemon::Impl::learnPeers(const DiscoveredSubnet& subnet) {
  peers.clear();
  for (auto& p : findPeerSms(subnet)) peers.emplace(p.portGuid, p);
  if (auto it = subnet.portInfo.find(subnet.smPort);
      it != subnet.portInfo.end() && it->second.lid.isUnicast())
    ownLid = it->second.lid;
}

std::vector<SmInfo> SmDaemon::Impl::readPeers() {
  std::vector<PeerSm> list;
  for (const auto& [guid, p] : peers) list.push_back(p);
  auto infos = readPeerSmInfos(engine, list, agent.self());
  std::vector<SmInfo> sms;
  if (!infos) {
    log->warn("SM-0112 could not read other SMs' SMInfo: {}", infos.error().message);
    return sms;
  }
  for (const auto& i : *infos) sms.push_back(i.info);
  const bool weAreMaster = agent.self().smState == SmState::Master;
  for (const auto& f : foreign.update(*infos, settings.smKey, weAreMaster))
    log->warn("SM-0115 {}", describeForeignSm(f, weAreMaster));
  return sms;
}

const PeerSm* SmDaemon::Impl::peer(Guid guid) const {
  auto it = peers.find(guid);
  return it == peers.end() ? nullptr : &it->second;
}

void SmDaemon::Impl::discover() {
  const auto t0 = now();
  const auto sent = engine.counters().sent;
  Discovery discovery(engine, {}, log);
  auto found = discovery.run();
  if (!found) {
    log->warn("SM-0109 discovery failed: {}; trying again", found.error().message);
    machine.feed(Event::discoveryDone(false, {}));
    return;
  }
  learnPeers(*found);
  auto sms = readPeers();
  for (const auto& s : sms)
    log->info("SM-0113 SM {} priority {} in state {}", s.guid, s.priority, fsm::name(s.smState));
  recordSweep(sweepInfo("discovery", since(t0), engine.counters().sent - sent, {}, false), nullptr);
  machine.feed(Event::discoveryDone(true, sms));
  const auto& st = machine.state();
  if (st.phase == fsm::Phase::Standby && st.master != lastMasterLogged) {
    lastMasterLogged = st.master;
    auto it = std::ranges::find_if(sms, [&](const SmInfo& s) { return s.guid == st.master; });
    log->info("SM-0102 master is {} (priority {})", st.master,
              it == sms.end() ? -1 : static_cast<int>(it->priority));
  }
}

void SmDaemon::Impl::heavy(bool takeover) {
  const auto t0 = now();
  if (takeover) {
    log->info("SM-0105 taking over{}: adopting the LIDs and tables the fabric holds",
              machine.state().master ? fmt::format(" from {}", machine.state().master) : "");
    sweep.forgetHeld();
  }
  auto result = sweep.run();
  if (!result) {
    log->error("SM-0003 sweep failed: {}", result.error().message);
    machine.feed(Event::heavySweepDone(false, false, {}));
    return;
  }
  agent.countActivity(static_cast<std::uint32_t>(result->mads));
  logSweep(*log, *result);
  // As the subnet now holds it: our port's LID is the one just programmed.
  if (sweep.held().hasObservation()) learnPeers(sweep.held().observed());
  auto sms = readPeers();
  const bool wasUp = up;
  up = result->up;
  if (up && (!wasUp || !result->changes.empty()))
    log->info(
        "SM-0001 subnet up: {} switches, {} CA ports, {} pairs routed by {}, {} ports active; {} "
        "MADs",
        result->switches, result->caPorts, result->routedPairs, result->engine,
        result->program.portsActivated, result->mads);
  recordSweep(
      sweepInfo(takeover ? "takeover" : "heavy", since(t0), result->mads, result->changes, up),
      &*result);
  machine.feed(Event::heavySweepDone(true, up, std::move(sms)));
}

void SmDaemon::Impl::light() {
  auto result = sweep.lightSweep();
  if (!result) {
    log->error("SM-0408 light sweep failed: {}", result.error().message);
    machine.feed(Event::lightSweepDone(false, false));
    return;
  }
  agent.countActivity(static_cast<std::uint32_t>(result->mads));
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(result->elapsed).count();
  if (!result->changed) {
    log->debug("SM-0408 light sweep: quiet, {} MADs in {} ms", result->mads, ms);
  } else {
    log->info("SM-0408 light sweep: {} change(s){}, {} MADs in {} ms", result->changes.size(),
              result->needsHeavy ? ", heavy sweep needed" : ", rerouted", result->mads, ms);
    for (const auto& c : result->changes) log->info("SM-0402 {}", c);
  }
  bool needsHeavy = !result->ok || result->needsHeavy;
  if (result->reroute) {
    const auto& r = *result->reroute;
    if (!r.up) {
      for (const auto& why : r.reasons) log->warn("SM-0403 not up yet: {}", why);
      needsHeavy = true;
    } else {
      log->info(
          "SM-0001 subnet up: {} switches, {} CA ports, {} pairs routed by {}; rerouted with {} "
          "MADs in {} ms",
          r.switches, r.caPorts, r.routedPairs, r.engine, result->mads, ms);
    }
    up = r.up;
  }
  const auto info =
      sweepInfo(result->reroute ? "reroute" : "light",
                std::chrono::duration_cast<std::chrono::milliseconds>(result->elapsed),
                result->mads, result->changes, up);
  recordSweep(info, result->reroute ? &*result->reroute : nullptr);
  machine.feed(Event::lightSweepDone(result->ok, needsHeavy));
}

void SmDaemon::Impl::poll(Guid master) {
  const auto* p = peer(master);
  if (!p) {
    machine.feed(Event::masterSilent());
    return;
  }
  auto answer = pollSmInfo(engine, *p, agent.self());
  if (!answer) {
    log->error("SM-0006 port failed: {}", answer.error().message);
    machine.feed(Event::masterSilent());
    return;
  }
  const auto missedBefore = machine.state().missedPolls;
  if (*answer)
    machine.feed(Event::masterAnswered(**answer));
  else
    machine.feed(Event::masterSilent());
  const auto& st = machine.state();
  if (st.missedPolls > missedBefore)
    log->warn("SM-0103 master {} silent ({} of {} polls)", master, st.missedPolls,
              std::max(settings.pollingRetries, 1U));
}

void SmDaemon::Impl::notify(Guid master) {
  const auto* p = peer(master);
  if (!p || !ownLid.isUnicast()) {
    log->warn("SM-0106 cannot tell master {} that we outrank it: {}", master,
              p ? "our port has no LID yet" : "no path to it known");
    return;
  }
  if (auto ok = notifyMaster(engine, *p, ownLid, agent.self()); !ok)
    log->warn("SM-0106 Trap 144 to {} failed: {}", master, ok.error().message);
  else
    log->info("SM-0106 Trap 144 sent to master {}: we outrank it", master);
}

void SmDaemon::Impl::handover(Guid to) {
  const auto* p = peer(to);
  log->info("SM-0104 handing over to {}", to);
  bool ok = false;
  if (p) {
    SmInfo self = agent.self();
    self.smState = SmState::Master;
    auto answered = sendSmControl(engine, *p, fsm::control::kHandover, self);
    ok = answered && *answered;
  }
  if (!ok) log->warn("SM-0104 handover to {} not accepted; keeping the subnet", to);
  machine.feed(Event::handoverAnswered(ok));
}

void SmDaemon::Impl::acknowledge(Guid to, SmState as) {
  const auto* p = peer(to);
  if (!p) {
    log->warn("SM-0104 cannot acknowledge the handover of {}: no path to it known", to);
    return;
  }
  SmInfo self = agent.self();
  self.smState = as;
  if (auto ok = sendSmControl(engine, *p, fsm::control::kAcknowledge, self); !ok || !*ok)
    log->warn("SM-0104 acknowledge to {} not answered", to);
}

void SmDaemon::Impl::applyReload() {
  if (!reload) return;
  auto fresh = reload();
  if (!fresh) {
    log->error("SM-0108 configuration not reloaded, the running one stays: {}",
               fresh.error().message);
    return;
  }
  if (fresh->controlSocket != settings.controlSocket)
    log->warn("SM-0107 control_socket changes only on restart");
  fresh->controlSocket = settings.controlSocket;
  settings = std::move(*fresh);
  machine.setContext(contextOf(portGuid, settings));
  agent.setPriority(settings.priority);
  agent.setSmKey(settings.smKey);
  sweep.setSettings(settings.sweep);
  log->info("SM-0107 configuration reloaded: priority {}, sweep interval {} s", settings.priority,
            settings.sweepInterval.count());
  if (agent.self().smState != SmState::Master) return;
  // The fabric did not change, the plan may have: program the difference
  // now; the machine follows with a light sweep.
  const auto t0 = now();
  auto result = sweep.replan();
  if (!result) {
    log->warn("SM-0114 could not re-plan from the last sweep ({}): sweeping heavy",
              result.error().message);
    machine.feed(Event::operatorSweep(true));
    return;
  }
  log->info(
      "SM-0114 re-planned with the new configuration: {} MADs, {} PKey blocks and {} LFT "
      "blocks written",
      result->mads, result->program.table(TableKind::PKey).written,
      result->program.table(TableKind::Lft).written);
  up = result->up;
  recordSweep(sweepInfo("replan", since(t0), result->mads, result->changes, up), &*result);
  if (!up) machine.feed(Event::operatorSweep(true));
}

void SmDaemon::Impl::recordSweep(const control::SweepInfo& info, const SweepResult* result) {
  ++sweeps;
  lastSweep = info;
  if (info.kind == "heavy" || info.kind == "takeover") lastHeavy = info;
  if (result) lastResult = *result;
}

control::DaemonStatus SmDaemon::Impl::status() const {
  control::DaemonStatus s;
  const auto& st = machine.state();
  s.state = std::string(fsm::name(agent.self().smState));
  s.phase = std::string(fsm::name(st.phase));
  s.portGuid = portGuid;
  s.lid = ownLid;
  s.priority = settings.priority;
  s.smKeyIsDefault = settings.smKey == kDefaultSmKey;
  if (agent.self().smState == SmState::Master)
    s.master = portGuid;
  else if (st.master)
    s.master = st.master;
  s.sweeps = sweeps;
  s.lastSweep = lastSweep;
  s.lastHeavy = lastHeavy;
  if (lastResult) {
    s.switches = lastResult->switches;
    s.caPorts = lastResult->caPorts;
    s.routedPairs = lastResult->routedPairs;
    s.unreachablePairs = lastResult->unreachablePairs;
    s.engine = lastResult->engine;
  }
  s.uptime = std::chrono::duration_cast<std::chrono::seconds>(now() - started);
  s.madsSent = engine.counters().sent;
  s.trapsReceived = traps;
  s.foreignSms = foreign.current();
  return s;
}

}  // namespace ibsm::sm
