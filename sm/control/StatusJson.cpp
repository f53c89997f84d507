// The JSON form of `ibsm status` and of the --stats file: every field and
// counter of DaemonStatus, nested where the text flattens (phases, tables,
// sweeps by kind), so a script reads `.last_heavy.counters.tables.lft.written`
// with jq instead of parsing a log line.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sm/control/HealthJsonParts.h"
#include "sm/control/StatusCounters.h"
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

// A group's declared counters, in their order, into `out`.
template <typename Group, std::size_t N>
void put(Json& out, const Group& group, const std::array<CounterDecl<Group>, N>& decls) {
  for (const CounterDecl<Group>& d : decls) out[d.key] = d.value(group);
}
template <typename Group, std::size_t N>
Json object(const Group& group, const std::array<CounterDecl<Group>, N>& decls) {
  Json out = Json::object();
  put(out, group, decls);
  return out;
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
            {"mft", tableJson(c.mft)},
            {"vlarb", tableJson(c.vlarb)}}},
          {"ports",
           {{"configured", c.portsConfigured},
            {"armed", c.portsArmed},
            {"activated", c.portsActivated},
            {"enforcement_kept", c.enforcementKept},
            {"keyed", c.portsKeyed}}},
          {"routes", routesJson(c.routes)},
          {"failed", c.failed},
          {"complete", c.complete},
          {"not_up", c.reasons}};
}

Json sweepJson(const std::optional<SweepInfo>& s) {
  if (!s) return nullptr;
  return {{"kind", name(s->kind)},
          {"when", utcTime(s->when)},
          {"when_unix_ms", unixMs(s->when)},
          {"duration_ms", s->duration.count()},
          {"mads", s->mads},
          {"changes", s->changes},
          {"up", s->up},
          {"counters", s->counters ? countersJson(*s->counters) : Json(nullptr)}};
}

Json countsJson(const SweepCounts& k) {
  Json out = Json::object();
  for (std::size_t i = 0; i < kSweepCounts; ++i) out[kSweepCountNames[i]] = k.values[i];
  return out;
}

Json smsJson(const std::vector<OtherSm>& sms) {
  Json out = Json::array();
  for (const OtherSm& m : sms)
    out.push_back({{"guid", text(m.guid)}, {"priority", m.priority}, {"state", m.state}});
  return out;
}

Json foreignJson(const std::vector<ForeignSm>& sms) {
  Json out = Json::array();
  for (const ForeignSm& f : sms)
    out.push_back({{"guid", text(f.guid)},
                   {"state", f.state},
                   {"priority", f.priority},
                   {"sm_key", std::string(shownSmKey(f.smKey))},
                   {"port", f.port},
                   {"lid", f.lid.value}});
  return out;
}

Json statesJson(const std::deque<StateChange>& changes) {
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
  Json out = {{"managed", m.managed}};
  put(out, m, kMulticastCounters);
  return out;
}

