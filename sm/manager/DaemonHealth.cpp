// The daemon's side of fabric health: it feeds the detectors what each
// sweep and each counter pass found, hands their findings to the health
// book, logs the book's changes (one line per change, never one per sweep),
// and turns the isolation the book wants into a plan. Log ids SM-1601 ..
// SM-1607, see LOG MESSAGES in ibsm(8).
#include <fmt/format.h>
#include <ibsm/GuidList.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "sm/health/LinkConditions.h"
#include "sm/manager/DaemonCounters.h"
#include "sm/manager/DaemonImpl.h"

namespace ibsm::sm::manager {
namespace {

using health::Condition;
using health::Finding;
using health::Transition;

std::string endName(const Fabric* f, PortKey k) {
  if (f) {
    if (auto n = f->findNode(k.node); n && k.port < f->node(*n).ports.size())
      return f->describe({*n, k.port});
  }
  return fmt::format("{}/{}", k.node, k.port);
}

std::string where(const health::HealthEntry& e) {
  return e.peer ? fmt::format("{} - {}", e.name, e.peerName) : e.name;
}

// The other end of the cable at `port`, when the fabric has one.
std::optional<PortKey> peerOf(const Fabric* f, PortKey port) {
  if (!f) return std::nullopt;
  auto n = f->findNode(port.node);
  if (!n || port.port >= f->node(*n).ports.size()) return std::nullopt;
  auto link = health::linkAt(*f, {*n, port.port});
  if (!link) return std::nullopt;
  return link->a == port ? link->b : link->a;
}

}  // namespace

std::string SmDaemon::Impl::readmit(std::string_view text) {
  if (!sweep.held().hasObservation()) return "error: nothing swept yet\n";
  const Fabric& f = sweep.held().observed().fabric;
  auto at = health::parseLinkEnd(f, text);
  if (!at) return fmt::format("error: {}\n", at.error().message);
  const auto link = health::linkAt(f, *at);
  if (!link) return fmt::format("error: {} is not cabled\n", f.describe(*at));
  auto change = healthBook.readmit(*link);
  if (!change) return fmt::format("error: {} is not isolated\n", health::describeLink(f, *link));
  logHealth({*change});
  isolationChanged();
  publishHealth();
  // Planned by the heavy sweep this asks for, never inside the sweep that
  // may be running while the control socket answers.
  machine.feed(fsm::Event::operatorSweep(true));
  return fmt::format("ok: {} re-admitted, heavy sweep requested\n", health::describeLink(f, *link));
}

void SmDaemon::Impl::logHealth(const std::vector<health::HealthChange>& changes) {
  for (const auto& c : changes) {
    const auto& e = c.entry;
    const auto cond = health::conditionName(e.condition);
    switch (c.transition) {
      case Transition::BecameUnhealthy:
        log->warn("SM-1601 {} {}: {} (policy: {})", cond, where(e), e.detail,
                  health::actionName(e.action));
        break;
      case Transition::Recovered:
        log->info("SM-1602 {} {}: recovered after {} s", cond, where(e),
                  std::chrono::duration_cast<std::chrono::seconds>(e.lastSeen - e.since).count());
        break;
      case Transition::Isolated:
        log->warn("SM-1603 link isolated ({}): {}: routes avoid it", cond, where(e));
        break;
      case Transition::Readmitted:
        log->info("SM-1604 link re-admitted ({}): {}: {}", cond, where(e), c.why);
        break;
      case Transition::IsolationRefused:
        log->warn("SM-1605 link not isolated ({}): {}: {}", cond, where(e), c.why);
        break;
    }
  }
}

void SmDaemon::Impl::observeFlapsAndReboots() {
  const auto t = now();
  const Fabric* f = sweep.held().hasObservation() ? &sweep.held().observed().fabric : nullptr;
  const auto wallNow = wall();
  const auto& rule = settings.health.flaps;
  std::vector<Finding> flapping;
  for (const auto& fl : flaps.flapping(t, rule))
    flapping.push_back({.port = fl.link.a,
                        .name = endName(f, fl.link.a),
                        .peer = fl.link.b,
                        .peerName = endName(f, fl.link.b),
                        .detail = fmt::format("{} downs in {} s (more than {})", fl.downs,
                                              rule.window.count(), rule.count)});
  logHealth(healthBook.observe(Condition::Flapping, flapping, t, wallNow));
  std::vector<Finding> rebooted;
  std::erase_if(rebootedAt, [&](const auto& r) {
    return t - r.second.at >= settings.health.policy.cleanPeriod;
  });
  for (const auto& [guid, r] : rebootedAt) {
    const auto node = f ? f->findNode(guid) : std::nullopt;
    rebooted.push_back({.port = {guid, 0},
                        .name = node ? fmt::format("\"{}\" ({})", f->node(*node).description, guid)
                                     : fmt::format("{}", guid),
                        .detail = r.why});
  }
  logHealth(healthBook.observe(Condition::Rebooted, rebooted, t, wallNow));
}

bool SmDaemon::Impl::isolationChanged() {
  auto wanted = healthBook.wantIsolated();
  if (wanted == sweep.isolationAsked()) return false;
  sweep.setIsolation(std::move(wanted));
  return true;
}

void SmDaemon::Impl::replanForIsolation() {
  const auto t0 = now();
  auto result = sweep.replan();
  if (!result) {
    if (stopping) return;
    log->warn("SM-1607 could not re-plan for a link isolated or re-admitted ({}): sweeping heavy",
              result.error().message);
    machine.feed(fsm::Event::operatorSweep(true));
    return;
  }
  logHealth(healthBook.isolation(sweep.isolated(), sweep.isolationRefused()));
  setUp(result->up);
  std::vector<std::string> changes;
  for (const auto& l : sweep.isolated())
    changes.push_back("isolated: " + health::describeLink(result->plan->fabric, l));
  recordSweep(sweepInfo(control::SweepKind::Replan, since(t0), result->mads, std::move(changes), up,
                        &*result),
              &*result);
  if (!up) machine.feed(fsm::Event::operatorSweep(true));
}

void SmDaemon::Impl::publishHealth() {
  health.unhealthy = healthBook.entries();
  health.at = wall();
}

void SmDaemon::Impl::healthAfterSweep(const std::vector<Guid>& lostTables) {
  if (!sweep.held().hasObservation()) return;
  healthBook.setPolicy(settings.health.policy);
  const auto t = now();
  const Fabric& f = sweep.held().observed().fabric;
  auto links = health::linksOf(f);
  if (!healthLinks.empty())
    for (const auto& lost : health::linksLost(healthLinks, links)) flaps.sweepDown(lost, t);
  healthLinks = std::move(links);
  for (const Guid g : lostTables)
    rebootedAt[g] = {t, "its LFT was lost without the SM (LinearFDBTop reset)"};

  std::vector<Finding> downgraded;
  for (const auto& d : health::downgradedLinks(f))
    downgraded.push_back({.port = {f.node(d.a.port.node).guid, d.a.port.port},
                          .name = f.describe(d.a.port),
                          .peer = PortKey{f.node(d.b.port.node).guid, d.b.port.port},
                          .peerName = f.describe(d.b.port),
                          .detail = d.detail});
  logHealth(healthBook.observe(Condition::Downgraded, downgraded, t, wall()));
  observeFlapsAndReboots();
  // What the plan just made did with the links asked (a heavy sweep may
  // find a link the only way to a node now).
  logHealth(healthBook.isolation(sweep.isolated(), sweep.isolationRefused()));
  if (isolationChanged()) replanForIsolation();
  publishHealth();
}

void SmDaemon::Impl::countersRead() {
  healthBook.setPolicy(settings.health.policy);
  const auto t = now();
  const Fabric* f = sweep.held().hasObservation() ? &sweep.held().observed().fabric : nullptr;
  // LinkDownedCounter per link (the larger of its two ends this pass), and
  // switches whose every port read this pass reset its counters itself.
  std::map<health::LinkKey, std::uint64_t> downs;
  std::map<Guid, std::pair<std::size_t, std::size_t>> resets;  // ports read, ports reset
  // A copy for the pass's look (ErrorWatch takes a vector); freed after it.
  const std::vector<health::PortCounterView> ports = counterRun->sweep.lastPassPorts();
  for (const auto& p : ports) {
    auto& seen = portReadsSeen[p.port];
    if (p.reads == seen.reads) continue;
    const bool reset = p.portResets > seen.resets;
    seen = {p.reads, p.portResets};
    const auto delta = p.lastDelta[health::index(health::Counter::LinkDownedCounter)].value;
    if (auto peer = peerOf(f, p.port); peer && delta > 0) {
      auto& d = downs[health::linkKey(p.port, *peer)];
      d = std::max(d, delta);
    }
    auto& r = resets[p.port.node];
    ++r.first;
    r.second += reset ? 1 : 0;
  }
  // What the counter sweep forgot (ports gone a clean period) goes here too.
  std::erase_if(portReadsSeen,
                [&](const auto& p) { return !counterRun->sweep.remembers(p.first); });
  for (const auto& [link, n] : downs) flaps.counterDowns(link, n, t);
  for (const auto& [guid, r] : resets)
    if (r.first >= 2 && r.first == r.second)
      rebootedAt[guid] = {t, fmt::format("its counters reset on all {} ports read", r.first)};

  std::vector<Finding> errors;
  for (const auto& e : errorWatch.update(ports, t, settings.health.errors)) {
    const auto peer = peerOf(f, e.port);
    errors.push_back({.port = e.port,
                      .name = e.name,
                      .peer = peer,
                      .peerName = peer ? endName(f, *peer) : std::string{},
                      .detail = e.detail,
                      .counters = e.counters});
  }
  logHealth(healthBook.observe(Condition::Errors, errors, t, wall()));
  observeFlapsAndReboots();
  // Not in the middle of a sweep: the next heavy sweep plans with it.
  if (isolationChanged() && agent.self().smState == SmState::Master)
    machine.feed(fsm::Event::operatorSweep(true));
  publishHealth();
}

}  // namespace ibsm::sm::manager
