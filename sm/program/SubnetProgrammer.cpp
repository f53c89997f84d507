#include "SubnetProgrammer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "PKeyPlan.h"
#include "Sl2VlPlan.h"

namespace ibsm::sm {
namespace {

std::string describeTarget(const Fabric& fabric, const StepTarget& target) {
  if (const auto* p = std::get_if<PortTarget>(&target)) {
    return fmt::format("PortInfo of {}", fabric.describe(p->port));
  }
  if (const auto* t = std::get_if<TopTarget>(&target)) {
    const Node& n = fabric.node(t->sw);
    return fmt::format("SwitchInfo (LinearFDBTop {}) of switch {} ({})", t->top, n.description,
                       n.guid);
  }
  if (const auto* k = std::get_if<PKeyTarget>(&target)) {
    return fmt::format("PKey block {} of {}", k->block, fabric.describe(k->port));
  }
  if (const auto* v = std::get_if<Sl2VlTarget>(&target)) {
    const Node& n = fabric.node(v->node);
    if (!n.isSwitch()) return fmt::format("SL2VL table of {}", fabric.describe({v->node, v->out}));
    return fmt::format("SL2VL table in port {} out port {} of switch {} ({})", v->in, v->out,
                       n.description, n.guid);
  }
  const auto& b = std::get<BlockTarget>(target);
  const Node& n = fabric.node(b.sw);
  return fmt::format("LFT block {} of switch {} ({})", b.block, n.description, n.guid);
}

PKeyPortKey pkeyKey(const Fabric& fabric, const PKeyTarget& t) {
  return PKeyPortKey{fabric.node(t.port.node).guid, t.port.port};
}

Sl2VlKey sl2vlKey(const Fabric& fabric, const Sl2VlTarget& t) {
  return Sl2VlKey{fabric.node(t.node).guid, t.in, t.out};
}

template <typename Target>
std::size_t countTargets(const std::vector<ProgramStep>& steps) {
  return static_cast<std::size_t>(std::ranges::count_if(
      steps, [](const ProgramStep& s) { return std::holds_alternative<Target>(s.target); }));
}

std::string describeOutcome(const SmpReply& reply) {
  switch (reply.outcome) {
    case SmpOutcome::Ok:
      return "ok";
    case SmpOutcome::BadStatus:
      return fmt::format("answered with status {}", describeMadStatus(reply.status));
    case SmpOutcome::Timeout:
      return fmt::format("no response after {} attempts", reply.attempts);
    case SmpOutcome::SendFailed:
      return "the transport refused to send it";
    case SmpOutcome::TransportFailed:
    case SmpOutcome::Cancelled:
      return describeFailure(reply);
  }
  return "?";
}

PortRef targetPort(const ProgramStep& step) {
  return std::get<PortTarget>(step.target).port;
}

// Splits `steps` into those to send and the number held back.
std::pair<std::vector<ProgramStep>, std::size_t> withoutHeld(const std::vector<ProgramStep>& steps,
                                                             auto&& held) {
  std::vector<ProgramStep> keep;
  std::size_t deferred = 0;
  for (const ProgramStep& s : steps) {
    if (held(targetPort(s))) {
      ++deferred;
    } else {
      keep.push_back(s);
    }
  }
  return {std::move(keep), deferred};
}

// Updates the cache from the LFT phase's outcomes; a switch with any
// failure is held (its links stay out of Active).
void recordLfts(const Fabric& fabric, const std::vector<ProgramStep>& steps,
                const std::vector<SmpReply>& replies, SwitchTableCache& cache,
                ProgramSummary& summary, std::set<NodeId>& heldSwitches) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const bool ok = replies[i].ok();
    if (const auto* t = std::get_if<TopTarget>(&steps[i].target)) {
      const Guid guid = fabric.node(t->sw).guid;
      if (ok) {
        cache.topWritten(guid, t->top);
        ++summary.topsWritten;
      } else {
        cache.topUncertain(guid);
        heldSwitches.insert(t->sw);
      }
      continue;
    }
    const auto& b = std::get<BlockTarget>(steps[i].target);
    const Guid guid = fabric.node(b.sw).guid;
    if (ok) {
      cache.learned(guid, b.block, b.contents);
      ++summary.blocksWritten;
    } else {
      cache.forget(guid, b.block);
      heldSwitches.insert(b.sw);
    }
  }
}

}  // namespace

SubnetProgrammer::SubnetProgrammer(MadEngine& engine, SwitchTableCache& cache,
                                   ProgramOptions options, std::shared_ptr<spdlog::logger> logger)
    : engine_(engine),
      cache_(cache),
      options_(options),
      log_(logger ? std::move(logger) : spdlog::default_logger()) {}

