#include "sm/program/SubnetProgrammer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <functional>
#include <tuple>

#include "sm/program/Diff.h"
#include "sm/program/KeyRefusal.h"
#include "sm/program/ReadAhead.h"
#include "sm/program/RetriedSets.h"

namespace ibsm::sm::program {
namespace {

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

const PortRef* targetPort(const ProgramStep& step) {
  const auto* p = std::get_if<PortInfoTarget>(&step.target);
  return p ? &p->port : nullptr;
}

// Splits `steps` into those to send and the number held back.
std::pair<std::vector<ProgramStep>, std::size_t> withoutHeld(
    const std::vector<ProgramStep>& steps, const std::function<bool(PortRef)>& held) {
  std::vector<ProgramStep> keep;
  std::size_t deferred = 0;
  for (const ProgramStep& s : steps) {
    const PortRef* port = targetPort(s);
    if (port && held(*port)) {
      ++deferred;
    } else {
      keep.push_back(s);
    }
  }
  return {std::move(keep), deferred};
}

// The steps of a phase to send: the diff's own when nothing can be held
// back (no copy: an LFT phase has ~48,000 steps at radix 24, ~20 ms to
// copy), else those `split` keeps, into `kept`, the rest counted in
// `deferred`.
template <typename Split>
const std::vector<ProgramStep>& stepsToSend(const std::vector<ProgramStep>& all, bool mayHold,
                                            Split split, std::vector<ProgramStep>& kept,
                                            std::size_t& deferred) {
  if (!mayHold) return all;
  std::tie(kept, deferred) = split(all);
  return kept;
}

bool isMftPhase(ProgramPhase phase) {
  return phase == ProgramPhase::MftPrune || phase == ProgramPhase::Mfts ||
         phase == ProgramPhase::MftTop;
}

// Mfts writes of an MLID block whose prune failed, MulticastFDBTop raises
// of a switch whose MFT is not all in place (ProgramSteps.h), and any
// MulticastFDBTop Set of a switch whose LID or LFT is not: it carries the
// planned LinearFDBTop too.
std::pair<std::vector<ProgramStep>, std::size_t> withoutMftHeld(
    ProgramPhase phase, const std::vector<ProgramStep>& steps,
    const std::set<std::uint16_t>& unpruned, const std::set<NodeId>& failed,
    const std::set<NodeId>& heldNodes) {
  std::vector<ProgramStep> keep;
  std::size_t deferred = 0;
  for (const ProgramStep& s : steps) {
    bool held = false;
    if (const auto* b = std::get_if<BlockTarget<MftKind>>(&s.target))
      held = phase == ProgramPhase::Mfts && unpruned.contains(mftMlidBlock(b->index));
    if (const auto* t = std::get_if<SwitchInfoTarget>(&s.target); t && isMftPhase(phase))
      held = heldNodes.contains(t->sw) || (phase == ProgramPhase::MftTop && failed.contains(t->sw));
    if (held) {
      ++deferred;
    } else {
      keep.push_back(s);
    }
  }
  return {std::move(keep), deferred};
}

// A phase's SMPs go out while the rest are made: at most kPhaseAhead of
// them queued or on the wire, the next submitted from each answer. Made all
// before the first went out, an LFT phase of ~48,000 blocks (radix 24)
// left the wire idle for ~40 ms of CPU, and each phase after it another
// ~20-40 ms (issue 32); fed, the requests are made while the window waits
// on answers. kPhaseAhead is more than any window the engine keeps, so
// the window is never short of requests. The steps still go out in the
// phase's order, and the phases stay the barriers (IBA order: LIDs before
// LFTs, ARMED before ACTIVE): a phase ends once every step is answered.
struct PhaseFeed {
  MadEngine& engine;
  const HeldSubnet& held;
  const ProgramOptions& options;
  const std::vector<ProgramStep>& steps;
  std::vector<SmpReply>& replies;
  std::size_t next = 0;
  // When the phase's last answer landed: its end within a wave.
  std::size_t answered = 0;
  MadClock::time_point lastAnswer{};

  // One more of the first kPhaseAhead steps submitted; false when none is left.
  bool startOne() {
    if (next >= steps.size() || next >= SubnetProgrammer::kPhaseAhead) return false;
    submitNext();
    return true;
  }

