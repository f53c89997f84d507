// The JSON form of `ibsm status` and of the --stats file: every field and
// counter of DaemonStatus, nested where the text flattens (phases, tables,
// sweeps by kind), so a script reads `.last_heavy.counters.tables.lft.written`
// with jq instead of parsing a log line.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sm/control/HealthJsonParts.h"
#include "sm/control/StatusFormat.h"

namespace ibsm::sm::control {
namespace {

using Json = nlohmann::ordered_json;

std::int64_t unixMs(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::string text(Guid g) {
  return fmt::format("{}", g);
}

Json phasesJson(const std::vector<PhaseCounters>& phases) {
  Json out = Json::object();
  for (const PhaseCounters& p : phases)
    out[p.name] = {{"smps", p.smps},
                   {"sent", p.sent},
                   {"failed", p.failed},
                   {"deferred", p.deferred},
                   {"duration_us", p.duration.count()}};
  return out;
}

Json tableJson(const TableCounters& t) {
  return {{"read", t.read}, {"written", t.written}, {"smps", t.smps}};
}

Json routesJson(const std::optional<RoutesCounters>& r) {
  if (!r) return nullptr;
  return {{"how", r->how},
          {"change", r->change},
          {"kept", r->kept},
          {"rerouted", r->rerouted},
          {"rerouted_blocks", r->reroutedBlocks},
          {"busiest", r->busiest},
          {"fresh_busiest", r->freshBusiest},
          {"why", r->why}};
}

Json countersJson(const SweepCounters& c) {
  return {{"discovery",
           {{"mads", c.discoveryMads},
            {"retries", c.discoveryRetries},
            {"timeouts", c.discoveryTimeouts},
            {"nodes", c.nodes},
            {"cables", c.cables},
            {"problems", c.discoveryProblems},
            {"recalled", c.discoveryRecalled},
            {"duration_us", c.discoveryTime.count()}}},
          {"plan_us", c.planTime.count()},
          {"program_us", c.programTime.count()},
          {"phases", phasesJson(c.phases)},
          {"tables",
           {{"lft", tableJson(c.lft)},
            {"pkey", tableJson(c.pkey)},
            {"sl2vl", tableJson(c.sl2vl)},
            {"mft", tableJson(c.mft)}}},
          {"ports",
           {{"configured", c.portsConfigured},
            {"armed", c.portsArmed},
            {"activated", c.portsActivated},
            {"enforcement_kept", c.enforcementKept}}},
          {"routes", routesJson(c.routes)},
          {"failed", c.failed},
          {"complete", c.complete},
          {"not_up", c.reasons}};
}

Json sweepJson(const std::optional<SweepInfo>& s) {
  if (!s) return nullptr;
  return {{"kind", s->kind},
          {"when", utcTime(s->when)},
          {"when_unix_ms", unixMs(s->when)},
          {"duration_ms", s->duration.count()},
          {"mads", s->mads},
          {"changes", s->changes},
          {"up", s->up},
          {"counters", s->counters ? countersJson(*s->counters) : Json(nullptr)}};
}

Json countsJson(const SweepCounts& k) {
  return {{"discovery", k.discovery},
          {"heavy", k.heavy},
          {"takeover", k.takeover},
          {"light_quiet", k.lightQuiet},
          {"light_changed", k.lightChanged},
          {"reroute", k.reroute},
          {"replan", k.replan},
          {"rebalance", k.rebalance}};
}

Json smsJson(const DaemonStatus& s) {
  Json out = Json::array();
  for (const OtherSm& m : s.sms)
    out.push_back({{"guid", text(m.guid)}, {"priority", m.priority}, {"state", m.state}});
  return out;
}

Json foreignJson(const std::vector<ForeignSm>& sms) {
  Json out = Json::array();
  for (const ForeignSm& f : sms)
    out.push_back({{"guid", text(f.guid)},
                   {"state", f.state},
                   {"priority", f.priority},
                   {"sm_key", fmt::format("0x{:016x}", f.smKey)},
                   {"port", f.port},
                   {"lid", f.lid.value}});
  return out;
}

Json statesJson(const std::vector<StateChange>& changes) {
  Json out = Json::array();
  for (const StateChange& c : changes)
    out.push_back({{"state", c.state}, {"at_unix_ms", unixMs(c.at)}});
  return out;
}

// Minimal: what a script needs to find an entry; `ibsm health` shows more.
Json unhealthyJson(const std::vector<health::HealthEntry>& entries) {
  Json out = Json::array();
  for (const auto& e : entries) {
    Json ports = Json::array({e.name});
    if (e.peer) ports.push_back(e.peerName);
    Json guids = Json::array({fmt::format("{}/{}", e.port.node, e.port.port)});
    if (e.peer) guids.push_back(fmt::format("{}/{}", e.peer->node, e.peer->port));
    out.push_back({{"condition", health::conditionName(e.condition)},
                   {"ports", std::move(ports)},
                   {"links", std::move(guids)},
                   {"detail", e.detail},
                   {"action", health::actionName(e.action)},
                   {"isolated", e.isolated},
                   {"not_isolated_why", e.notIsolatedWhy},
                   {"since_unix_ms", unixMs(e.since)},
                   {"last_seen_unix_ms", unixMs(e.lastSeen)}});
  }
  return out;
}

Json multicastJson(const MulticastCounts& m) {
  return {{"managed", m.managed},
          {"groups", m.groups},
          {"members", m.members},
          {"passes", m.passes},
          {"passes_failed", m.passesFailed},
          {"pass_mft_blocks_written", m.passBlocksWritten},
          {"pass_mft_blocks_failed", m.passBlocksFailed},
          {"members_dropped", m.membersDropped},
          {"members_forgotten", m.membersForgotten},
          {"last_pass_us", m.lastPass.count()}};
}

Json saJson(const SaCounters& sa) {
  return {{"received", sa.received},
          {"answered", sa.answered},
          {"dropped_not_master", sa.droppedNotMaster},
          {"dropped_undecodable", sa.droppedUndecodable},
          {"dropped_no_responder", sa.droppedNoResponder},
          {"not_answered", sa.notAnswered},
          {"send_failed", sa.sendFailed},
          {"by_attribute", sa.byAttribute},
          {"by_method", sa.byMethod},
          {"errors_by_status", sa.errorsByStatus},
          {"service_records", sa.serviceRecords},
          {"subscribers", sa.subscribers},
          {"notices_by_trap", sa.noticesByTrap},
          {"reports",
           {{"sent", sa.reportsSent},
            {"retried", sa.reportsRetried},
            {"acknowledged", sa.reportsAcknowledged},
            {"failed", sa.reportsFailed},
            {"unmatched", sa.reportsUnmatched},
            {"send_failed", sa.reportSendFailed}}},
          {"subscribers_dropped", sa.subscribersDropped},
          {"answers_trimmed", sa.answersTrimmed},
          {"leases_shortened", sa.leasesShortened},
          {"segmented_refused", sa.segmentedRefused},
          {"multicast",
           {{"groups", sa.mcGroups},
            {"joins", sa.mcJoins},
            {"leaves", sa.mcLeaves},
            {"groups_created", sa.mcGroupsCreated},
            {"groups_deleted", sa.mcGroupsDeleted},
            {"refused_by_status", sa.mcRefusedByStatus}}}};
}

Json healthCountersJson(const HealthCounters& h) {
  Json over = Json::array();
  for (const CounterOverZero& c : h.overZero)
    over.push_back({{"name", c.name},
                    {"node_guid", text(c.node)},
                    {"port", c.port},
                    {"lid", c.lid.value},
                    {"counter", c.counter},
                    {"total", c.total},
                    {"lower_bound", c.lowerBound},
                    {"last", c.last}});
  const health::CounterSweepFigures& f = h.figures;
  return {{"counters",
           {{"enabled", f.enabled},
            {"interval_s", f.interval.count()},
            {"passes", f.passes},
            {"gmps", f.gmpsSent},
            {"timeouts", f.timeouts},
            {"errors", f.errors},
            {"resets", f.resets},
            {"all_port_reads", f.allPortReads},
            {"port_reads", f.portReads},
            {"port_reads_spared", f.portReadsSpared},
            {"last_pass_gmps", f.lastPassGmps},
            {"last_pass_ms", f.lastPassDuration.count()},
            {"last_pass_unix_ms", f.lastPassAt ? Json(unixMs(*f.lastPassAt)) : Json(nullptr)},
            {"next_pass_in_s", f.nextPassIn ? Json(f.nextPassIn->count()) : Json(nullptr)},
            {"ports", h.ports},
            {"sweeps_during_pass", h.sweepsDuringPass}}},
          {"ports_over_zero", std::move(over)}};
}

// The status's health: the counter sweep's figures (`counters`, live, and
// the error counters over zero), the counts by condition, and the health
// book's unhealthy entries (all of them with their counters: `ibsm health`).
// The sweep's figures as of its last pass are `ibsm health --json`'s
// `counter_sweep`; here they would say the same twice.
Json healthJson(const DaemonStatus& s) {
  Json h = healthCountersJson(s.healthCounters);
  h["counts"] = healthCountsJson(s.health);
  h["unhealthy"] = unhealthyJson(s.unhealthy);
  return h;
}

Json resourcesJson(const ResourceCounts& r) {
  return {{"mad_outstanding", r.madOutstanding}, {"mad_queued", r.madQueued},
          {"gmp_outstanding", r.gmpOutstanding}, {"gmp_queued", r.gmpQueued},
          {"counter_ports", r.counterPorts},     {"rss_bytes", r.rssBytes},
          {"heap_in_use_bytes", r.heapInUse},    {"heap_free_bytes", r.heapFree},
          {"memory_releases", r.memoryReleases}, {"metrics_writes", r.metricsWrites}};
}

Json exitJson(const std::optional<DaemonExit>& e) {
  if (!e) return nullptr;
  return {{"code", e->code},
          {"reason", e->reason},
          {"details", e->details},
          {"signal", e->signal},
          {"stopped_during", e->stoppedDuring}};
}

}  // namespace

std::string formatStatusJson(const DaemonStatus& s) {
  Json j = {{"state", s.state},
            {"phase", s.phase},
            {"port_guid", text(s.portGuid)},
            {"lid", s.lid.value},
            {"priority", s.priority},
            {"sm_key_default", s.smKeyIsDefault},
            {"master", s.master ? Json(text(*s.master)) : Json(nullptr)},
            {"uptime_s", s.uptime.count()},
            {"started_unix_ms", unixMs(s.started)},
            {"up", s.up},
            {"first_up_ms", s.firstUp ? Json(s.firstUp->count()) : Json(nullptr)},
            {"sweeps", s.sweeps},
            {"sweeps_by_kind", countsJson(s.sweepsByKind)},
            {"sweeps_failed", s.failedSweeps},
            {"fabric_walks", s.fabricWalks},
            {"last_sweep", sweepJson(s.lastSweep)},
            {"last_heavy", sweepJson(s.lastHeavy)},
            {"last_change", sweepJson(s.lastChange)},
            {"last_replan", sweepJson(s.lastReplan)},
            {"switches", s.switches},
            {"ca_ports", s.caPorts},
            {"routed_pairs", s.routedPairs},
            {"unreachable_pairs", s.unreachablePairs},
            {"engine", s.engine},
            {"engine_fallbacks", s.engineFallbacks},
            {"routes_credit_loop", s.routesCreditLoop},
            {"mads_sent", s.madsSent},
            {"mad_retries", s.madRetries},
            {"mad_timeouts", s.madTimeouts},
            {"tables_total",
             {{"lft", tableJson(s.lftTotal)},
              {"pkey", tableJson(s.pkeyTotal)},
              {"sl2vl", tableJson(s.sl2vlTotal)},
              {"mft", tableJson(s.mftTotal)}}},
            {"traps_received", s.trapsReceived},
            {"state_changes", s.stateChanges},
            {"times_master", s.timesMaster},
            {"recent_states", statesJson(s.recentStates)},
            {"up_reports", s.upReports},
            {"last_up_unix_ms", s.lastUpReport ? Json(unixMs(*s.lastUpReport)) : Json(nullptr)},
            {"missed_polls", s.missedPolls},
            {"handovers_sent", s.handoversSent},
            {"handovers_accepted", s.handoversAccepted},
            {"reloads", s.reloads},
            {"reloads_refused", s.reloadsRefused},
            {"reload_error", s.reloadError},
            {"sms", smsJson(s)},
            {"foreign_sms", foreignJson(s.foreignSms)},
            {"foreign_sm_reports", s.foreignReports},
            {"sa", saJson(s.sa)},
            {"multicast", multicastJson(s.multicast)},
            {"health", healthJson(s)},
            {"resources", resourcesJson(s.resources)},
            {"exit", exitJson(s.exit)}};
  j["first_bring_ups"] = s.firstBringUps;
  if (s.masterView) {
    const MasterView& m = *s.masterView;
    j["master_view"] = {{"guid", text(m.guid)},
                        {"lid", m.lid.value},
                        {"priority", m.priority},
                        {"state", m.state},
                        {"ports_linked", m.portsLinked},
                        {"ports_active", m.portsActive},
                        {"fabric_up", m.fabricUp},
                        {"seen_unix_ms", m.seenAt ? Json(unixMs(*m.seenAt)) : Json(nullptr)}};
  } else {
    j["master_view"] = nullptr;
  }
  j["log"] = {{"level", s.log.level},
              {"set_by", s.log.setBy},
              {"level_changes", s.log.levelChanges},
              {"trace_lines", s.log.traceLines},
              {"trace_suppressed", s.log.traceSuppressed}};
  // Invalid UTF-8 in a node description is replaced, not a reason to fail.
  std::string out = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  out += '\n';
  return out;
}

}  // namespace ibsm::sm::control
