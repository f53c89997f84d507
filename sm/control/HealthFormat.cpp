// The text forms of `ibsm health` and of the status's `health:` line.
#include "sm/control/HealthFormat.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "sm/control/StatusFormat.h"

namespace ibsm::sm::control {
namespace {

using health::Condition;
using health::Counter;

// "3,451": GMP counts of large fabrics run to millions, read at a glance.
std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string seconds(std::chrono::milliseconds ms) {
  return fmt::format("{:.1f} s", static_cast<double>(ms.count()) / 1000.0);
}

// A lower bound reads ">=": counts were lost (saturation, the port's own
// reset), so the true figure is at least this.
std::string totalText(const health::Total& t) {
  return fmt::format("{}{}", t.lowerBound ? ">=" : "", t.value);
}

std::string perHour(double rate) {
  return rate >= 100.0 ? fmt::format("{:.0f}/h", rate) : fmt::format("{:.1f}/h", rate);
}

// Port{Xmit,Rcv}Data count 4-octet words (IBA 16.1.3.5); operators think
// in bytes per second, decimal units as link speeds are quoted.
std::string dataRate(double wordsPerSecond) {
  double bytes = wordsPerSecond * 4.0;
  constexpr std::array<std::string_view, 5> kUnits{"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  std::size_t unit = 0;
  while (bytes >= 1000.0 && unit + 1 < kUnits.size()) {
    bytes /= 1000.0;
    ++unit;
  }
  // Three figures at most: "1.2 GB/s", "800 MB/s".
  return bytes >= 100.0 || unit == 0 ? fmt::format("{:.0f} {}", bytes, kUnits[unit])
                                     : fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

const health::PortCounterView* portIn(const health::HealthView& view, const PortKey& key) {
  const auto it = std::ranges::find(view.ports, key, &health::PortCounterView::port);
  return it == view.ports.end() ? nullptr : &*it;
}

std::string actionText(const health::HealthEntry& e) {
  if (e.action == health::Action::Report) return "report";
  if (e.isolated) return "isolate: isolated";
  if (!e.notIsolatedWhy.empty()) return "isolate: not isolated: " + e.notIsolatedWhy;
  return "isolate: not isolated yet";
}

// One counter of an errors entry, as the last pass read it: what the
// operator compares with ibqueryerrors and with the threshold.
void appendCounter(std::string& out, Counter c, const health::PortCounterView* port) {
  auto o = std::back_inserter(out);
  const auto name = health::counterName(c);
  if (!port) {
    fmt::format_to(o, "  {}: not in the last counter pass\n", name);
    return;
  }
  const std::size_t i = health::index(c);
  fmt::format_to(o, "  {}: {} total, +{} at the last read", name, totalText(port->totals[i]),
                 port->lastDelta[i].value);
  if (port->rates) fmt::format_to(o, ", {}", perHour(port->rates->perHour[i]));
  out += '\n';
}

void appendEntry(std::string& out, const health::HealthEntry& e, const health::HealthView& view) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "\n{} {}: {}\n", health::conditionName(e.condition), e.name,
                 e.detail.empty() ? "-" : e.detail);
  if (e.peer)
    fmt::format_to(
        o, "  peer: {}\n",
        e.peerName.empty() ? fmt::format("{}[{}]", e.peer->node, e.peer->port) : e.peerName);
  const auto* port = portIn(view, e.port);
  for (Counter c : e.counters) appendCounter(out, c, port);
  fmt::format_to(o, "  action: {}\n", actionText(e));
  fmt::format_to(o, "  since: {} (last seen {})\n", utcTime(e.since), utcTime(e.lastSeen));
}

// "SymbolErrorCounter >=1205 (720/h), LinkDownedCounter 2": the error
// counters a port has counted at all, in ibqueryerrors' order.
std::string errorsText(const health::PortCounterView& p) {
  std::string out;
  for (std::size_t i = 0; i < health::kThresholdCounterCount; ++i) {
    if (p.totals[i].value == 0) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ",
                       health::counterName(health::counterAt(i)), totalText(p.totals[i]));
    if (p.rates) out += fmt::format(" ({})", perHour(p.rates->perHour[i]));
  }
  return out.empty() ? "no errors" : out;
}

void appendPort(std::string& out, const health::PortCounterView& p) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "{} lid {}: {}", p.name, p.lid, errorsText(p));
  if (p.rates) {
    const auto& s = p.rates->perSecond;
    fmt::format_to(o, "; data xmit {} rcv {}, packets xmit {:.0f}/s rcv {:.0f}/s",
                   dataRate(s[health::index(Counter::PortXmitData)]),
                   dataRate(s[health::index(Counter::PortRcvData)]),
                   s[health::index(Counter::PortXmitPkts)], s[health::index(Counter::PortRcvPkts)]);
  } else {
    out += "; rates after the next read";
  }
  if (p.portResets > 0) fmt::format_to(o, "; cleared by the port {} times", p.portResets);
  out += '\n';
}

}  // namespace

