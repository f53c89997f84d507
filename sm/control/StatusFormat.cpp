// The text form of `ibsm status`: stable "key: value" lines.
#include "sm/control/StatusFormat.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <ibsm/MadAttributes.h>

#include <iterator>

#include "sm/control/StatusCounters.h"
#include "sm/sa/SaNames.h"

namespace ibsm::sm::control {

SaNamedCounts namedCounts(const sa::SaCounters& counts) {
  SaNamedCounts named;
  for (const auto& [id, n] : counts.byAttribute) named.byAttribute[sa::attributeName(id)] += n;
  for (const auto& [method, n] : counts.byMethod) named.byMethod[sa::methodName(method)] += n;
  for (const auto& [status, n] : counts.errorsByStatus)
    named.errorsByStatus[sa::statusName(status)] += n;
  for (const auto& [status, n] : counts.mcRefusedByStatus)
    named.mcRefusedByStatus[sa::statusName(status)] += n;
  return named;
}

namespace {

std::string guidOrNone(const std::optional<Guid>& g) {
  return g ? fmt::format("{}", *g) : "none";
}

// A group's declared counters, one "<prefix><word>: N" line each.
template <typename Group, std::size_t N>
void appendLines(std::string& out, std::string_view prefix, const Group& group,
                 const std::array<CounterDecl<Group>, N>& decls) {
  for (const CounterDecl<Group>& d : decls)
    fmt::format_to(std::back_inserter(out), "{}{}: {}\n", prefix, d.word(), d.value(group));
}
// ...or all on one line: "<key>: word N word N ...".
template <typename Group, std::size_t N>
void appendWords(std::string& out, std::string_view key, const Group& group,
                 const std::array<CounterDecl<Group>, N>& decls) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "{}:", key);
  for (const CounterDecl<Group>& d : decls) fmt::format_to(o, " {} {}", d.word(), d.value(group));
  out += '\n';
}

void appendSweep(std::string& out, std::string_view key, const std::optional<SweepInfo>& s) {
  auto o = std::back_inserter(out);
  if (!s) {
    fmt::format_to(o, "{}: none\n", key);
    return;
  }
  fmt::format_to(o, "{}: {} {} {} ms {} mads {}\n", key, name(s->kind), utcTime(s->when),
                 s->duration.count(), s->mads, s->up ? "up" : "not-up");
  fmt::format_to(o, "{}_changes: {}\n", key, s->changes.size());
  for (const auto& c : s->changes) fmt::format_to(o, "{}_change: {}\n", key, c);
  if (!s->counters) return;
  const SweepCounters& n = *s->counters;
  const auto ms = [](std::chrono::microseconds us) { return us.count() / 1000; };
  fmt::format_to(o, "{}_time: discovery {} ms, plan {} ms, programming {} ms\n", key,
                 ms(n.discoveryTime), ms(n.planTime), ms(n.programTime));
  fmt::format_to(
      o,
      "{}_blocks: lft {} written {} read, pkey {} written {} read, sl2vl {} written {} read, "
      "mft {} written, vlarb {} written {} read\n",
      key, n.lft.written, n.lft.read, n.pkey.written, n.pkey.read, n.sl2vl.written, n.sl2vl.read,
      n.mft.written, n.vlarb.written, n.vlarb.read);
  fmt::format_to(o, "{}_ports: {} configured, {} armed, {} activated, {} failed\n", key,
                 n.portsConfigured, n.portsArmed, n.portsActivated, n.failed);
  fmt::format_to(o, "{}_enforcement_kept: {}\n", key, n.enforcementKept);
  fmt::format_to(o, "{}_ports_keyed: {}\n", key, n.portsKeyed);
  if (const auto& r = n.routes; r && r->how == "kept")
    fmt::format_to(o,
                   "{}_routes: kept ({}) {} entries kept, {} rerouted in {} blocks, busiest {} "
                   "(fresh {})\n",
                   key, r->change, r->kept, r->rerouted, r->reroutedBlocks, r->busiest,
                   r->freshBusiest);
  else if (r)
    fmt::format_to(o, "{}_routes: {}{}{}\n", key, r->how, r->why.empty() ? "" : ": ", r->why);
  for (const auto& r : n.reasons) fmt::format_to(o, "{}_not_up: {}\n", key, r);
}