  void submitNext() {
    const std::size_t i = next++;
    engine.submit(requestFor(steps[i], held, options), [this, i](const SmpRequest&,
                                                                 const SmpReply& reply) {
      replies[i] = reply;
      if (++answered == steps.size()) lastAnswer = engine.options().clock();
      // A failed transport or a cancel ends the run with an
      // error: the steps not sent yet are not made to fail too.
      if (reply.outcome == SmpOutcome::TransportFailed || reply.outcome == SmpOutcome::Cancelled)
        next = steps.size();
      if (next < steps.size()) submitNext();
    });
  }
};

}  // namespace

SubnetProgrammer::SubnetProgrammer(MadEngine& engine, HeldSubnet& held, ProgramOptions options,
                                   std::shared_ptr<spdlog::logger> logger)
    : engine_(engine),
      held_(held),
      options_(options),
      log_(logger ? std::move(logger) : spdlog::default_logger()) {}

// Counts what one reply proves, after HeldSubnet recorded it.
void SubnetProgrammer::record(ProgramPhase phase, const ProgramStep& step, const SmpReply& reply,
                              ProgramSummary& summary) {
  if (held_.apply(step, reply)) {
    // Named in one line when the programming ends (logQuirks): a fabric
    // whose switches all ignore the bits (ibsim) has one per host port.
    ++summary.quirksLearned;
    if (summary.quirkExamples.size() < kQuirkExamples) {
      const PortRef port = *targetPort(step);
      const PortInfo asked = decodePortInfo(step.request.data);
      const PortInfo now = decodePortInfo(reply.smp->data);
      summary.quirkExamples.push_back(fmt::format(
          "{} kept inbound {} outbound {} for {}/{}", held_.observed().fabric.describe(port),
          now.partitionEnforcementInbound, now.partitionEnforcementOutbound,
          asked.partitionEnforcementInbound, asked.partitionEnforcementOutbound));
    }
  }
  if (!reply.ok()) return;
  const bool isSet = step.request.method == Method::Set;
  if (auto kind = tableKindOf(step.target)) {
    ++(isSet ? summary.tables[*kind].written : summary.tables[*kind].read);
  } else if (std::holds_alternative<SwitchInfoTarget>(step.target)) {
    if (phase != ProgramPhase::PortStateChange) ++summary.topsWritten;
  } else if (phase == ProgramPhase::SmLid || phase == ProgramPhase::Lids) {
    const auto* port = std::get_if<PortInfoTarget>(&step.target);
    ++(port != nullptr && port->keyOnly ? summary.portsKeyed : summary.portsConfigured);
  } else if (phase == ProgramPhase::Armed) {
    ++summary.portsArmed;
  } else if (phase == ProgramPhase::Active) {
    ++summary.portsActivated;
  }
}

// RetriedSets.h: a PortInfo Set refused on a retry may have been applied by
// an attempt whose answer was lost; read the port back and count the Set as
// done when the port holds what it asked for.
Result<void> SubnetProgrammer::readBackRefusedRetries(const std::vector<ProgramStep>& steps,
                                                      std::vector<SmpReply>& replies,
                                                      ProgramSummary& summary) {
  std::vector<std::size_t> refused;
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (worthReadingBack(steps[i].request, replies[i])) refused.push_back(i);
  if (refused.empty()) return {};
  std::vector<SmpRequest> reads;
  for (std::size_t i : refused) {
    const SmpRequest& set = steps[i].request;
    reads.push_back(SmpRequest::get(AttributeId::PortInfo, set.attributeModifier, set.to));
  }
  auto back = engine_.sendAll(reads);
  if (!back) return std::unexpected(back.error());
  const Fabric& fabric = held_.observed().fabric;
  for (std::size_t k = 0; k < refused.size(); ++k) {
    const SmpReply& read = (*back)[k];
    SmpReply& reply = replies[refused[k]];
    if (!read.ok() || !read.smp) continue;
    if (!holdsWhatWasSet(decodePortInfo(steps[refused[k]].request.data),
                         decodePortInfo(read.smp->data)))
      continue;
    log_->debug("PROG-0310 {} refused a retried Set ({}) but holds what it asked for",
                describeTarget(fabric, steps[refused[k]].target), describeOutcome(reply));
    const unsigned attempts = reply.attempts;
    reply = read;
    reply.attempts = attempts;
    ++summary.retriedSetsHeld;
  }
  return {};
}

Result<std::vector<SmpReply>> SubnetProgrammer::runPhase(ProgramPhase phase,
                                                         const std::vector<ProgramStep>& steps,
                                                         std::size_t deferred,
                                                         ProgramSummary& summary) {
  const std::array runs{PhaseRun{.phase = phase, .steps = &steps, .deferred = deferred}};
  auto replies = runWave(runs, summary);
  if (!replies) return std::unexpected(replies.error());
  return std::move(replies->front());
}

// A wave of one phase is timed and counted as a phase always was: to the
// end of its read-backs, every transmission the engine made meanwhile. In
// a wave of several each phase ends with its last answer and counts the
// attempts of its own SMPs (its read-backs, PortInfo Gets, go uncounted).
Result<std::vector<std::vector<SmpReply>>> SubnetProgrammer::runWave(std::span<const PhaseRun> runs,
                                                                     ProgramSummary& summary) {
  const auto clock = engine_.options().clock;
  const auto start = clock();
  const std::uint64_t sentBefore = engine_.counters().sent;
  // The engine runs every callback before runUntilIdle() returns, so the
  // replies and the feeds can live in this frame; neither vector grows
  // once a feed holds a reference into it.
  std::vector<std::vector<SmpReply>> replies(runs.size());
  std::vector<PhaseFeed> feeds;
  feeds.reserve(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    replies[r].resize(runs[r].steps->size());
    feeds.push_back(PhaseFeed{.engine = engine_,
                              .held = held_,
                              .options = options_,
                              .steps = *runs[r].steps,
                              .replies = replies[r]});
  }
  // A step of each phase in turn, so the engine's queue mixes them from the
  // start: one phase after the other, the second phase's first steps would
  // wait behind kPhaseAhead of the first's (the Lids phase's 7,632 Sets at
  // radix 24 went out nearly alone before the first LFT block).
  for (PhaseFeed& feed : feeds) feed.lastAnswer = clock();
  for (bool more = true; more;) {
    more = false;
    for (PhaseFeed& feed : feeds) more = feed.startOne() || more;
  }
  if (auto idle = engine_.runUntilIdle(); !idle) return std::unexpected(idle.error());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (auto checked = readBackRefusedRetries(*runs[r].steps, replies[r], summary); !checked)
      return std::unexpected(checked.error());
  }
  const bool alone = runs.size() == 1;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    std::uint64_t attempts = 0;
    for (const SmpReply& reply : replies[r]) attempts += reply.attempts;
    const auto end = alone ? clock() : feeds[r].lastAnswer;
    reportPhase(runs[r], replies[r], alone ? engine_.counters().sent - sentBefore : attempts,
                std::chrono::duration_cast<std::chrono::microseconds>(end - start), summary);
  }
  return replies;
}

