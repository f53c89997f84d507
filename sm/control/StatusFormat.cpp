#include "sm/control/StatusFormat.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <iterator>

namespace ibsm::sm::control {
namespace {

// UTC with whole seconds: what an operator compares against log lines.
std::string isoTime(std::chrono::system_clock::time_point t) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(t));
}

std::string guidOrNone(const std::optional<Guid>& g) {
  return g ? fmt::format("{}", *g) : "none";
}

void appendSweep(std::string& out, std::string_view key, const std::optional<SweepInfo>& s) {
  auto o = std::back_inserter(out);
  if (!s) {
    fmt::format_to(o, "{}: none\n", key);
    return;
  }
  fmt::format_to(o, "{}: {} {} {} ms {} mads {}\n", key, s->kind, isoTime(s->when),
                 s->duration.count(), s->mads, s->up ? "up" : "not-up");
  fmt::format_to(o, "{}_changes: {}\n", key, s->changes.size());
  for (const auto& c : s->changes) fmt::format_to(o, "{}_change: {}\n", key, c);
}

std::string jsonString(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string jsonForeignSms(const std::vector<ForeignSm>& sms) {
  std::string out = "[";
  for (const ForeignSm& f : sms) {
    if (out.size() > 1) out += ',';
    out +=
        fmt::format(R"({{"guid":{},"state":{},"priority":{},"sm_key":{},"port":{},"lid":{}}})",
                    jsonString(fmt::format("{}", f.guid)), jsonString(f.state), f.priority,
                    jsonString(fmt::format("0x{:016x}", f.smKey)), jsonString(f.port), f.lid.value);
  }
  return out + "]";
}

std::string jsonSweep(const std::optional<SweepInfo>& s) {
  if (!s) return "null";
  std::string changes;
  for (const auto& c : s->changes) {
    // Appended piece by piece: GCC 12's -O3 takes `"," + std::string` for an
    // overlapping copy (-Wrestrict, a false positive).
    if (!changes.empty()) changes += ',';
    changes += jsonString(c);
  }
  return fmt::format(R"({{"kind":{},"when":{},"duration_ms":{},"mads":{},"changes":[{}],"up":{}}})",
                     jsonString(s->kind), jsonString(isoTime(s->when)), s->duration.count(),
                     s->mads, changes, s->up);
}

}  // namespace

std::string formatStatus(const DaemonStatus& s) {
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o, "state: {}\nphase: {}\n", s.state, s.phase);
  fmt::format_to(o, "port_guid: {}\nlid: {}\npriority: {}\nsm_key: {}\nmaster: {}\n", s.portGuid,
                 s.lid.value, s.priority, s.smKeyIsDefault ? "default" : "configured",
                 guidOrNone(s.master));
  fmt::format_to(o, "uptime: {} s\nsweeps: {}\n", s.uptime.count(), s.sweeps);
  appendSweep(out, "last_sweep", s.lastSweep);
  appendSweep(out, "last_heavy", s.lastHeavy);
  fmt::format_to(o, "switches: {}\nca_ports: {}\nrouted_pairs: {}\nunreachable_pairs: {}\n",
                 s.switches, s.caPorts, s.routedPairs, s.unreachablePairs);
  fmt::format_to(o, "engine: {}\nmads_sent: {}\ntraps_received: {}\n",
                 s.engine.empty() ? "none" : s.engine, s.madsSent, s.trapsReceived);
  fmt::format_to(o, "foreign_sms: {}\n", s.foreignSms.size());
  for (const ForeignSm& f : s.foreignSms)
    fmt::format_to(o, "foreign_sm: {} {} priority {} sm_key 0x{:016x} at {} lid {}\n", f.guid,
                   f.state, f.priority, f.smKey, f.port, f.lid.value);
  return out;
}

std::string formatStatusJson(const DaemonStatus& s) {
  return fmt::format(
      R"({{"state":{},"phase":{},"port_guid":{},"lid":{},"priority":{},"sm_key_default":{},)"
      R"("master":{},"uptime_s":{},"sweeps":{},"last_sweep":{},"last_heavy":{},"switches":{},)"
      R"("ca_ports":{},"routed_pairs":{},"unreachable_pairs":{},"engine":{},"mads_sent":{},)"
      R"("traps_received":{},"foreign_sms":{}}})"
      "\n",
      jsonString(s.state), jsonString(s.phase), jsonString(fmt::format("{}", s.portGuid)),
      s.lid.value, s.priority, s.smKeyIsDefault,
      s.master ? jsonString(fmt::format("{}", *s.master)) : "null", s.uptime.count(), s.sweeps,
      jsonSweep(s.lastSweep), jsonSweep(s.lastHeavy), s.switches, s.caPorts, s.routedPairs,
      s.unreachablePairs, jsonString(s.engine), s.madsSent, s.trapsReceived,
      jsonForeignSms(s.foreignSms));
}

}  // namespace ibsm::sm::control
