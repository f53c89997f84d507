// SmDaemon's work as DISCOVERING and as master: discovery, heavy sweeps
// (take-over included), light sweeps, and how --once judges a heavy sweep.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {

using fsm::Event;

namespace {

// A fabric no SM has run: no port holds a LID, and none shows an SM as
// master (an SM that ran it and died leaves both behind).
bool neverRun(const discovery::DiscoveredSubnet& subnet) {
  return std::ranges::none_of(subnet.portInfo, [](const auto& entry) {
    return entry.second.lid != Lid{} || entry.second.masterSmLid != Lid{};
  });
}

}  // namespace

void SmDaemon::Impl::logUp(const SweepResult& r, std::string_view how) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(r.elapsed).count();
  const auto sinceStart = std::chrono::duration<double>(now() - started).count();
  log->info(
      "SM-0001 subnet up: {} switches, {} CA ports, {} pairs routed by {}, {} ports active ({} "
      "activated by this sweep); {} of {} MADs in {} ms; {} MADs, {:.2f} s since start",
      r.switches, r.caPorts, r.routedPairs, r.engine, r.portsActive, r.program.portsActivated, how,
      r.mads, ms, engine.counters().sent, sinceStart);
  ++states.upReports;
  states.lastUpReport = wall();
}

void SmDaemon::Impl::discover() {
  const auto t0 = now();
  const auto sent = engine.counters().sent;
  discovery::Discovery discovery(engine, {}, log);
  ++sweeps.fabricWalks;
  auto found = discovery.run();
  if (!found) {
    if (stopping) return;
    ++sweeps.failed;
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
  auto sms = peerService.readPeers();
  for (const auto& s : sms)
    log->info("SM-0113 SM {} priority {} in state {}", s.guid, s.priority, fsm::name(s.smState));
  recordSweep(
      sweepInfo(control::SweepKind::Discovery, since(t0), engine.counters().sent - sent, {}, false),
      nullptr);
  fresh = FreshDiscovery{std::move(*found), discovery.counters(), traps};
  machine.feed(Event::discoveryDone(true, sms));
  const auto& st = machine.state();
  if (st.phase == fsm::Phase::Standby) peerService.noteMaster(st.master, sms);
}

// A TakeOver starts from what the fabric holds, not from our picture of it.
void SmDaemon::Impl::noteTakeOver(const std::optional<FreshDiscovery>& discovery) {
  if (machine.state().master == Guid{} && discovery && neverRun(discovery->subnet)) {
    ++sweeps.firstBringUps;
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
  if (!discovery) ++sweeps.fabricWalks;
  // `ibsm sweep --rebalance` (or a rebalance SM-0431 left asked) is a heavy
  // sweep that routes afresh: status counts it as a rebalance, as the
  // operator asked for one.
  const bool rebalancing = !takeover && sweep.rebalanceAsked();
  auto result =
      discovery ? sweep.run(std::move(discovery->subnet), discovery->counters) : sweep.run();
  if (!result) {
    if (stopping) return;  // cancelled: the machine holds Stop
    log->error("SM-0003 sweep failed: {}", result.error().message);
    ++sweeps.failed;
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
    recordSweep(info(up), &*result);
    return;
  }
  auto sms = peerService.readPeers();
  const bool wasUp = up;
  setUp(result->up);
  if (up && (!wasUp || !result->changes.empty()))
    logUp(*result, takeover ? "takeover" : "heavy sweep");
  if (up && result->plan) readVlArbForSa(*result);
  recordSweep(info(up), &*result, {.read = true});
  machine.feed(Event::heavySweepDone(true, up, std::move(sms)));
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
  result.program.tables[program::TableKind::VlArb] = read->table(program::TableKind::VlArb);
}

void SmDaemon::Impl::onceSwept(const SweepResult& result) {
  ++onceSweeps;
  // A link that changed while the sweep ran (Trap 128) means the tables
  // just written may point into a dead port: sweep again.
  const bool stale = agent.takeLinkChange();
  setUp(result.up && !stale);
  if (up) {
    logUp(result, "heavy sweep");
    end(0, "up");
    return;
  }
  if (onceSweeps >= *settings.onceMaxSweeps) {
    std::vector<std::string> reasons = result.reasons;
    if (stale) reasons.push_back("links kept changing during every sweep");
    log->error("SM-0004 subnet not up after {} sweeps: {}", onceSweeps, fmt::join(reasons, "; "));
    end(1, fmt::format("not up after {} sweeps", onceSweeps), std::move(reasons));
    return;
  }
  if (stale) log->warn("SM-0118 a link changed during the sweep (Trap 128): sweeping again");
  // Not up: the machine goes idle with a heavy sweep due, and onceEnd()
  // asks for it at once -- unless the SMs just read hand the subnet on.
  machine.feed(Event::heavySweepDone(true, false, peerService.readPeers()));
}

void SmDaemon::Impl::light() {
  auto result = sweep.lightSweep();
  if (!result) {
    if (stopping) return;
    log->error("SM-0414 light sweep failed: {}", result.error().message);
    ++sweeps.failed;
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
                result->mads, result->reroute ? result->reroute->changes : result->changes, up,
                result->reroute ? &*result->reroute : nullptr);
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
  recordSweep(sweepInfo(control::SweepKind::Rebalance, since(t0), result->mads, result->changes, up,
                        &*result),
              &*result);
  return result->up;
}

}  // namespace ibsm::sm::manager
