// SmDaemon's work as DISCOVERING and as master: discovery, heavy sweeps
// (take-over included), light sweeps, rebalances and replans (for
// isolation, a reloaded configuration, multicast), the reload itself, and
// how --once judges a heavy sweep.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {

using fsm::Event;
using fsm::ReplanReason;

namespace {

// A fabric no SM has run: no port holds a LID, and none shows an SM as
// master (an SM that ran it and died leaves both behind).
bool neverRun(const discovery::DiscoveredSubnet& subnet) {
  return std::ranges::none_of(subnet.portInfo, [](const auto& entry) {
    return entry.second.lid != Lid{} || entry.second.masterSmLid != Lid{};
  });
}

// After up: the descriptions the takeover's discovery took from the
// standby's (Descriptions.h) read, and any that changed given to the SA
// through `result`'s plan.
void readDescriptionsAfterUp(MasterSweep& sweep, spdlog::logger& log, SweepResult& result) {
  const auto& held = sweep.held();
  if (!held.hasObservation() || held.observed().describedFromBefore.empty()) return;
  auto read = sweep.readDescriptions(result);
  if (!read) {
    log.warn("SM-0488 reading node descriptions after up: {}", read.error().message);
    return;
  }
  log.info("SM-0487 {} node descriptions read after up ({} changed, {} unanswered)", read->asked,
           read->changed.size(), read->failed);
}

}  // namespace

void SmDaemon::Impl::logUp(const SweepResult& r, std::string_view how) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(r.elapsed).count();
  const auto sinceStart = std::chrono::duration<double>(now() - uptime.started).count();
  log->info(
      "SM-0001 subnet up: {} switches, {} CA ports, {} pairs routed by {}, {} ports active ({} "
      "activated by this sweep); {} of {} MADs in {} ms; {} MADs, {:.2f} s since start",
      r.switches, r.caPorts, r.routedPairs, r.engine, r.portsActive, r.program.portsActivated, how,
      r.mads, ms, engine.counters().sent, sinceStart);
  ++record.states.upReports;
  record.states.lastUpReport = wall();
}

void SmDaemon::Impl::discover() {
  const auto t0 = now();
  const auto sent = engine.counters().sent;
  // A standby's last discovery lends its descriptions (Descriptions.h).
  discovery::Discovery discovery(engine, {.knownDescriptions = sweep.knownDescriptions()}, log);
  ++record.sweeps.fabricWalks;
  auto found = discovery.run();
  if (!found) {
    if (running.stopping) return;
    ++record.sweeps.failed;
    if (once()) {
      // --once cannot wait for the next tick: it ends here (onceEnd).
      log->error("SM-0007 discovery failed, --once ends: {}", found.error().message);
      end(1, "discovery failed", {found.error().message});
    } else {
      log->warn("SM-0109 discovery failed: {}; trying again", found.error().message);
    }
    machine.feed(Event::discoveryDone(false, {}));
    return;
  }
  peerService.learnPeers(*found);
  peerService.notePorts(*found);
  sweep.noteDescriptions(*found);
  auto sms = peerService.readPeers();
  for (const auto& s : sms)
    log->info("SM-0113 SM {} priority {} in state {}", s.guid, s.priority, fsm::name(s.smState));
  recordSweep(
      sweepInfo(control::SweepKind::Discovery, since(t0), engine.counters().sent - sent, {}, false),
      nullptr);
  running.fresh = FreshDiscovery{std::move(*found), discovery.counters(),
                                 trapService.watch().counts().received};
  machine.feed(Event::discoveryDone(true, sms));
  const auto& st = machine.state();
  if (st.phase == fsm::Phase::Standby) peerService.noteMaster(st.master, sms);
}

// A TakeOver starts from what the fabric holds, not from our picture of it.
void SmDaemon::Impl::noteTakeOver(const std::optional<FreshDiscovery>& discovery) {
  if (machine.state().master == Guid{} && discovery && neverRun(discovery->subnet)) {
    ++record.sweeps.firstBringUps;
    log->info("SM-0137 first bring-up: no SM was master and no port holds a LID");
  } else {
    log->info("SM-0105 taking over{}: adopting the LIDs and tables the fabric holds",
              machine.state().master ? fmt::format(" from {}", machine.state().master) : "");
  }
  sweep.forgetHeld();
}