// Sweeps by kind, DISCOVERING's last, then the other sweep counters.
void appendCounts(std::string& out, const SweepHistory& h) {
  auto o = std::back_inserter(out);
  for (std::size_t i = 1; i < kSweepCounts; ++i)
    fmt::format_to(o, "sweeps_{}: {}\n", kSweepCountNames[i], h.byKind.values[i]);
  fmt::format_to(o, "sweeps_{}: {}\n", name(SweepCount::Discovery),
                 h.byKind[SweepCount::Discovery]);
  appendLines(out, "", h, kSweepCounters);
}

void appendPeers(std::string& out, const DaemonStatus& s) {
  auto o = std::back_inserter(out);
  appendLines(out, "", s.states, kStateCounters);
  appendLines(out, "", s.peers, kPeerCounters);
  appendLines(out, "", s.reloads, kReloadCounters);
  if (!s.reloads.error.empty()) fmt::format_to(o, "reload_error: {}\n", s.reloads.error);
  fmt::format_to(o, "sms: {}\n", s.peers.sms.size());
  for (const OtherSm& m : s.peers.sms)
    fmt::format_to(o, "sm: {} {} priority {}\n", m.guid, m.state, m.priority);
  fmt::format_to(o, "foreign_sms: {}\nforeign_sm_reports: {}\n", s.peers.foreignSms.size(),
                 s.peers.foreignReports);
  for (const ForeignSm& f : s.peers.foreignSms)
    fmt::format_to(o, "foreign_sm: {} {} priority {} sm_key {} at {} lid {}\n", f.guid, f.state,
                   f.priority, shownSmKey(f.smKey), f.port, f.lid.value);
}

std::string byName(const std::map<std::string, std::uint64_t>& counts) {
  std::string line;
  for (const auto& [name, n] : counts)
    line += fmt::format("{}{} {}", line.empty() ? "" : ", ", name, n);
  return line.empty() ? std::string("none") : line;
}

void appendSa(std::string& out, const SaStatus& sa) {
  auto o = std::back_inserter(out);
  const auto& traffic = kSaTrafficCounters;
  appendLines(out, "sa_", sa.traffic, std::array{traffic[0], traffic[1]});
  appendWords(out, "sa_dropped", sa.traffic, std::array{traffic[2], traffic[3], traffic[4]});
  appendLines(out, "sa_", sa.traffic, std::array{traffic[5], traffic[6]});
  const SaNamedCounts named = namedCounts(sa.answers);
  fmt::format_to(o, "sa_by_attribute: {}\nsa_by_method: {}\nsa_errors: {}\n",
                 byName(named.byAttribute), byName(named.byMethod), byName(named.errorsByStatus));
  appendLines(out, "sa_", sa, kSaHeldCounters);
  fmt::format_to(o, "sa_notices: {}\n", byName(sa.noticesByTrap));
  appendWords(out, "sa_reports", sa, kSaReportCounters);
  appendLines(out, "sa_", sa, kSaSubscriberCounters);
  appendWords(out, "sa_limited", sa, kSaLimitCounters);
  appendWords(out, "sa_multicast", sa, kSaMulticastCounters);
  fmt::format_to(o, "sa_multicast_refused: {}\n", byName(named.mcRefusedByStatus));
  appendWords(out, "sa_fairness", sa, kSaFairnessCounters);
}

void appendMulticast(std::string& out, const MulticastCounts& m) {
  auto o = std::back_inserter(out);
  if (!m.managed) {
    fmt::format_to(o, "multicast: not managed\n");
    return;
  }
  fmt::format_to(o, "multicast: {} groups, {} members\n", m.groups, m.members);
  fmt::format_to(
      o, "multicast_passes: {} ({} failed), mft blocks {} written {} failed, last {} us\n",
      m.passes, m.passesFailed, m.passBlocksWritten, m.passBlocksFailed, m.lastPass.count());
  fmt::format_to(o, "multicast_members_dropped: {}, forgotten {}\n", m.membersDropped,
                 m.membersForgotten);
}

// A standby's `up:` says what it sees of the master's subnet, never a bare
// "no" while another SM runs it.
std::string upLine(const DaemonStatus& s) {
  if (!s.masterView) return s.up ? "yes" : "no";
  const MasterView& m = *s.masterView;
  return fmt::format(
      "{} as this SM sees it, run by master {} (lid {}, priority {}, {}): {} of {} linked ports "
      "Active{}",
      m.fabricUp ? "yes" : "no", m.guid, m.lid.value, m.priority, m.state, m.portsActive,
      m.portsLinked,
      m.seenAt ? fmt::format(" at this SM's discovery {}", utcTime(*m.seenAt)) : std::string());
}

