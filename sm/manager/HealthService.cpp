// The health book's side of the daemon (HealthService.h): the detectors
// fed, the book's changes logged, the isolation it wants planned.
#include "sm/manager/HealthService.h"

#include <fmt/format.h>
#include <ibsm/GuidList.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "sm/control/HealthFormat.h"
#include "sm/control/StatusFormat.h"
#include "sm/health/LinkConditions.h"

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

HealthService::HealthService(MasterSweep& sweep, const CounterService& counters,
                             const DaemonSettings& settings, std::shared_ptr<spdlog::logger> log,
                             HealthHooks hooks)
    : sweep_(sweep),
      counters_(counters),
      settings_(settings),
      log_(std::move(log)),
      hooks_(std::move(hooks)) {}

const Fabric* HealthService::observed() const {
  return sweep_.held().hasObservation() ? &sweep_.held().observed().fabric : nullptr;
}

std::string HealthService::readmit(std::string_view text) {
  if (!sweep_.held().hasObservation()) return "error: nothing swept yet\n";
  const Fabric& f = sweep_.held().observed().fabric;
  auto at = health::parseLinkEnd(f, text);
  if (!at) return fmt::format("error: {}\n", at.error().message);
  const auto link = health::linkAt(f, *at);
  if (!link) return fmt::format("error: {} is not cabled\n", f.describe(*at));
  auto change = book_.readmit(*link);
  if (!change) return fmt::format("error: {} is not isolated\n", health::describeLink(f, *link));
  logHealth({*change});
  isolationChanged();
  publish();
  // Planned by the heavy sweep this asks for, never inside the sweep that
  // may be running while the control socket answers.
  hooks_.sweepHeavy();
  return fmt::format("ok: {} re-admitted, heavy sweep requested\n", health::describeLink(f, *link));
}

void HealthService::logHealth(const std::vector<health::HealthChange>& changes) {
  for (const auto& c : changes) {
    const auto& e = c.entry;
    const auto cond = health::conditionName(e.condition);
    switch (c.transition) {
      case Transition::BecameUnhealthy:
        log_->warn("SM-1601 {} {}: {} (policy: {})", cond, where(e), e.detail,
                   health::actionName(e.action));
        break;
      case Transition::Recovered:
        log_->info("SM-1602 {} {}: recovered after {} s", cond, where(e),
                   std::chrono::duration_cast<std::chrono::seconds>(e.lastSeen - e.since).count());
        break;
      case Transition::Isolated:
        log_->warn("SM-1603 link isolated ({}): {}: routes avoid it", cond, where(e));
        break;
      case Transition::Readmitted:
        log_->info("SM-1604 link re-admitted ({}): {}: {}", cond, where(e), c.why);
        break;
      case Transition::IsolationRefused:
        log_->warn("SM-1605 link not isolated ({}): {}: {}", cond, where(e), c.why);
        break;
    }
  }
}

void HealthService::observeFlapsAndReboots() {
  const auto t = hooks_.now();
  const Fabric* f = observed();
  const auto wallNow = hooks_.wall();
  const auto& rule = settings_.health.flaps;
  std::vector<Finding> flapping;
  for (const auto& fl : flaps_.flapping(t, rule))
    flapping.push_back({.port = fl.link.a,
                        .name = endName(f, fl.link.a),
                        .peer = fl.link.b,
                        .peerName = endName(f, fl.link.b),
                        .detail = fmt::format("{} downs in {} s (more than {})", fl.downs,
                                              rule.window.count(), rule.count)});
  logHealth(book_.observe(Condition::Flapping, flapping, t, wallNow));
  std::vector<Finding> rebooted;
  std::erase_if(rebootedAt_, [&](const auto& r) {
    return t - r.second.at >= settings_.health.policy.cleanPeriod;
  });
  for (const auto& [guid, r] : rebootedAt_) {
    const auto node = f ? f->findNode(guid) : std::nullopt;
    rebooted.push_back({.port = {guid, 0},
                        .name = node ? fmt::format("\"{}\" ({})", f->node(*node).description, guid)
                                     : fmt::format("{}", guid),
                        .detail = r.why});
  }
  logHealth(book_.observe(Condition::Rebooted, rebooted, t, wallNow));
}

bool HealthService::isolationChanged() {
  auto wanted = book_.wantIsolated();
  if (wanted == sweep_.isolationAsked()) return false;
  sweep_.setIsolation(std::move(wanted));
  return true;
}