Json saJson(const SaStatus& sa) {
  Json out = object(sa.traffic, kSaTrafficCounters);
  const SaNamedCounts named = namedCounts(sa.answers);
  out["by_attribute"] = named.byAttribute;
  out["by_method"] = named.byMethod;
  out["errors_by_status"] = named.errorsByStatus;
  put(out, sa, kSaHeldCounters);
  out["notices_by_trap"] = sa.noticesByTrap;
  out["reports"] = object(sa, kSaReportCounters);
  put(out, sa, kSaSubscriberCounters);
  put(out, sa, kSaLimitCounters);
  Json mc = object(sa, kSaMulticastCounters);
  mc["refused_by_status"] = named.mcRefusedByStatus;
  out["multicast"] = std::move(mc);
  out["fairness"] = object(sa, kSaFairnessCounters);
  return out;
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

Json exitJson(const std::optional<DaemonExit>& e) {
  if (!e) return nullptr;
  return {{"code", e->code},
          {"reason", e->reason},
          {"details", e->details},
          {"signal", e->signal},
          {"stopped_during", e->stoppedDuring}};
}

// This SM: who it is, since when, whether the subnet is up.
void addSelf(Json& j, const DaemonStatus& s) {
  j["state"] = s.state;
  j["phase"] = s.phase;
  j["port_guid"] = text(s.portGuid);
  j["lid"] = s.lid.value;
  j["priority"] = s.priority;
  j["sm_key_default"] = s.smKeyIsDefault;
  j["master"] = s.master ? Json(text(*s.master)) : Json(nullptr);
  j["uptime_s"] = s.times.uptime.count();
  j["started_unix_ms"] = unixMs(s.times.started);
  j["up"] = s.up;
  j["first_up_ms"] = s.times.firstUp ? Json(s.times.firstUp->count()) : Json(nullptr);
}

void addSweeps(Json& j, const SweepHistory& h) {
  j["sweeps"] = h.total;
  j["sweeps_by_kind"] = countsJson(h.byKind);
  put(j, h, kSweepCounters);
  j["last_sweep"] = sweepJson(h.last);
  j["last_heavy"] = sweepJson(h.lastHeavy);
  j["last_change"] = sweepJson(h.lastChange);
  j["last_replan"] = sweepJson(h.lastReplan);
}

void addRoutesAndMads(Json& j, const RoutesSummary& r, const MadTotals& m) {
  put(j, r, kRoutesCounters);
  j["engine"] = r.engine;
  j["engine_fallbacks"] = r.engineFallbacks;
  j["routes_credit_loop"] = r.creditLoop;
  put(j, m, kMadCounters);
  j["mad_learnt_timeouts"] = Json::array();
  for (const LearntTimeout& t : m.learnt) {
    Json one = {{"path", t.path}, {"kind", t.kind}};
    put(one, t, kLearntTimeoutCounters);
    j["mad_learnt_timeouts"].push_back(std::move(one));
  }
  j["tables_total"] = {{"lft", tableJson(m.lft)},
                       {"pkey", tableJson(m.pkey)},
                       {"sl2vl", tableJson(m.sl2vl)},
                       {"mft", tableJson(m.mft)},
                       {"vlarb", tableJson(m.vlarb)}};
}

// The state changes, the reloads, the other SMs.
void addHistory(Json& j, const DaemonStatus& s) {
  const StateHistory& h = s.states;
  put(j, h, kStateCounters);
  j["recent_states"] = statesJson(h.recent);
  j["up_reports"] = h.upReports;
  j["last_up_unix_ms"] = h.lastUpReport ? Json(unixMs(*h.lastUpReport)) : Json(nullptr);
  put(j, s.peers, kPeerCounters);
  put(j, s.reloads, kReloadCounters);
  j["reload_error"] = s.reloads.error;
  j["sms"] = smsJson(s.peers.sms);
  j["foreign_sms"] = foreignJson(s.peers.foreignSms);
  j["foreign_sm_reports"] = s.peers.foreignReports;
}

Json masterViewJson(const std::optional<MasterView>& view) {
  if (!view) return nullptr;
  const MasterView& m = *view;
  return {{"guid", text(m.guid)},
          {"lid", m.lid.value},
          {"priority", m.priority},
          {"state", m.state},
          {"ports_linked", m.portsLinked},
          {"ports_active", m.portsActive},
          {"fabric_up", m.fabricUp},
          {"seen_unix_ms", m.seenAt ? Json(unixMs(*m.seenAt)) : Json(nullptr)}};
}

Json logJson(const LogCounts& log) {
  Json out = {{"level", log.level}, {"set_by", log.setBy}};
  put(out, log, kLogCounters);
  return out;
}

}  // namespace

std::string formatStatusJson(const DaemonStatus& s) {
  Json j = Json::object();
  addSelf(j, s);
  addSweeps(j, s.sweeps);
  addRoutesAndMads(j, s.routes, s.mads);
  j["traps_received"] = s.traps.received;
  j["traps"] = object(s.traps, kTrapCounters);
  j["traps"]["by_number"] = s.traps.byNumber;
  addHistory(j, s);
  j["sa"] = saJson(s.sa);
  j["multicast"] = multicastJson(s.multicast);
  j["health"] = healthJson(s);
  j["resources"] = object(s.resources, kResourceCounters);
  j["exit"] = exitJson(s.exit);
  j["first_bring_ups"] = s.sweeps.firstBringUps;
  j["master_view"] = masterViewJson(s.masterView);
  j["log"] = logJson(s.log);
  j["control"] = object(s.resources.control, kControlCounters);
  const MKeyCounts& k = s.mads.mKeys;
  j["m_keys"] = {{"scheme", k.scheme},
                 {"protected", k.protectedPorts},
                 {"unknown", k.unknown},
                 {"waiting_on_lease", k.waitingOnLease},
                 {"keep_none", k.keepNone},
                 {"taken_over", k.takenOver},
                 {"rotating", k.rotating},
                 {"on_new_key", k.onNewKey},
                 {"on_previous_key", k.onPreviousKey},
                 {"rotations", k.rotations},
                 {"rotation_started_unix_ms", k.rotationStarted ? unixMs(*k.rotationStarted) : 0}};
  // Invalid UTF-8 in a node description is replaced, not a reason to fail.
  std::string out = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  out += '\n';
  return out;
}

}  // namespace ibsm::sm::control
