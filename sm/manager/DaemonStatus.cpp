// What the daemon counts and shows (`ibsm status`, the --stats file): each
// sweep as the status records it, with the typed counters of the sweeps
// that programmed, and the counts tests and benchmarks read instead of log
// lines.
#include <string>

#include "sm/manager/DaemonImpl.h"
#include "sm/manager/ProcessMemory.h"

namespace ibsm::sm::manager {
namespace {

std::string phaseKey(program::ProgramPhase p) {
  std::string key(phaseName(p));
  for (char& c : key)
    if (c == '-') c = '_';
  return key;
}

control::TableCounters tableCounters(const program::TableCounts& t, std::size_t smps) {
  return {.read = t.read, .written = t.written, .smps = smps};
}

std::optional<control::RoutesCounters> routesCounters(const SweepResult& r) {
  if (!r.plan) return std::nullopt;
  control::RoutesCounters out;
  out.how = routesHow(*r.plan);
  if (!r.plan->stable) return out;
  const StableRoutesStats& s = r.plan->stable->stats;
  out.change = changeName(r.plan->stable->change);
  out.kept = s.kept;
  out.rerouted = s.broken;
  out.reroutedBlocks = s.brokenBlocks;
  out.busiest = static_cast<std::uint64_t>(s.busiest);
  out.freshBusiest = static_cast<std::uint64_t>(s.freshBusiest);
  out.why = s.why;
  return out;
}

control::SweepCounters sweepCounters(const SweepResult& r) {
  const program::ProgramSummary& p = r.program;
  control::SweepCounters c;
  c.discoveryMads = r.discovery.madsSent;
  c.discoveryRetries = r.discovery.retries;
  c.discoveryTimeouts = r.discovery.timeouts;
  c.nodes = r.discovery.nodes;
  c.cables = r.discovery.cables;
  c.discoveryProblems = r.discovery.problems;
  c.discoveryRecalled = r.discovery.recalled.total();
  c.discoveryTime = r.discovery.elapsed;
  c.planTime = r.planTime;
  c.programTime = p.duration();
  c.lft = tableCounters(p.table(program::TableKind::Lft), p.requests(program::TableKind::Lft));
  c.pkey = tableCounters(p.table(program::TableKind::PKey), p.requests(program::TableKind::PKey));
  c.sl2vl =
      tableCounters(p.table(program::TableKind::Sl2Vl), p.requests(program::TableKind::Sl2Vl));
  c.mft = tableCounters(p.table(program::TableKind::Mft), p.requests(program::TableKind::Mft));
  c.routes = routesCounters(r);
  c.portsConfigured = p.portsConfigured;
  c.portsArmed = p.portsArmed;
  c.portsActivated = p.portsActivated;
  c.enforcementKept = p.quirksLearned;
  c.failed = p.failed();
  c.complete = p.complete();
  c.reasons = r.reasons;
  for (std::size_t i = 0; i < program::kProgramPhases; ++i) {
    const program::PhaseReport& ph = p.phases[i];
    if (!ph.ran) continue;
    c.phases.push_back({.name = phaseKey(static_cast<program::ProgramPhase>(i)),
                        .smps = ph.requests,
                        .sent = ph.transmissions,
                        .failed = ph.failures,
                        .deferred = ph.deferred,
                        .duration = ph.duration});
  }
  return c;
}

}  // namespace

control::SweepInfo SmDaemon::Impl::sweepInfo(std::string kind, std::chrono::milliseconds duration,
                                             std::uint64_t mads, std::vector<std::string> changes,
                                             bool up, const SweepResult* result) const {
  // `when` is for the operator's eyes: wall-clock time, not the engine's.
  control::SweepInfo info{.kind = std::move(kind),
                          .when = wall(),
                          .duration = duration,
                          .mads = mads,
                          .changes = std::move(changes),
                          .up = up,
                          .counters = std::nullopt};
  if (result) info.counters = sweepCounters(*result);
  return info;
}

void SmDaemon::Impl::recordSweep(const control::SweepInfo& info, const SweepResult* result,
                                 FabricRead fabric) {
  // The metrics file is written by the last service told (MetricsService).
  countSweep(info, result, fabric);
  // A sweep that planned (heavy, reroute, replan) freed its walk, plan and diff.
  if (result) releaseMemory();
}

void SmDaemon::Impl::countSweep(const control::SweepInfo& info, const SweepResult* result,
                                FabricRead fabric) {
  ++sweeps;
  auto& k = sweepsByKind;
  if (info.kind == "discovery") ++k.discovery;
  if (info.kind == "heavy") ++k.heavy;
  if (info.kind == "takeover") ++k.takeover;
  if (info.kind == "reroute") ++k.reroute;
  if (info.kind == "replan") ++k.replan;
  if (info.kind == "rebalance") ++k.rebalance;
  if (info.kind == "light") ++(info.changes.empty() ? k.lightQuiet : k.lightChanged);
  lastSweep = info;
  // The last sweep that walked the whole fabric: an asked rebalance does,
  // a scheduled one (a replan of the last walk) does not.
  const bool walked =
      info.kind == "heavy" || info.kind == "takeover" ||
      (info.kind == "rebalance" && info.counters && info.counters->discoveryMads > 0);
  if (walked) lastHeavy = info;
  if (!info.changes.empty()) lastChange = info;
  if (info.kind == "replan") lastReplan = info;
  if (result) countResult(*result);
  servicesOnSweep({.info = info, .result = result, .fabric = fabric});
}

void SmDaemon::Impl::countResult(const SweepResult& result) {
  lastResult = result;
  for (std::size_t k = 0; k < program::kTableKinds; ++k) {
    const auto kind = static_cast<program::TableKind>(k);
    tablesTotal[kind].read += result.program.table(kind).read;
    tablesTotal[kind].written += result.program.table(kind).written;
    tablesTotal[kind].smps += result.program.requests(kind);
  }
}

void SmDaemon::Impl::setUp(bool isUp) {
  up = isUp;
  if (up && !firstUp) firstUp = since(started);
}

control::DaemonStatus SmDaemon::Impl::status() const {
  control::DaemonStatus s;
  const auto& st = machine.state();
  s.state = std::string(fsm::name(agent.self().smState));
  s.phase = std::string(fsm::name(st.phase));
  s.portGuid = portGuid;
  s.priority = settings.priority;
  s.smKeyIsDefault = settings.smKey == kDefaultSmKey;
  if (agent.self().smState == SmState::Master)
    s.master = portGuid;
  else if (st.master)
    s.master = st.master;
  s.up = up;
  s.firstBringUps = firstBringUps;
  s.firstUp = firstUp;
  s.sweeps = sweeps;
  s.sweepsByKind = sweepsByKind;
  s.fabricWalks = fabricWalks;
  s.lastSweep = lastSweep;
  s.lastHeavy = lastHeavy;
  s.lastChange = lastChange;
  s.lastReplan = lastReplan;
  s.failedSweeps = failedSweeps;
  if (lastResult) {
    s.switches = lastResult->switches;
    s.caPorts = lastResult->caPorts;
    s.routedPairs = lastResult->routedPairs;
    s.unreachablePairs = lastResult->unreachablePairs;
    s.engine = lastResult->engine;
    s.engineFallbacks = lastResult->report.fallbacks;
    s.routesCreditLoop = !lastResult->report.creditLoops.acyclic;
  }
  s.uptime = std::chrono::duration_cast<std::chrono::seconds>(now() - started);
  s.started = startedWall;
  s.madsSent = engine.counters().sent;
  s.madRetries = engine.counters().retries;
  s.madTimeouts = engine.counters().timeouts;
  s.resources = resources();
  s.lftTotal = tablesTotal[program::TableKind::Lft];
  s.pkeyTotal = tablesTotal[program::TableKind::PKey];
  s.sl2vlTotal = tablesTotal[program::TableKind::Sl2Vl];
  s.mftTotal = tablesTotal[program::TableKind::Mft];
  s.trapsReceived = traps;
  s.stateChanges = stateChanges;
  s.timesMaster = timesMaster;
  s.recentStates.assign(recentStates.begin(), recentStates.end());
  s.upReports = upReports;
  s.lastUpReport = lastUpReport;
  s.reloads = reloads;
  s.reloadsRefused = reloadsRefused;
  s.reloadError = reloadError;
  servicesDescribe(s);
  s.exit = ended;
  return s;
}

control::ResourceCounts SmDaemon::Impl::resources() const {
  control::ResourceCounts r;
  r.madOutstanding = engine.outstanding();
  r.madQueued = engine.queued();
  const ProcessMemory m = readProcessMemory();
  r.rssBytes = m.rssBytes;
  r.heapInUse = m.heapInUse;
  r.heapFree = m.heapFree;
  r.memoryReleases = memoryReleases;
  return r;
}

void SmDaemon::Impl::releaseMemory() {
  releaseFreeMemory();
  ++memoryReleases;
}

}  // namespace ibsm::sm::manager
