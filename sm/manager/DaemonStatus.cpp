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
  c.vlarb =
      tableCounters(p.table(program::TableKind::VlArb), p.requests(program::TableKind::VlArb));
  c.routes = routesCounters(r);
  c.portsConfigured = p.portsConfigured;
  c.portsArmed = p.portsArmed;
  c.portsActivated = p.portsActivated;
  c.enforcementKept = p.quirksLearned;
  c.portsKeyed = p.portsKeyed;
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

control::SweepInfo SmDaemon::Impl::sweepInfo(control::SweepKind kind,
                                             std::chrono::milliseconds duration, std::uint64_t mads,
                                             std::vector<std::string> changes, bool up,
                                             const SweepResult* result) const {
  // `when` is for the operator's eyes: wall-clock time, not the engine's.
  control::SweepInfo info{.kind = kind,
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
  using control::SweepKind;
  ++record.sweeps.total;
  ++record.sweeps.byKind[control::countedAs(info.kind, !info.changes.empty())];
  record.sweeps.last = info;
  // The last sweep that walked the whole fabric: an asked rebalance does,
  // a scheduled one (a replan of the last walk) does not.
  const bool heavy = info.kind == SweepKind::Heavy || info.kind == SweepKind::Takeover;
  const bool walked = heavy || (info.kind == SweepKind::Rebalance && info.counters &&
                                info.counters->discoveryMads > 0);
  if (walked) record.sweeps.lastHeavy = info;
  if (!info.changes.empty()) record.sweeps.lastChange = info;
  if (info.kind == SweepKind::Replan) record.sweeps.lastReplan = info;
  if (result) countResult(*result);
  servicesOnSweep({.info = info, .result = result, .fabric = fabric});
}

void SmDaemon::Impl::countResult(const SweepResult& result) {
  record.lastResult = result;
  addTables(result);
}

void SmDaemon::Impl::addTables(const SweepResult& result) {
  for (std::size_t k = 0; k < program::kTableKinds; ++k) {
    const auto kind = static_cast<program::TableKind>(k);
    record.tables[kind].read += result.program.table(kind).read;
    record.tables[kind].written += result.program.table(kind).written;
    record.tables[kind].smps += result.program.requests(kind);
  }
}

void SmDaemon::Impl::setUp(bool isUp) {
  uptime.up = isUp;
  if (uptime.up && !uptime.firstUp) uptime.firstUp = since(uptime.started);
}

namespace {

control::RoutesSummary routesSummary(const SweepResult& r) {
  return {.switches = r.switches,
          .caPorts = r.caPorts,
          .routedPairs = r.routedPairs,
          .unreachablePairs = r.unreachablePairs,
          .engine = r.engine,
          .engineFallbacks = r.report.fallbacks,
          .creditLoop = !r.report.creditLoops.acyclic};
}

control::MadTotals madTotals(const MadCounters& sent,
                             const program::PerKind<control::TableCounters>& tables) {
  using program::TableKind;
  return {.sent = sent.sent,
          .retries = sent.retries,
          .timeouts = sent.timeouts,
          .lft = tables[TableKind::Lft],
          .pkey = tables[TableKind::PKey],
          .sl2vl = tables[TableKind::Sl2Vl],
          .mft = tables[TableKind::Mft],
          .vlarb = tables[TableKind::VlArb],
          .mKeys = {},    // MKeyService's (describe)
          .learnt = {}};  // describeCore's
}

}  // namespace

// Who this SM is, whom it takes for master, since when it runs.
void SmDaemon::Impl::describeSelf(control::DaemonStatus& s) const {
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
  s.up = uptime.up;
  s.times = {.started = uptime.startedWall,
             .uptime = std::chrono::duration_cast<std::chrono::seconds>(now() - uptime.started),
             .firstUp = uptime.firstUp};
}

// The core's own counters: sweeps, routes, SMPs, state changes, reloads.
void SmDaemon::Impl::describeCore(control::DaemonStatus& s) const {
  s.sweeps = record.sweeps;
  if (record.lastResult) s.routes = routesSummary(*record.lastResult);
  s.mads = madTotals(engine.counters(), record.tables);
  for (const MadRto::Learnt& l : engine.rto().learnt())
    s.mads.learnt.push_back({.path = l.lidRouted ? "lid" : "dr",
                             .hops = l.hops,
                             .kind = std::string(MadRto::kindName(l.kind)),
                             .samples = l.estimate.samples,
                             .srtt = l.estimate.srtt,
                             .rttvar = l.estimate.rttvar,
                             .timeout = l.timeout});
  s.states = record.states;
  s.reloads = record.reloads;
}

control::DaemonStatus SmDaemon::Impl::status() const {
  control::DaemonStatus s;
  describeSelf(s);
  describeCore(s);
  s.resources = resources();
  servicesDescribe(s);
  s.exit = running.ended;
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
  r.memoryReleases = record.memoryReleases;
  if (controlServer) r.control = controlServer->counts();
  return r;
}

void SmDaemon::Impl::releaseMemory() {
  releaseFreeMemory();
  ++record.memoryReleases;
}

}  // namespace ibsm::sm::manager