void SubnetProgrammer::reportPhase(const PhaseRun& run, const std::vector<SmpReply>& replies,
                                   std::uint64_t transmissions, std::chrono::microseconds duration,
                                   ProgramSummary& summary) {
  const ProgramPhase phase = run.phase;
  const std::vector<ProgramStep>& steps = *run.steps;
  const std::size_t deferred = run.deferred;
  PhaseReport& report = summary.phase(phase);
  report.ran = true;
  report.requests = steps.size();
  report.deferred = deferred;
  report.transmissions = transmissions;
  report.duration = duration;
  const Fabric& fabric = held_.observed().fabric;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (auto kind = tableKindOf(steps[i].target)) ++report.tableRequests[*kind];
    record(phase, steps[i], replies[i], summary);
    if (replies[i].ok()) continue;
    ++report.failures;
    const std::string what = describeTarget(fabric, steps[i].target);
    if (phase == ProgramPhase::ReadVlArb) {
      // The SA has no record of it; the next sweep does not ask again (Stale).
      log_->warn("PROG-0309 reading {}: {}; the SA has no record of it", what,
                 describeOutcome(replies[i]));
      continue;
    }
    if (phase == ProgramPhase::PortStateChange) {
      log_->warn("PROG-0311 clearing PortStateChange with {}: {}; the next light sweep clears it",
                 what, describeOutcome(replies[i]));
      continue;
    }
    if (phase == ProgramPhase::ReadTables) {
      // Harmless: a block whose contents are not known is simply written.
      log_->warn("PROG-0308 reading {}: {}; it will be written", what, describeOutcome(replies[i]));
      continue;
    }
    std::string line = fmt::format("writing {}: {}", what, describeOutcome(replies[i]));
    log_->warn("PROG-0302 {}; left dirty for the next sweep", line);
    summary.failures.push_back(std::move(line));
  }
  log_->info(
      "PROG-0301 phase {}: {} SMPs ({} PKey, {} SL2VL, {} MFT, {} sent), {} failed, {} "
      "deferred, {:.3f} ms",
      phaseName(phase), report.requests, report.tableRequests[TableKind::PKey],
      report.tableRequests[TableKind::Sl2Vl], report.tableRequests[TableKind::Mft],
      report.transmissions, report.failures, report.deferred,
      static_cast<double>(report.duration.count()) / 1000.0);
}