Result<std::vector<SmpReply>> SubnetProgrammer::runPhase(Phase phase,
                                                         const std::vector<ProgramStep>& steps,
                                                         std::size_t deferred, const Fabric& fabric,
                                                         ProgramSummary& summary) {
  const auto clock = engine_.options().clock;
  const auto start = clock();
  const std::uint64_t sentBefore = engine_.counters().sent;
  // Shared with the callbacks: if the transport dies, the engine may keep
  // them past this call, and they must not write into a dead frame.
  auto shared = std::make_shared<std::vector<SmpReply>>(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    engine_.submit(steps[i].request,
                   [shared, i](const SmpRequest&, const SmpReply& reply) { (*shared)[i] = reply; });
  }
  if (auto idle = engine_.runUntilIdle(); !idle) return std::unexpected(idle.error());
  std::vector<SmpReply> replies = *shared;

  PhaseReport& report = summary.phase(phase);
  report.ran = true;
  report.requests = steps.size();
  report.deferred = deferred;
  report.transmissions = engine_.counters().sent - sentBefore;
  report.duration = std::chrono::duration_cast<std::chrono::microseconds>(clock() - start);
  report.pkeyRequests = countTargets<PKeyTarget>(steps);
  report.sl2vlRequests = countTargets<Sl2VlTarget>(steps);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (replies[i].ok()) continue;
    ++report.failures;
    const std::string what = describeTarget(fabric, steps[i].target);
    if (phase == Phase::ReadTables) {
      // Harmless: a block whose contents are unknown is simply written.
      log_->warn("PROG-0302 reading {}: {}; it will be written", what, describeOutcome(replies[i]));
      continue;
    }
    std::string line = fmt::format("writing {}: {}", what, describeOutcome(replies[i]));
    log_->warn("PROG-0302 {}; left dirty for the next sweep", line);
    summary.failures.push_back(std::move(line));
  }
  log_->info(
      "PROG-0301 phase {}: {} SMPs ({} PKey, {} SL2VL, {} sent), {} failed, {} deferred, {:.3f} ms",
      phaseName(phase), report.requests, report.pkeyRequests, report.sl2vlRequests,
      report.transmissions, report.failures, report.deferred,
      static_cast<double>(report.duration.count()) / 1000.0);
  return replies;
}

void SubnetProgrammer::noteIgnoredEnforcement(const Fabric& fabric, PortRef port,
                                              const ProgramStep& step, const SmpReply& reply) {
  if (!fabric.node(port.node).isSwitch() || port.port == 0 || !reply.smp) return;
  // The answer to a Set holds the attribute as the port now has it.
  const PortInfo asked = decodePortInfo(step.request.data);
  const PortInfo now = decodePortInfo(reply.smp->data);
  if (asked.partitionEnforcementInbound == now.partitionEnforcementInbound &&
      asked.partitionEnforcementOutbound == now.partitionEnforcementOutbound) {
    return;
  }
  cache_.pkeys().enforcementIgnored({fabric.node(port.node).guid, port.port});
  log_->warn(
      "PROG-0307 {} kept partition enforcement inbound {} outbound {} after a Set asking for "
      "{}/{}; not asked again until the switch is reset",
      fabric.describe(port), now.partitionEnforcementInbound, now.partitionEnforcementOutbound,
      asked.partitionEnforcementInbound, asked.partitionEnforcementOutbound);
}