// The last plan's fabric and routes, the health, and the SMPs since start.
void appendRoutes(std::string& out, const DaemonStatus& s) {
  auto o = std::back_inserter(out);
  const RoutesSummary& r = s.routes;
  appendLines(out, "", r, kRoutesCounters);
  fmt::format_to(o, "health: {}\n", healthLine(s.health));
  fmt::format_to(o, "engine: {}\n", r.engine.empty() ? "none" : r.engine);
  for (const auto& f : r.engineFallbacks) fmt::format_to(o, "engine_refused: {}\n", f);
  fmt::format_to(o, "routes_credit_loop: {}\n", r.creditLoop ? "yes" : "no");
  const MadTotals& m = s.mads;
  appendLines(out, "", m, kMadCounters);
  fmt::format_to(
      o,
      "blocks_total: lft {} written {} read, pkey {} written {} read, sl2vl {} written {} read, "
      "mft {} written, vlarb {} written {} read\n",
      m.lft.written, m.lft.read, m.pkey.written, m.pkey.read, m.sl2vl.written, m.sl2vl.read,
      m.mft.written, m.vlarb.written, m.vlarb.read);
  fmt::format_to(
      o, "m_keys: {}: {} protected, {} unknown, {} waiting on lease, {} keep none, {} taken over\n",
      m.mKeys.scheme, m.mKeys.protectedPorts, m.mKeys.unknown, m.mKeys.waitingOnLease,
      m.mKeys.keepNone, m.mKeys.takenOver);
  const MKeyCounts& k = m.mKeys;
  if (k.rotating || k.rotations != 0)
    fmt::format_to(
        o, "m_key_rotation: {}{}: {} on the new key, {} on the previous; {} ended\n",
        k.rotating ? "under way" : "none under way",
        k.rotationStarted ? " (last started " + utcTime(*k.rotationStarted) + ")" : std::string(),
        k.onNewKey, k.onPreviousKey, k.rotations);
}

void appendResources(std::string& out, const ResourceCounts& r) {
  fmt::format_to(std::back_inserter(out),
                 "resources: rss {:.1f} MB, heap {:.1f} MB in use {:.1f} MB free, smps {} "
                 "outstanding {} queued, perfmgt {} outstanding {} queued, {} ports' counters\n",
                 r.rssBytes / 1e6, r.heapInUse / 1e6, r.heapFree / 1e6, r.madOutstanding,
                 r.madQueued, r.gmpOutstanding, r.gmpQueued, r.counterPorts);
}

}  // namespace

std::string_view shownSmKey(std::uint64_t key) {
  if (key == kDefaultSmKey) return "default";
  return key == 0 ? "zero" : "other";
}

std::string utcTime(std::chrono::system_clock::time_point t) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(t));
}

std::string formatStatus(const DaemonStatus& s) {
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o, "state: {}\nphase: {}\n", s.state, s.phase);
  fmt::format_to(o, "port_guid: {}\nlid: {}\npriority: {}\nsm_key: {}\nmaster: {}\n", s.portGuid,
                 s.lid.value, s.priority, s.smKeyIsDefault ? "default" : "configured",
                 guidOrNone(s.master));
  const DaemonTimes& t = s.times;
  fmt::format_to(o, "uptime: {} s\nup: {}\nfirst_up: {}\n", t.uptime.count(), upLine(s),
                 t.firstUp ? fmt::format("{} ms", t.firstUp->count()) : std::string("none"));
  fmt::format_to(o, "sweeps: {}\nfirst_bring_ups: {}\n", s.sweeps.total, s.sweeps.firstBringUps);
  appendCounts(out, s.sweeps);
  appendSweep(out, "last_sweep", s.sweeps.last);
  appendSweep(out, "last_heavy", s.sweeps.lastHeavy);
  appendSweep(out, "last_change", s.sweeps.lastChange);
  appendSweep(out, "last_replan", s.sweeps.lastReplan);
  appendRoutes(out, s);
  fmt::format_to(o, "traps_received: {}\n", s.traps.received);
  appendWords(out, "traps", s.traps, kTrapCounters);
  fmt::format_to(o, "traps_by_number: {}\n", byName(s.traps.byNumber));
  appendResources(out, s.resources);
  appendPeers(out, s);
  appendSa(out, s.sa);
  appendMulticast(out, s.multicast);
  fmt::format_to(o, "log_level: {} (set by {}, {} changes)\n", s.log.level, s.log.setBy,
                 s.log.levelChanges);
  fmt::format_to(o, "mad_trace: {} lines, {} suppressed\n", s.log.traceLines,
                 s.log.traceSuppressed);
  appendWords(out, "control", s.resources.control, kControlCounters);
  return out;
}

}  // namespace ibsm::sm::control