Result<ProgramSummary> SubnetProgrammer::program(const SubnetPlan& plan, ReadAhead* ahead) {
  ProgramSummary summary;
  auto first =
      ahead ? diffServing(plan, *ahead, summary) : diff(plan, held_, options_, DiffScope::Program);
  if (!first) return std::unexpected(first.error());
  for (const std::string& note : first->notes) log_->warn("PROG-0305 {}", note);
  summary.notes = first->notes;
  // The diff's reads stay in it (settleAfterReads() goes by the kinds
  // read); those a read ahead answered are not sent again.
  std::vector<ProgramStep> reads = first->phase(ProgramPhase::ReadTables);
  if (ahead) std::erase_if(reads, [this](const ProgramStep& s) { return !stillUnknown(held_, s); });
  auto read = runPhase(ProgramPhase::ReadTables, reads, 0, summary);
  if (!read) return std::unexpected(read.error());

  // Against what was just read: only what differs is written. The diff is
  // settled, not made again (Diff.h).
  if (auto settled = settleAfterReads(plan, held_, options_, *first); !settled)
    return std::unexpected(settled.error());
  auto& writes = first;
  Holds holds;
  if (auto ok = writeTables(*writes, summary, holds); !ok) return std::unexpected(ok.error());
  if (!summary.stoppedAt) {
    if (auto ok = changeLinkStates(*writes, summary, holds); !ok)
      return std::unexpected(ok.error());
    if (auto ok = clearPortStateChanges(summary, holds); !ok) return std::unexpected(ok.error());
  }
  logQuirks(summary);
  logTotals(summary);
  return summary;
}

void SubnetProgrammer::logQuirks(const ProgramSummary& summary) const {
  if (summary.quirksLearned == 0) return;
  log_->warn(
      "PROG-0307 {} switch ports kept their partition enforcement bits after a Set asking for "
      "others (e.g. {}{}); not asked again until their switch is reset",
      summary.quirksLearned, fmt::join(summary.quirkExamples, "; "),
      summary.quirksLearned > summary.quirkExamples.size() ? "; ..." : "");
}

Result<ProgramSummary> SubnetProgrammer::readForSa(const SubnetPlan& plan) {
  ProgramSummary summary;
  auto reads = diff(plan, held_, options_, DiffScope::SaReads);
  if (!reads) return std::unexpected(reads.error());
  auto done = runPhase(ProgramPhase::ReadVlArb, reads->phase(ProgramPhase::ReadVlArb), 0, summary);
  if (!done) return std::unexpected(done.error());
  return summary;
}

// PKeys first, as OpenSM: a port gets its partitions before it is reachable
// by LID. Then the SM's LID, every other LID, the LFTs, the MFTs (prune,
// grow, top: ProgramSteps.h), and SL2VL after the
// LFTs and before any link goes Armed: a link carries data only once every
// turn it serves maps to the VL the routes assume.
Result<void> SubnetProgrammer::writeTables(const ProgramDiff& d, ProgramSummary& summary,
                                           Holds& holds) {
  const Fabric& fabric = held_.observed().fabric;
  static constexpr std::array kPhases{
      ProgramPhase::PKeys,    ProgramPhase::SmLid, ProgramPhase::Lids,   ProgramPhase::Lfts,
      ProgramPhase::MftPrune, ProgramPhase::Mfts,  ProgramPhase::MftTop, ProgramPhase::Sl2Vl};
  if (auto ok = writePhases(d, kPhases, summary, holds); !ok || summary.stoppedAt) return ok;
  for (const NodeId n : holds.heldNodes) {
    const Node& node = fabric.node(n);
    summary.failures.push_back(fmt::format(
        "links of {} {} ({}) held back from Active: its LID, LFT or SL2VL tables are not in place",
        node.isSwitch() ? "switch" : "node", node.description, node.guid));
  }
  return {};
}