void HealthService::replanForIsolation() {
  const auto t0 = hooks_.now();
  auto result = sweep_.replan();
  if (!result) {
    if (hooks_.stopping()) return;
    log_->warn("SM-1607 could not re-plan for a link isolated or re-admitted ({}): sweeping heavy",
               result.error().message);
    hooks_.sweepHeavy();
    return;
  }
  logHealth(book_.isolation(sweep_.isolated(), sweep_.isolationRefused()));
  // Before the replan is counted: its status (and metrics) show the book
  // as the plan left it.
  publish();
  std::vector<std::string> changes;
  for (const auto& l : sweep_.isolated())
    changes.push_back("isolated: " + health::describeLink(result->plan->fabric, l));
  hooks_.recordReplan(*result, std::move(changes), t0);
}

void HealthService::publish() {
  published_.unhealthy = book_.entries();
  published_.at = hooks_.wall();
}

void HealthService::onSweep(const SweepOutcome& outcome) {
  if (outcome.fabric.read) afterSweep(outcome.fabric.lostTables);
}

void HealthService::afterSweep(std::span<const Guid> lostTables) {
  if (!sweep_.held().hasObservation()) return;
  book_.setPolicy(settings_.health.policy);
  const auto t = hooks_.now();
  const Fabric& f = sweep_.held().observed().fabric;
  auto links = health::linksOf(f);
  if (!links_.empty())
    for (const auto& lost : health::linksLost(links_, links)) flaps_.sweepDown(lost, t);
  links_ = std::move(links);
  for (const Guid g : lostTables)
    rebootedAt_[g] = {t, "its LFT was lost without the SM (LinearFDBTop reset)"};

  std::vector<Finding> downgraded;
  for (const auto& d : health::downgradedLinks(f))
    downgraded.push_back({.port = {f.node(d.a.port.node).guid, d.a.port.port},
                          .name = f.describe(d.a.port),
                          .peer = PortKey{f.node(d.b.port.node).guid, d.b.port.port},
                          .peerName = f.describe(d.b.port),
                          .detail = d.detail});
  logHealth(book_.observe(Condition::Downgraded, downgraded, t, hooks_.wall()));
  observeFlapsAndReboots();
  // What the plan just made did with the links asked (a heavy sweep may
  // find a link the only way to a node now).
  logHealth(book_.isolation(sweep_.isolated(), sweep_.isolationRefused()));
  if (isolationChanged()) hooks_.wantReplan();
  publish();
}

void HealthService::countersRead(const health::CounterSweep& counters) {
  book_.setPolicy(settings_.health.policy);
  const auto t = hooks_.now();
  const Fabric* f = observed();
  // LinkDownedCounter per link (the larger of its two ends this pass), and
  // switches whose every port read this pass reset its counters itself.
  std::map<health::LinkKey, std::uint64_t> downs;
  std::map<Guid, std::pair<std::size_t, std::size_t>> resets;  // ports read, ports reset
  // A copy for the pass's look (ErrorWatch takes a vector); freed after it.
  const std::vector<health::PortCounterView> ports = counters.lastPassPorts();
  for (const auto& p : ports) {
    auto& seen = portReadsSeen_[p.port];
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
  std::erase_if(portReadsSeen_, [&](const auto& p) { return !counters.remembers(p.first); });
  for (const auto& [link, n] : downs) flaps_.counterDowns(link, n, t);
  for (const auto& [guid, r] : resets)
    if (r.first >= 2 && r.first == r.second)
      rebootedAt_[guid] = {t, fmt::format("its counters reset on all {} ports read", r.first)};

  std::vector<Finding> errors;
  for (const auto& e : errorWatch_.update(ports, t, settings_.health.errors)) {
    const auto peer = peerOf(f, e.port);
    errors.push_back({.port = e.port,
                      .name = e.name,
                      .peer = peer,
                      .peerName = peer ? endName(f, *peer) : std::string{},
                      .detail = e.detail,
                      .counters = e.counters});
  }
  logHealth(book_.observe(Condition::Errors, errors, t, hooks_.wall()));
  observeFlapsAndReboots();
  // Not in the middle of a sweep: the next heavy sweep plans with it.
  if (isolationChanged() && hooks_.master()) hooks_.sweepHeavy();
  publish();
}

health::HealthView HealthService::view() const {
  health::HealthView v = published_;
  v.ports = counters_.lastPassPorts();
  v.counterSweep = counters_.figures();
  v.at = hooks_.wall();
  return v;
}

void HealthService::describe(control::DaemonStatus& s) const {
  s.health = control::healthCounts(published_);
  s.health.counterSweep = counters_.figures();  // set before the first pass too
  s.unhealthy = published_.unhealthy;
}

}  // namespace ibsm::sm::manager
