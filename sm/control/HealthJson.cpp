// The JSON form of `ibsm health`: the whole HealthView, every port's
// counters by their IBA names, so a script reads
// `.ports[] | select(.counters.SymbolErrorCounter.total > 0)` with jq.
#include <fmt/format.h>

#include "sm/control/HealthJsonParts.h"
#include "sm/control/StatusFormat.h"

namespace ibsm::sm::control {
namespace {

using Json = nlohmann::ordered_json;

Json portKeyJson(const PortKey& k) {
  return {{"node_guid", fmt::format("{}", k.node)}, {"port", k.port}};
}

Json entryJson(const health::HealthEntry& e) {
  Json counters = Json::array();
  for (health::Counter c : e.counters) counters.push_back(health::counterName(c));
  return {{"condition", health::conditionName(e.condition)},
          {"port", portKeyJson(e.port)},
          {"name", e.name},
          {"peer", e.peer ? portKeyJson(*e.peer) : Json(nullptr)},
          {"peer_name", e.peerName},
          {"detail", e.detail},
          {"counters", counters},
          {"action", health::actionName(e.action)},
          {"isolated", e.isolated},
          {"not_isolated_why", e.notIsolatedWhy},
          {"since", utcTime(e.since)},
          {"last_seen", utcTime(e.lastSeen)}};
}

// One object per counter: the last reading, the running total (and
// whether it is a lower bound), what the last read added, and the rates
// (null after a port's first read).
Json countersJson(const health::PortCounterView& p) {
  Json out = Json::object();
  for (std::size_t i = 0; i < health::kCounterCount; ++i) {
    const auto& d = p.lastDelta[i];
    out[std::string(health::counterName(health::counterAt(i)))] = {
        {"value", p.last.values[i]},
        {"total", p.totals[i].value},
        {"total_lower_bound", p.totals[i].lowerBound},
        {"last_delta", d.value},
        {"saturated", d.saturated},
        {"port_reset", d.portReset},
        {"per_second", p.rates ? Json(p.rates->perSecond[i]) : Json(nullptr)},
        {"per_hour", p.rates ? Json(p.rates->perHour[i]) : Json(nullptr)}};
  }
  return out;
}

Json portJson(const health::PortCounterView& p) {
  return {{"node_guid", fmt::format("{}", p.port.node)},
          {"port", p.port.port},
          {"lid", p.lid.value},
          {"name", p.name},
          {"read_at", utcTime(p.readAt)},
          {"reads", p.reads},
          {"port_resets", p.portResets},
          {"extended_data", p.last.extendedData},
          {"counters", countersJson(p)}};
}

}  // namespace

Json healthCountsJson(const HealthCounts& c) {
  Json unhealthy = Json::object();
  for (std::size_t i = 0; i < health::kConditionCount; ++i)
    unhealthy[std::string(health::conditionName(static_cast<health::Condition>(i)))] =
        c.unhealthy[i];
  return {{"unhealthy", unhealthy}, {"total", c.total()}, {"isolated", c.isolated}};
}

Json counterSweepJson(const health::CounterSweepFigures& s) {
  return {{"enabled", s.enabled},
          {"interval_s", s.interval.count()},
          {"passes", s.passes},
          {"gmps_sent", s.gmpsSent},
          {"timeouts", s.timeouts},
          {"errors", s.errors},
          {"resets", s.resets},
          {"all_port_reads", s.allPortReads},
          {"port_reads", s.portReads},
          {"port_reads_spared", s.portReadsSpared},
          {"last_pass_gmps", s.lastPassGmps},
          {"last_pass_duration_ms", s.lastPassDuration.count()},
          {"last_pass_at", s.lastPassAt ? Json(utcTime(*s.lastPassAt)) : Json(nullptr)},
          {"next_pass_in_s", s.nextPassIn ? Json(s.nextPassIn->count()) : Json(nullptr)}};
}

std::string formatHealthJson(const health::HealthView& view) {
  Json unhealthy = Json::array();
  for (const auto& e : view.unhealthy) unhealthy.push_back(entryJson(e));
  Json ports = Json::array();
  for (const auto& p : view.ports) ports.push_back(portJson(p));
  Json trapPorts = Json::array();
  for (const auto& t : view.trapPorts)
    trapPorts.push_back({{"lid", t.lid.value},
                         {"noisy", t.noisy},
                         {"rate_per_s", t.rate},
                         {"traps", t.traps},
                         {"mismatched", t.mismatched},
                         {"bad_m_key", t.badMKey},
                         {"bad_p_key", t.badPKey},
                         {"bad_q_key", t.badQKey}});
  const HealthCounts counts = healthCounts(view);
  Json j = {{"at", utcTime(view.at)},
            {"healthy", counts.total() == 0},
            {"counts", healthCountsJson(counts)},
            {"counter_sweep", counterSweepJson(view.counterSweep)},
            {"unhealthy", unhealthy},
            {"ports", ports},
            {"trap_ports", trapPorts}};
  // Node descriptions are the fabric's bytes: invalid UTF-8 is replaced.
  std::string out = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  out += '\n';
  return out;
}

}  // namespace ibsm::sm::control