void SmDaemon::Impl::heavy(bool takeover, std::optional<FreshDiscovery> discovery) {
  const auto t0 = now();
  if (takeover) noteTakeOver(discovery);
  if (!discovery) ++record.sweeps.fabricWalks;
  // `ibsm sweep --rebalance` (or a rebalance SM-0431 left asked) is a heavy
  // sweep that routes afresh: status counts it as a rebalance, as the
  // operator asked for one.
  const bool rebalancing = !takeover && sweep.rebalanceAsked();
  auto result =
      discovery ? sweep.run(std::move(discovery->subnet), discovery->counters) : sweep.run();
  if (!result) {
    if (running.stopping) return;  // cancelled: the machine holds Stop
    log->error("SM-0003 sweep failed: {}", result.error().message);
    ++record.sweeps.failed;
    if (once()) {
      end(1, "sweep failed", {result.error().message});
      return;
    }
    machine.feed(Event::heavySweepDone(false, false, {}));
    return;
  }
  agent.countActivity(static_cast<std::uint32_t>(result->mads));
  logSweep(*log, *result);
  // As the subnet now holds it: our port's LID is the one just programmed.
  if (sweep.held().hasObservation()) peerService.learnPeers(sweep.held().observed());
  const auto info = [&](bool isUp) {
    using control::SweepKind;
    return sweepInfo(takeover      ? SweepKind::Takeover
                     : rebalancing ? SweepKind::Rebalance
                                   : SweepKind::Heavy,
                     since(t0), result->mads, result->changes, isUp, &*result);
  };
  if (once()) {
    onceSwept(*result);
    recordSweep(info(uptime.up), &*result);
    return;
  }
  auto sms = peerService.readPeers();
  const bool wasUp = uptime.up;
  setUp(result->up);
  if (uptime.up && (!wasUp || !result->changes.empty()))
    logUp(*result, takeover ? "takeover" : "heavy sweep");
  if (uptime.up && result->plan) {
    // Up promises an SA that answers: its snapshot before the read below,
    // whose SMPs leave the loop serving SA queries between them.
    sa.feedBeforeRead(*result);
    readDescriptionsAfterUp(sweep, *log, *result);
    readVlArbForSa(*result);
  }
  recordSweep(info(uptime.up), &*result, {.read = true});
  machine.feed(Event::heavySweepDone(true, uptime.up, std::move(sms)));
}

// After up, for the SA only: the VLArbitration blocks not read yet, in the
// sweep's counters (phase read_vlarb) and the snapshot recordSweep feeds
// the SA. `ibsm run --once` ends at up and reads none.
void SmDaemon::Impl::readVlArbForSa(SweepResult& result) {
  auto read = sweep.readForSa(*result.plan);
  if (!read) {
    log->warn("SM-0422 reading VLArbitration tables for the SA: {}", read.error().message);
    return;
  }
  const auto phase = program::ProgramPhase::ReadVlArb;
  result.program.phase(phase) = read->phase(phase);
  // Added to what program() wrote (QoS tables), not in place of it.
  auto& vlarb = result.program.tables[program::TableKind::VlArb];
  vlarb.read += read->table(program::TableKind::VlArb).read;
  vlarb.written += read->table(program::TableKind::VlArb).written;
}

void SmDaemon::Impl::onceSwept(const SweepResult& result) {
  ++running.onceSweeps;
  // A link that changed while the sweep ran (Trap 128) means the tables
  // just written may point into a dead port: sweep again.
  const bool stale = agent.takeLinkChange();
  setUp(result.up && !stale);
  if (uptime.up) {
    logUp(result, "heavy sweep");
    end(0, "up");
    return;
  }
  if (running.onceSweeps >= *settings.onceMaxSweeps) {
    std::vector<std::string> reasons = result.reasons;
    if (stale) reasons.push_back("links kept changing during every sweep");
    log->error("SM-0004 subnet not up after {} sweeps: {}", running.onceSweeps,
               fmt::join(reasons, "; "));
    end(1, fmt::format("not up after {} sweeps", running.onceSweeps), std::move(reasons));
    return;
  }
  if (stale) log->warn("SM-0118 a link changed during the sweep (Trap 128): sweeping again");
  // Not up: the machine goes idle with a heavy sweep due, and onceEnd()
  // asks for it at once -- unless the SMs just read hand the subnet on.
  machine.feed(Event::heavySweepDone(true, false, peerService.readPeers()));
}