std::uint64_t HealthCounts::total() const {
  std::uint64_t n = 0;
  for (auto c : unhealthy) n += c;
  return n;
}

HealthCounts healthCounts(const health::HealthView& view) {
  HealthCounts c;
  for (const auto& e : view.unhealthy) {
    ++c.unhealthy[static_cast<std::size_t>(e.condition)];
    if (e.isolated) ++c.isolated;
  }
  c.counterSweep = view.counterSweep;
  return c;
}

std::string healthLine(const HealthCounts& c) {
  std::string out;
  auto o = std::back_inserter(out);
  if (c.total() == 0) {
    out += "healthy";
  } else {
    std::string each;
    for (std::size_t i = 0; i < health::kConditionCount; ++i)
      if (c.unhealthy[i] > 0)
        each += fmt::format("{}{} {}", each.empty() ? "" : ", ", c.unhealthy[i],
                            health::conditionName(static_cast<Condition>(i)));
    fmt::format_to(o, "{} unhealthy ({})", c.total(), each);
  }
  fmt::format_to(o, ", {} isolated; ", c.isolated);
  const auto& s = c.counterSweep;
  if (!s.enabled) {
    out += "counters off";
    return out;
  }
  fmt::format_to(o, "counters every {} s, ", s.interval.count());
  if (!s.lastPassAt) {
    if (!s.nextPassIn) {
      out += "first pass once master with the subnet up";
    } else if (s.nextPassIn->count() == 0) {
      out += "first pass now";
    } else {
      fmt::format_to(o, "first pass in {} s", s.nextPassIn->count());
    }
    return out;
  }
  fmt::format_to(o, "last pass {} ({} GMPs, {})", utcTime(*s.lastPassAt), grouped(s.lastPassGmps),
                 seconds(s.lastPassDuration));
  return out;
}

// Ports noisy with traps, or that sent traps 256/257/258 (TrapWatch.h).
void appendTrapPorts(std::string& out, const health::HealthView& view) {
  auto o = std::back_inserter(out);
  for (const auto& t : view.trapPorts) {
    if (t.noisy)
      fmt::format_to(
          o, "noisy: LID {} sends traps at {:.1f}/s ({} traps); its traps ask for no sweep\n",
          t.lid.value, t.rate, t.traps);
    if (t.badMKey + t.badPKey + t.badQKey + t.mismatched > 0)
      fmt::format_to(o, "traps: LID {} bad M_Key {}, bad P_Key {}, bad Q_Key {}, mismatched {}\n",
                     t.lid.value, t.badMKey, t.badPKey, t.badQKey, t.mismatched);
  }
}

std::string formatHealth(const health::HealthView& view) {
  std::string out = fmt::format("health: {}\n", healthLine(healthCounts(view)));
  if (view.unhealthy.empty()) {
    out += view.counterSweep.enabled
               ? "Every port and link is healthy: no counter over its threshold, no link "
                 "downgraded or flapping, no switch rebooted.\n"
               : "No link downgraded or flapping, no switch rebooted. Error counters are not "
                 "watched: the counter sweep is off (health.counter_interval = 0).\n";
  }
  for (const auto& e : view.unhealthy) appendEntry(out, e, view);
  appendTrapPorts(out, view);
  return out;
}

std::string formatHealthPorts(const health::HealthView& view) {
  std::string out = fmt::format("health: {}\n", healthLine(healthCounts(view)));
  auto o = std::back_inserter(out);
  const auto& s = view.counterSweep;
  fmt::format_to(o,
                 "ports: {} read; {} passes, {} GMPs sent, {} timeouts, {} error answers, {} "
                 "counter resets\n",
                 view.ports.size(), s.passes, grouped(s.gmpsSent), s.timeouts, s.errors, s.resets);
  if (view.ports.empty())
    out += s.enabled ? "No port read yet.\n"
                     : "No port read: the counter sweep is off (health.counter_interval = 0).\n";
  for (const auto& p : view.ports) appendPort(out, p);
  return out;
}

}  // namespace ibsm::sm::control