Result<ProgramSummary> SubnetProgrammer::programMulticast(const SubnetPlan& plan,
                                                          const MulticastPlan* mfts) {
  ProgramSummary summary;
  auto writes = diffMulticast(plan, mfts, held_, options_);
  if (!writes) return std::unexpected(writes.error());
  static constexpr std::array kPhases{ProgramPhase::MftPrune, ProgramPhase::Mfts,
                                      ProgramPhase::MftTop};
  Holds holds;
  if (auto ok = writePhases(*writes, kPhases, summary, holds); !ok)
    return std::unexpected(ok.error());
  logTotals(summary);
  return summary;
}

Result<void> SubnetProgrammer::writePhases(const ProgramDiff& d,
                                           std::span<const ProgramPhase> phases,
                                           ProgramSummary& summary, Holds& holds) {
  const Fabric& fabric = held_.observed().fabric;
  for (std::size_t k = 0; k < phases.size();) {
    // Lids and Lfts as one wave when no LID moves (ProgramDiff::lidsKept):
    // nothing of the one waits on the other, nor is held back by it.
    const bool wave = d.lidsKept && phases[k] == ProgramPhase::Lids && k + 1 < phases.size() &&
                      phases[k + 1] == ProgramPhase::Lfts;
    const std::size_t n = wave ? 2 : 1;
    std::array<std::vector<ProgramStep>, 2> kept;
    std::array<PhaseRun, 2> runs;
    for (std::size_t r = 0; r < n; ++r) {
      const ProgramPhase phase = phases[k + r];
      runs[r].phase = phase;
      runs[r].steps = &stepsToSend(
          d.phase(phase), !holds.empty(),
          [&](const std::vector<ProgramStep>& all) {
            return withoutMftHeld(phase, all, holds.unprunedMlidBlocks, holds.mftFailed,
                                  holds.heldNodes);
          },
          kept[r], runs[r].deferred);
    }
    auto replies = runWave(std::span(runs).first(n), summary);
    if (!replies) return std::unexpected(replies.error());
    for (std::size_t r = 0; r < n; ++r) {
      const std::vector<ProgramStep>& steps = *runs[r].steps;
      for (std::size_t i = 0; i < steps.size(); ++i) {
        if ((*replies)[r][i].ok()) continue;
        if (runs[r].phase == ProgramPhase::SmLid) {
          log_->error(
              "PROG-0303 could not set the LID of the SM's own port {}; nothing else is "
              "programmed until it holds one",
              fabric.describe(held_.observed().smPort));
          summary.stoppedAt = ProgramPhase::SmLid;
          return {};
        }
        noteFailure(runs[r].phase, steps[i], holds);
      }
    }
    k += n;
  }
  for (const ProgramPhase phase : {ProgramPhase::Mfts, ProgramPhase::MftTop}) {
    if (const std::size_t n = summary.phase(phase).deferred; n > 0)
      summary.failures.push_back(
          fmt::format("{} {} steps deferred to the next sweep: an MFT write before them failed", n,
                      phaseName(phase)));
  }
  return {};
}

// What a failed write holds back. A failed MFT write holds no link (see
// MftKind): it defers the MFT steps that depend on it.
void SubnetProgrammer::noteFailure(ProgramPhase phase, const ProgramStep& step,
                                   Holds& holds) const {
  const Fabric& fabric = held_.observed().fabric;
  if (isMftPhase(phase)) {
    if (const auto* b = std::get_if<BlockTarget<MftKind>>(&step.target)) {
      holds.mftFailed.insert(b->node);
      if (phase == ProgramPhase::MftPrune) holds.unprunedMlidBlocks.insert(mftMlidBlock(b->index));
    }
    return;
  }
  if (const PortRef* port = targetPort(step)) {
    holds.brokenPorts.insert(*port);
    if (fabric.node(port->node).isSwitch() && port->port == 0) holds.heldNodes.insert(port->node);
  } else if (auto node = nodeHeldOnFailure(step.target)) {
    holds.heldNodes.insert(*node);
  }
}