void SmDaemon::Impl::light() {
  // The switches that sent a Trap 128 since the last light sweep are asked
  // first: the reroute is programmed before the rest are asked.
  const auto trappers = notices.takeLinkTrappers();
  auto result = sweep.lightSweep(trappers);
  if (!result) {
    if (running.stopping) return;
    log->error("SM-0414 light sweep failed: {}", result.error().message);
    ++record.sweeps.failed;
    machine.feed(Event::lightSweepDone(false, false));
    return;
  }
  agent.countActivity(static_cast<std::uint32_t>(result->mads));
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(result->elapsed).count();
  if (!result->changed) {
    log->debug("SM-0415 light sweep: quiet, {} MADs in {} ms", result->mads, ms);
  } else {
    log->info("SM-0408 light sweep: {} change(s){}, {} MADs in {} ms", result->changes.size(),
              result->needsHeavy ? ", heavy sweep needed" : ", rerouted", result->mads, ms);
  }
  bool needsHeavy = !result->ok || result->needsHeavy;
  if (result->reroute) {
    const auto& r = *result->reroute;
    needsHeavy = needsHeavy || !r.up;
    if (r.up) logUp(r, "reroute");
    setUp(r.up);
  }
  // A reroute's changes are the fabric's, as a heavy sweep words them.
  const auto info =
      sweepInfo(result->reroute ? control::SweepKind::Reroute : control::SweepKind::Light,
                std::chrono::duration_cast<std::chrono::milliseconds>(result->elapsed),
                result->mads, result->reroute ? result->reroute->changes : result->changes,
                uptime.up, result->reroute ? &*result->reroute : nullptr);
  recordSweep(info, result->reroute ? &*result->reroute : nullptr,
              {.read = true, .lostTables = result->lostTables});
  // The machine runs it after this sweep, unless it sweeps heavy instead.
  if (sweep.rebalanceDue()) machine.feed(Event::rebalanceDue());
  machine.feed(Event::lightSweepDone(result->ok, needsHeavy));
}

void SmDaemon::Impl::rebalancePass() {
  // A replan since the light sweep asked for it routed afresh already
  // (MasterSweep gives no previous routes once a rebalance is due).
  machine.feed(Event::passDone(!sweep.rebalanceDue() || rebalance()));
}

bool SmDaemon::Impl::rebalance() {
  log->info("SM-0430 rebalance due (routing.rebalance_interval): routing afresh");
  const auto t0 = now();
  sweep.requestRebalance();
  auto result = sweep.replan();
  if (!result) {
    // Left asked: the next heavy sweep routes afresh.
    log->warn("SM-0431 rebalance could not run on the last sweep ({}): sweeping heavy",
              result.error().message);
    return false;
  }
  setUp(result->up);
  recordSweep(sweepInfo(control::SweepKind::Rebalance, since(t0), result->mads, result->changes,
                        uptime.up, &*result),
              &*result);
  return result->up;
}

// Each reason's replan is the function that has always done it; the
// machine hears PassDone after it (a replan that could not run, or left
// the subnet not up, asked for a heavy sweep itself).
void SmDaemon::Impl::replan(ReplanReason why) {
  switch (why) {
    case ReplanReason::Isolation:
      // Publishes the book's isolation as planned, shown at once.
      health.replanForIsolation();
      break;
    case ReplanReason::Reload:
      // A configuration refused (SM-0108) changes no plan.
      if (std::exchange(running.reloadTook, false)) replanForReload();
      break;
    case ReplanReason::Multicast:
      multicast.pass();
      break;
  }
  machine.feed(Event::passDone(true));
}

bool SmDaemon::Impl::applyReload() {
  if (!reload) return false;
  auto next = reload();
  if (!next) {
    log->error("SM-0108 configuration not reloaded, the running one stays: {}",
               next.error().message);
    ++record.reloads.refused;
    record.reloads.error = next.error().message;
    return false;
  }
  if (next->controlSocket != settings.controlSocket)
    log->warn("SM-0126 control_socket changes only on restart");
  next->controlSocket = settings.controlSocket;
  next->controlAccess = settings.controlAccess;  // the socket's mode is set when it is made
  next->onceMaxSweeps = settings.onceMaxSweeps;
  // The secret is read once, at start, and changed only by a rotation: the
  // keys running now are the ones the ports hold.
  next->sweep.program.mKeys = settings.sweep.program.mKeys;
  next->mKeyRotation = settings.mKeyRotation;
  settings = std::move(*next);
  logControl.applyConfig(settings.logLevel);
  machine.setContext(contextOf(portGuid, settings));
  agent.setPriority(settings.priority);
  agent.setSmKey(settings.smKey);
  sweep.setSettings(settings.sweep);
  trapService.setSettings(settings.traps);
  sa.setQueue(settings.saQueue, settings.saReadsPerTurn);
  multicast.precreate();
  ++record.reloads.taken;
  record.reloads.error.clear();
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
    if (running.stopping) return;
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
  recordSweep(sweepInfo(control::SweepKind::Replan, since(t0), result->mads, result->changes,
                        uptime.up, &*result),
              &*result);
  if (!uptime.up) machine.feed(Event::operatorSweep(true));
}

}  // namespace ibsm::sm::manager
