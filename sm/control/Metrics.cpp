// Which metrics the SM exposes and from which field: one function per
// group, each family once (Exposition keeps the format).
#include "sm/control/Metrics.h"

#include <fmt/format.h>

#include <array>
#include <string_view>
#include <utility>

#include "sm/control/Exposition.h"
#include "sm/control/StatusCounters.h"

namespace ibsm::sm::control {
namespace {

using Labels = std::vector<MetricLabel>;

double seconds(std::chrono::milliseconds ms) {
  return static_cast<double>(ms.count()) / 1000.0;
}

// A group's declared counters that are metrics, one family each.
template <typename Group, std::size_t N>
void families(Exposition& e, const Group& group, const std::array<CounterDecl<Group>, N>& decls) {
  for (const CounterDecl<Group>& d : decls) {
    if (d.metric.empty()) continue;
    e.family(d.metric, d.kind == CounterKind::Gauge ? MetricType::Gauge : MetricType::Counter,
             d.help);
    e.sample({}, d.value(group));
  }
}

Labels portLabels(const health::PortCounterView& p) {
  return {{"node_guid", fmt::format("{}", p.port.node)},
          {"port", std::to_string(p.port.port)},
          {"name", p.name}};
}

Labels counterLabels(const health::PortCounterView& p, std::size_t i) {
  Labels l = portLabels(p);
  l.push_back({"counter", std::string(health::counterName(health::counterAt(i)))});
  return l;
}

void portCounters(Exposition& e, const health::HealthView& h) {
  e.family("ibsm_port_counter_total", MetricType::Counter,
           "Port counter counted since the SM started watching the port (PerfMgt), by IBA "
           "name; never decreases: counts lost to saturation or a port's own reset make it a "
           "lower bound. Port{Xmit,Rcv}Data count 4-octet words.");
  for (const auto& p : h.ports)
    for (std::size_t i = 0; i < health::kCounterCount; ++i)
      e.sample(counterLabels(p, i), p.totals[i].value);
  e.family("ibsm_port_counter_rate_per_second", MetricType::Gauge,
           "Port counter's increase per second between the counter sweep's last two reads "
           "of the port (absent after the first read).");
  for (const auto& p : h.ports)
    if (p.rates)
      for (std::size_t i = 0; i < health::kCounterCount; ++i)
        e.sample(counterLabels(p, i), p.rates->perSecond[i]);
  e.family("ibsm_port_resets_total", MetricType::Counter,
           "Times a port's counters went down without the SM clearing them (a reboot, or "
           "another tool clearing them).");
  for (const auto& p : h.ports) e.sample(portLabels(p), p.portResets);
}

void healthFigures(Exposition& e, const health::HealthView& h) {
  const HealthCounts c = healthCounts(h);
  e.family("ibsm_unhealthy", MetricType::Gauge,
           "Ports (errors) and links (downgraded, flapping) and switches (rebooted) the health "
           "book holds unhealthy now, by condition.");
  for (std::size_t i = 0; i < health::kConditionCount; ++i)
    e.sample({{"condition", std::string(health::conditionName(static_cast<health::Condition>(i)))}},
             c.unhealthy[i]);
  e.family("ibsm_isolated_links", MetricType::Gauge,
           "Links the SM keeps isolated (health.<condition> = \"isolate\").");
  e.sample({}, c.isolated);
  const auto& s = h.counterSweep;
  e.family("ibsm_counter_sweep_interval_seconds", MetricType::Gauge,
           "Seconds between counter sweep passes; 0: the counter sweep is off.");
  e.sample({}, static_cast<std::uint64_t>(s.enabled ? s.interval.count() : 0));
  e.family("ibsm_counter_passes_total", MetricType::Counter, "Counter sweep passes run.");
  e.sample({}, s.passes);
  e.family("ibsm_counter_gmps_total", MetricType::Counter,
           "PerfMgt GMPs the counter sweep sent, retries included.");
  e.sample({}, s.gmpsSent);
  e.family("ibsm_counter_timeouts_total", MetricType::Counter,
           "PerfMgt requests unanswered after all retries.");
  e.sample({}, s.timeouts);
  e.family("ibsm_counter_pass_duration_seconds", MetricType::Gauge,
           "How long the last counter sweep pass took.");
  e.sample({}, seconds(s.lastPassDuration));
  e.family("ibsm_counter_pass_gmps", MetricType::Gauge,
           "PerfMgt GMPs the last counter sweep pass sent.");
  e.sample({}, s.lastPassGmps);
}

void smState(Exposition& e, const DaemonStatus& s) {
  e.family("ibsm_sm_state", MetricType::Gauge,
           "1 for the SMInfo state this SM is in, 0 for the others.");
  constexpr std::array<std::string_view, 4> kStates{"MASTER", "STANDBY", "DISCOVERING",
                                                    "NOTACTIVE"};
  bool known = false;
  for (auto state : kStates) {
    known = known || state == s.state;
    e.sample({{"state", std::string(state)}}, std::uint64_t{state == s.state});
  }
  if (!known && !s.state.empty()) e.sample({{"state", s.state}}, std::uint64_t{1});
  e.family("ibsm_subnet_up", MetricType::Gauge,
           "1 when the last sweep as master left every reachable port ACTIVE and every pair "
           "routed.");
  e.sample({}, std::uint64_t{s.up});
  e.family("ibsm_uptime_seconds", MetricType::Gauge, "Seconds since the daemon started.");
  e.sample({}, static_cast<std::uint64_t>(s.times.uptime.count()));
}

void sweeps(Exposition& e, const SweepHistory& h) {
  e.family(kSweepsByKindMetric, MetricType::Counter, kSweepsByKindHelp);
  for (std::size_t i = 0; i < kSweepCounts; ++i)
    e.sample({{"kind", std::string(kSweepCountNames[i])}}, h.byKind.values[i]);
  families(e, h, kSweepCounters);
  e.family("ibsm_last_sweep_duration_seconds", MetricType::Gauge,
           "How long the last sweep took (any kind; 0 before the first).");
  e.sample({}, h.last ? seconds(h.last->duration) : 0.0);
}

void fabric(Exposition& e, const DaemonStatus& s) {
  families(e, s.routes, kRoutesCounters);
  e.family("ibsm_routes_credit_loop", MetricType::Gauge,
           "1 when the routes programmed have a credit loop (the last engine named made them).");
  e.sample({}, std::uint64_t{s.routes.creditLoop ? 1u : 0u});
  families(e, s.mads, kMadCounters);
  families(e, s.traps, kTrapCounters);
}

}  // namespace

std::string formatSmMetrics(const DaemonStatus& status, const health::HealthView& health) {
  Exposition e;
  smState(e, status);
  sweeps(e, status.sweeps);
  fabric(e, status);
  families(e, status.resources.control, kControlCounters);
  healthFigures(e, health);
  return e.text();
}

std::string formatPortMetrics(const health::HealthView& health) {
  Exposition e;
  portCounters(e, health);
  return e.text();
}

std::string formatMetrics(const DaemonStatus& status, const health::HealthView& health) {
  return formatSmMetrics(status, health) + formatPortMetrics(health);
}

}  // namespace ibsm::sm::control