// A link changes state only when both its ends can.
Result<void> SubnetProgrammer::changeLinkStates(const ProgramDiff& d, ProgramSummary& summary,
                                                Holds& holds) {
  const Fabric& fabric = held_.observed().fabric;
  auto peer = [&fabric](PortRef p) { return fabric.port(p).remote.value_or(p); };
  auto broken = [&](PortRef p) {
    return holds.brokenPorts.contains(p) || holds.brokenPorts.contains(peer(p));
  };
  std::vector<ProgramStep> armKept;
  std::size_t armDeferred = 0;
  const auto& armSteps = stepsToSend(
      d.phase(ProgramPhase::Armed), !holds.empty(),
      [&](const std::vector<ProgramStep>& all) { return withoutHeld(all, broken); }, armKept,
      armDeferred);
  auto armed = runPhase(ProgramPhase::Armed, armSteps, armDeferred, summary);
  if (!armed) return std::unexpected(armed.error());
  for (std::size_t i = 0; i < armSteps.size(); ++i)
    if (!(*armed)[i].ok()) holds.brokenPorts.insert(*targetPort(armSteps[i]));

  auto held = [&](PortRef p) {
    return broken(p) || holds.heldNodes.contains(p.node) || holds.heldNodes.contains(peer(p).node);
  };
  std::vector<ProgramStep> activeKept;
  std::size_t activeDeferred = 0;
  const auto& activeSteps = stepsToSend(
      d.phase(ProgramPhase::Active), !holds.empty(),
      [&](const std::vector<ProgramStep>& all) { return withoutHeld(all, held); }, activeKept,
      activeDeferred);
  auto active = runPhase(ProgramPhase::Active, activeSteps, activeDeferred, summary);
  if (!active) return std::unexpected(active.error());
  if (armDeferred + activeDeferred > 0) {
    log_->warn(
        "PROG-0304 {} link ports held back from Armed and {} from Active after earlier "
        "failures; the next sweep retries them",
        armDeferred, activeDeferred);
  }
  return {};
}

// OpenSM's end of a heavy sweep: the flags discovery saw are taken in.
// Skipped where a failed write left the switch's SwitchInfo or tables
// unknown: the Set carries every writable field as held.
Result<void> SubnetProgrammer::clearPortStateChanges(ProgramSummary& summary, const Holds& holds) {
  std::set<NodeId> skip = holds.heldNodes;
  skip.insert(holds.mftFailed.begin(), holds.mftFailed.end());
  const auto steps = portStateChangeClears(held_.observed(), skip);
  auto replies = runPhase(ProgramPhase::PortStateChange, steps, 0, summary);
  if (!replies) return std::unexpected(replies.error());
  return {};
}

void SubnetProgrammer::logTotals(const ProgramSummary& s) {
  const TableCounts& lft = s.table(TableKind::Lft);
  const TableCounts& pkey = s.table(TableKind::PKey);
  const TableCounts& sl2vl = s.table(TableKind::Sl2Vl);
  const TableCounts& vlarb = s.table(TableKind::VlArb);
  const TableCounts& mft = s.table(TableKind::Mft);
  log_->info(
      "PROG-0306 programming {}: {} LFT blocks written ({} read), {} PKey blocks written ({} "
      "read), {} SL2VL tables written ({} read), {} VLArb blocks written ({} read), {} MFT "
      "blocks written, {} ports configured, {} activated, {} failed or deferred; {} SMPs in "
      "{:.3f} ms",
      s.complete() ? "complete" : "incomplete", lft.written, lft.read, pkey.written, pkey.read,
      sl2vl.written, sl2vl.read, vlarb.written, vlarb.read, mft.written, s.portsConfigured,
      s.portsActivated, s.failed(), s.requests(),
      static_cast<double>(s.duration().count()) / 1000.0);
}

}  // namespace ibsm::sm::program