Result<void> SubnetProgrammer::readTables(const DiscoveredSubnet& discovered,
                                          const SubnetPlan& plan, ProgramSummary& summary) {
  std::vector<NodeId> switches;
  for (const auto& [sw, info] : discovered.switchInfo) switches.push_back(sw);
  std::ranges::sort(switches);
  std::vector<ProgramStep> reads;
  for (const NodeId sw : switches) {
    const Guid guid = discovered.fabric.node(sw).guid;
    const auto blocks = cache_.admit(guid, Lid{discovered.switchInfo.at(sw).linearFdbTop});
    auto path = pathToPort(discovered, PortRef{sw, 0});
    if (!path) continue;  // the blocks stay unknown, so they are written
    for (const std::uint16_t b : blocks) {
      reads.push_back(
          ProgramStep{BlockTarget{sw, b, {}},
                      SmpRequest::get(AttributeId::LinearForwardingTable, lftModifier(b), *path)});
    }
  }
  if (plan.pkeys) {
    // Notes on ports left alone come again, once, from the planner.
    std::vector<std::string> ignored;
    for (const PKeyPort& port : pkeyPorts(discovered, *plan.pkeys, ignored)) {
      for (const std::uint16_t b : cache_.pkeys().admit(port.key, port.blocks, port.reset)) {
        reads.push_back(ProgramStep{PKeyTarget{port.entry->port, b, {}}, getPKeyBlock(port, b)});
      }
    }
  }
  if (!plan.routing.sl2vl.empty()) {
    std::vector<std::string> ignored;  // the planner notes them
    std::set<Guid> reset;
    for (const Sl2VlTableRef& t : sl2vlTables(discovered, plan.routing, ignored)) {
      if (t.reset && reset.insert(t.key.node).second) cache_.sl2vl().reset(t.key.node);
      if (!cache_.sl2vl().admit(t.key)) continue;
      reads.push_back(ProgramStep{Sl2VlTarget{t.entry->sw, t.key.in, t.key.out, {}}, getSl2Vl(t)});
    }
  }
  auto replies = runPhase(Phase::ReadTables, reads, 0, discovered.fabric, summary);
  if (!replies) return std::unexpected(replies.error());
  for (std::size_t i = 0; i < reads.size(); ++i) {
    if (!(*replies)[i].ok()) continue;
    if (const auto* v = std::get_if<Sl2VlTarget>(&reads[i].target)) {
      cache_.sl2vl().learned(sl2vlKey(discovered.fabric, *v),
                             decodeSlToVlTable((*replies)[i].smp->data));
      ++summary.sl2vlTablesRead;
      continue;
    }
    if (const auto* k = std::get_if<PKeyTarget>(&reads[i].target)) {
      cache_.pkeys().learned(pkeyKey(discovered.fabric, *k), k->block,
                             decodePKeyBlock((*replies)[i].smp->data));
      ++summary.pkeyBlocksRead;
      continue;
    }
    const auto& t = std::get<BlockTarget>(reads[i].target);
    cache_.learned(discovered.fabric.node(t.sw).guid, t.block,
                   decodeLftBlock((*replies)[i].smp->data));
    ++summary.blocksRead;
  }
  return {};
}

