// The text form of `ibsm status`: stable "key: value" lines.
#include "sm/control/StatusFormat.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <iterator>

namespace ibsm::sm::control {
namespace {

std::string guidOrNone(const std::optional<Guid>& g) {
  return g ? fmt::format("{}", *g) : "none";
}

void appendSweep(std::string& out, std::string_view key, const std::optional<SweepInfo>& s) {
  auto o = std::back_inserter(out);
  if (!s) {
    fmt::format_to(o, "{}: none\n", key);
    return;
  }
  fmt::format_to(o, "{}: {} {} {} ms {} mads {}\n", key, s->kind, utcTime(s->when),
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
      "mft {} written\n",
      key, n.lft.written, n.lft.read, n.pkey.written, n.pkey.read, n.sl2vl.written, n.sl2vl.read,
      n.mft.written);
  fmt::format_to(o, "{}_ports: {} configured, {} armed, {} activated, {} failed\n", key,
                 n.portsConfigured, n.portsArmed, n.portsActivated, n.failed);
  fmt::format_to(o, "{}_enforcement_kept: {}\n", key, n.enforcementKept);
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

void appendCounts(std::string& out, const DaemonStatus& s) {
  auto o = std::back_inserter(out);
  const SweepCounts& k = s.sweepsByKind;
  fmt::format_to(o, "sweeps_heavy: {}\nsweeps_takeover: {}\nsweeps_light_quiet: {}\n", k.heavy,
                 k.takeover, k.lightQuiet);
  fmt::format_to(o, "sweeps_light_changed: {}\nsweeps_reroute: {}\nsweeps_replan: {}\n",
                 k.lightChanged, k.reroute, k.replan);
  fmt::format_to(o, "sweeps_rebalance: {}\n", k.rebalance);
  fmt::format_to(o, "sweeps_discovery: {}\nsweeps_failed: {}\nfabric_walks: {}\n", k.discovery,
                 s.failedSweeps, s.fabricWalks);
}

void appendPeers(std::string& out, const DaemonStatus& s) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "state_changes: {}\ntimes_master: {}\nmissed_polls: {}\n", s.stateChanges,
                 s.timesMaster, s.missedPolls);
  fmt::format_to(o, "handovers_sent: {}\nhandovers_accepted: {}\n", s.handoversSent,
                 s.handoversAccepted);
  fmt::format_to(o, "reloads: {}\nreloads_refused: {}\n", s.reloads, s.reloadsRefused);
  if (!s.reloadError.empty()) fmt::format_to(o, "reload_error: {}\n", s.reloadError);
  fmt::format_to(o, "sms: {}\n", s.sms.size());
  for (const OtherSm& m : s.sms)
    fmt::format_to(o, "sm: {} {} priority {}\n", m.guid, m.state, m.priority);
}

void appendSa(std::string& out, const SaCounters& sa) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "sa_received: {}\nsa_answered: {}\n", sa.received, sa.answered);
  fmt::format_to(o, "sa_dropped: not_master {} undecodable {} no_responder {}\n",
                 sa.droppedNotMaster, sa.droppedUndecodable, sa.droppedNoResponder);
  fmt::format_to(o, "sa_not_answered: {}\nsa_send_failed: {}\n", sa.notAnswered, sa.sendFailed);
  const auto byName = [](const std::map<std::string, std::uint64_t>& counts) {
    std::string line;
    for (const auto& [name, n] : counts)
      line += fmt::format("{}{} {}", line.empty() ? "" : ", ", name, n);
    return line.empty() ? std::string("none") : line;
  };
  fmt::format_to(o, "sa_by_attribute: {}\nsa_by_method: {}\nsa_errors: {}\n",
                 byName(sa.byAttribute), byName(sa.byMethod), byName(sa.errorsByStatus));
  fmt::format_to(o, "sa_service_records: {}\nsa_subscribers: {}\n", sa.serviceRecords,
                 sa.subscribers);
  fmt::format_to(o, "sa_notices: {}\n", byName(sa.noticesByTrap));
  fmt::format_to(o,
                 "sa_reports: sent {} retried {} acknowledged {} failed {} unmatched {} "
                 "send_failed {}\nsa_subscribers_dropped: {}\n",
                 sa.reportsSent, sa.reportsRetried, sa.reportsAcknowledged, sa.reportsFailed,
                 sa.reportsUnmatched, sa.reportSendFailed, sa.subscribersDropped);
  fmt::format_to(o, "sa_limited: answers_trimmed {} leases_shortened {} segmented_refused {}\n",
                 sa.answersTrimmed, sa.leasesShortened, sa.segmentedRefused);
  fmt::format_to(o,
                 "sa_multicast: groups {} joins {} leaves {} created {} deleted {}\n"
                 "sa_multicast_refused: {}\n",
                 sa.mcGroups, sa.mcJoins, sa.mcLeaves, sa.mcGroupsCreated, sa.mcGroupsDeleted,
                 byName(sa.mcRefusedByStatus));
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

}  // namespace

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
  fmt::format_to(o, "uptime: {} s\nup: {}\nfirst_up: {}\n", s.uptime.count(), upLine(s),
                 s.firstUp ? fmt::format("{} ms", s.firstUp->count()) : std::string("none"));
  fmt::format_to(o, "sweeps: {}\nfirst_bring_ups: {}\n", s.sweeps, s.firstBringUps);
  appendCounts(out, s);
  appendSweep(out, "last_sweep", s.lastSweep);
  appendSweep(out, "last_heavy", s.lastHeavy);
  appendSweep(out, "last_change", s.lastChange);
  appendSweep(out, "last_replan", s.lastReplan);
  fmt::format_to(o, "switches: {}\nca_ports: {}\nrouted_pairs: {}\nunreachable_pairs: {}\n",
                 s.switches, s.caPorts, s.routedPairs, s.unreachablePairs);
  fmt::format_to(o, "health: {}\n", healthLine(s.health));
  fmt::format_to(o, "engine: {}\n", s.engine.empty() ? "none" : s.engine);
  for (const auto& f : s.engineFallbacks) fmt::format_to(o, "engine_refused: {}\n", f);
  fmt::format_to(o, "routes_credit_loop: {}\n", s.routesCreditLoop ? "yes" : "no");
  fmt::format_to(o, "mads_sent: {}\nmad_retries: {}\nmad_timeouts: {}\n", s.madsSent, s.madRetries,
                 s.madTimeouts);
  fmt::format_to(
      o,
      "blocks_total: lft {} written {} read, pkey {} written {} read, sl2vl {} written {} read, "
      "mft {} written\n",
      s.lftTotal.written, s.lftTotal.read, s.pkeyTotal.written, s.pkeyTotal.read,
      s.sl2vlTotal.written, s.sl2vlTotal.read, s.mftTotal.written);
  fmt::format_to(o, "traps_received: {}\n", s.trapsReceived);
  const ResourceCounts& r = s.resources;
  fmt::format_to(o,
                 "resources: rss {:.1f} MB, heap {:.1f} MB in use {:.1f} MB free, smps {} "
                 "outstanding {} queued, perfmgt {} outstanding {} queued, {} ports' counters\n",
                 r.rssBytes / 1e6, r.heapInUse / 1e6, r.heapFree / 1e6, r.madOutstanding,
                 r.madQueued, r.gmpOutstanding, r.gmpQueued, r.counterPorts);
  appendPeers(out, s);
  fmt::format_to(o, "foreign_sms: {}\nforeign_sm_reports: {}\n", s.foreignSms.size(),
                 s.foreignReports);
  for (const ForeignSm& f : s.foreignSms)
    fmt::format_to(o, "foreign_sm: {} {} priority {} sm_key 0x{:016x} at {} lid {}\n", f.guid,
                   f.state, f.priority, f.smKey, f.port, f.lid.value);
  appendSa(out, s.sa);
  appendMulticast(out, s.multicast);
  fmt::format_to(o, "log_level: {} (set by {}, {} changes)\n", s.log.level, s.log.setBy,
                 s.log.levelChanges);
  fmt::format_to(o, "mad_trace: {} lines, {} suppressed\n", s.log.traceLines,
                 s.log.traceSuppressed);
  return out;
}

}  // namespace ibsm::sm::control