Result<ProgramSummary> SubnetProgrammer::program(const DiscoveredSubnet& discovered,
                                                 const SubnetPlan& plan) {
  const Fabric& fabric = discovered.fabric;
  ProgramSummary summary;
  if (plan.pkeys) {
    if (auto ok = checkPKeyTables(fabric, *plan.pkeys); !ok) return std::unexpected(ok.error());
  }
  // Before any read: the reads look the tables' nodes and ports up.
  if (auto ok = checkSl2VlEntries(fabric, plan.routing.sl2vl); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto read = readTables(discovered, plan, summary); !read) {
    return std::unexpected(read.error());
  }

  auto planned = planProgramming(discovered, plan, cache_, options_);
  if (!planned) return std::unexpected(planned.error());
  for (const std::string& note : planned->notes) log_->warn("PROG-0305 {}", note);
  summary.notes = planned->notes;

  // PKeys first, as OpenSM: a port gets its partitions before it is
  // reachable by LID. A failed block is unknown, so the next run sends it.
  const auto& pkeySteps = planned->phase(Phase::PKeys);
  auto pkeys = runPhase(Phase::PKeys, pkeySteps, 0, fabric, summary);
  if (!pkeys) return std::unexpected(pkeys.error());
  for (std::size_t i = 0; i < pkeySteps.size(); ++i) {
    const auto& k = std::get<PKeyTarget>(pkeySteps[i].target);
    if ((*pkeys)[i].ok()) {
      cache_.pkeys().learned(pkeyKey(fabric, k), k.block, k.contents);
      ++summary.pkeyBlocksWritten;
    } else {
      cache_.pkeys().forget(pkeyKey(fabric, k), k.block);
    }
  }

  auto smLid = runPhase(Phase::SmLid, planned->phase(Phase::SmLid), 0, fabric, summary);
  if (!smLid) return std::unexpected(smLid.error());
  if (std::ranges::any_of(*smLid, [](const SmpReply& r) { return !r.ok(); })) {
    log_->error(
        "PROG-0303 could not set the LID of the SM's own port {}; nothing else is "
        "programmed until it holds one",
        fabric.describe(discovered.smPort));
    summary.stoppedAt = Phase::SmLid;
    return summary;
  }
  summary.portsConfigured += smLid->size();

  // What failed so far, to hold back the steps that depend on it.
  std::set<PortRef> brokenPorts;
  std::set<NodeId> heldSwitches;

  const auto& lidSteps = planned->phase(Phase::Lids);
  auto lids = runPhase(Phase::Lids, lidSteps, 0, fabric, summary);
  if (!lids) return std::unexpected(lids.error());
  for (std::size_t i = 0; i < lidSteps.size(); ++i) {
    const PortRef port = targetPort(lidSteps[i]);
    if ((*lids)[i].ok()) {
      ++summary.portsConfigured;
      noteIgnoredEnforcement(fabric, port, lidSteps[i], (*lids)[i]);
    } else {
      brokenPorts.insert(port);
      if (fabric.node(port.node).isSwitch() && port.port == 0) heldSwitches.insert(port.node);
    }
  }

  const auto& lftSteps = planned->phase(Phase::Lfts);
  auto lfts = runPhase(Phase::Lfts, lftSteps, 0, fabric, summary);
  if (!lfts) return std::unexpected(lfts.error());
  recordLfts(fabric, lftSteps, *lfts, cache_, summary, heldSwitches);

  // SL2VL after the LFTs and before any link goes Armed: a link carries
  // data only once every turn it serves maps to the VL the routes assume.
  const auto& sl2vlSteps = planned->phase(Phase::Sl2Vl);
  auto sl2vl = runPhase(Phase::Sl2Vl, sl2vlSteps, 0, fabric, summary);
  if (!sl2vl) return std::unexpected(sl2vl.error());
  for (std::size_t i = 0; i < sl2vlSteps.size(); ++i) {
    const auto& v = std::get<Sl2VlTarget>(sl2vlSteps[i].target);
    if ((*sl2vl)[i].ok()) {
      cache_.sl2vl().learned(sl2vlKey(fabric, v), v.contents);
      ++summary.sl2vlTablesWritten;
    } else {
      cache_.sl2vl().forget(sl2vlKey(fabric, v));
      heldSwitches.insert(v.node);  // a CA's too: its link waits like a switch's
    }
  }
  for (const NodeId sw : heldSwitches) {
    const Node& n = fabric.node(sw);
    summary.failures.push_back(fmt::format(
        "links of {} {} ({}) held back from Active: its LID, LFT or SL2VL tables are not in place",
        n.isSwitch() ? "switch" : "node", n.description, n.guid));
  }

  // A link changes state only when both its ends can.
  auto peer = [&fabric](PortRef p) { return fabric.port(p).remote.value_or(p); };
  auto broken = [&](PortRef p) { return brokenPorts.contains(p) || brokenPorts.contains(peer(p)); };
  auto [armSteps, armDeferred] = withoutHeld(planned->phase(Phase::Armed), broken);
  auto armed = runPhase(Phase::Armed, armSteps, armDeferred, fabric, summary);
  if (!armed) return std::unexpected(armed.error());
  for (std::size_t i = 0; i < armSteps.size(); ++i) {
    if ((*armed)[i].ok()) {
      ++summary.portsArmed;
    } else {
      brokenPorts.insert(targetPort(armSteps[i]));
    }
  }

  auto held = [&](PortRef p) {
    return broken(p) || heldSwitches.contains(p.node) || heldSwitches.contains(peer(p).node);
  };
  auto [activeSteps, activeDeferred] = withoutHeld(planned->phase(Phase::Active), held);
  auto active = runPhase(Phase::Active, activeSteps, activeDeferred, fabric, summary);
  if (!active) return std::unexpected(active.error());
  summary.portsActivated = static_cast<std::size_t>(
      std::ranges::count_if(*active, [](const SmpReply& r) { return r.ok(); }));
  if (armDeferred + activeDeferred > 0) {
    log_->warn(
        "PROG-0304 {} link ports held back from Armed and {} from Active after earlier "
        "failures; the next sweep retries them",
        armDeferred, activeDeferred);
  }

  log_->info(
      "PROG-0306 programming {}: {} LFT blocks written ({} read), {} PKey blocks written ({} "
      "read), {} SL2VL tables written ({} read), {} ports configured, {} activated, {} failed or "
      "deferred; {} SMPs in {:.3f} ms",
      summary.complete() ? "complete" : "incomplete", summary.blocksWritten, summary.blocksRead,
      summary.pkeyBlocksWritten, summary.pkeyBlocksRead, summary.sl2vlTablesWritten,
      summary.sl2vlTablesRead, summary.portsConfigured, summary.portsActivated, summary.failed(),
      summary.requests(), static_cast<double>(summary.duration().count()) / 1000.0);
  return summary;
}

}  // namespace ibsm::sm
