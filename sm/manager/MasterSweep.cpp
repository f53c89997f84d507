#include "sm/manager/MasterSweep.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <future>

#include "sm/mad/ServeInLooks.h"
#include "sm/manager/FabricChanges.h"
#include "sm/program/ReadAhead.h"
#include "sm/program/SubnetProgrammer.h"

namespace ibsm::sm::manager {
namespace {

// Ports ACTIVE as the subnet holds them, switch port 0 aside: what SM-0001
// says is active, beside what the sweep itself activated.
std::size_t activePorts(const discovery::DiscoveredSubnet& subnet) {
  std::size_t n = 0;
  for (const auto& [port, info] : subnet.portInfo)
    n += port.port != 0 && info.portState == PortState::Active;
  return n;
}

}  // namespace

MasterSweep::MasterSweep(MadEngine& engine, const StateStore& store, SweepSettings settings,
                         std::shared_ptr<spdlog::logger> logger)
    : engine_(engine),
      store_(store),
      settings_(std::move(settings)),
      log_(logger ? std::move(logger) : spdlog::default_logger()) {}

void logSweep(spdlog::logger& log, const SweepResult& r) {
  log.info(
      "SM-0406 sweep: {} switches, {} CA ports, {} MADs in {} ms (discovery {} ms, plan {} ms, "
      "programming {} ms)",
      r.switches, r.caPorts, r.mads, r.elapsed.count() / 1000, r.discovery.elapsed.count() / 1000,
      r.planTime.count() / 1000, r.program.duration().count() / 1000);
}

Result<SweepResult> MasterSweep::run() {
  const auto start = now();
  const auto sentBefore = engine_.counters().sent;
  // What the last sweep confirmed is not lost with an SMP (Recall.h).
  const discovery::DiscoveryOptions options{.last = held_.hasObservation() ? &held_.observed()
                                                                           : nullptr};
  discovery::Discovery discovery(engine_, options, log_);
  auto discovered = discovery.run();
  if (!discovered) return std::unexpected(discovered.error());
  return sweepOn(std::move(*discovered), discovery.counters(), start, sentBefore);
}

Result<SweepResult> MasterSweep::run(discovery::DiscoveredSubnet discovered,
                                     const discovery::DiscoveryCounters& counters) {
  // The discovery's MADs and time count as if this sweep had made it.
  return sweepOn(std::move(discovered), counters, now() - counters.elapsed,
                 engine_.counters().sent - counters.madsSent);
}

Result<SweepResult> MasterSweep::sweepOn(discovery::DiscoveredSubnet discovered,
                                         const discovery::DiscoveryCounters& counters,
                                         MadClock::time_point start, std::uint64_t sentBefore) {
  SweepResult result;
  result.discovery = counters;
  for (const auto& p : discovered.problems) result.reasons.push_back("discovery: " + p);

  const auto before = heldFabric();
  held_.observe(std::move(discovered));
  // After a takeover or a restart the PKey blocks are read whatever the
  // plan: on their way while it is made (program/ReadAhead.h).
  auto ahead =
      settings_.partitions ? program::ReadAhead::start(engine_, held_, settings_.program) : nullptr;
  auto done = planAndProgram(before, std::move(result), ahead.get());
  if (!done) return done;
  done->mads = engine_.counters().sent - sentBefore;
  done->elapsed = since(start);
  return done;
}

Result<SweepResult> MasterSweep::replan() {
  if (!held_.hasObservation()) return fail("no sweep to plan again from");
  const auto start = now();
  const auto sentBefore = engine_.counters().sent;
  auto done = planAndProgram(heldFabric(), SweepResult{});
  if (!done) return done;
  done->mads = engine_.counters().sent - sentBefore;
  done->elapsed = since(start);
  return done;
}

std::optional<std::vector<McGroupRoute>> MasterSweep::readGroups() {
  if (!multicast_) return std::nullopt;
  // The generation first: a join between the two reads is planned again
  // by the next pass, never missed.
  planned_.generation = multicast_->generation();
  auto groups = multicast_->routes();
  ++planned_.plans;
  planned_.groups = groups.size();
  planned_.members = 0;
  for (const McGroupRoute& g : groups) planned_.members += g.members.size();
  return groups;
}

namespace {

void logNotes(spdlog::logger& log, const std::vector<PlanNote>& notes) {
  for (const auto& n : notes) log.log(n.level, n.text);
}

}  // namespace

Result<SweepResult> MasterSweep::programMulticast() {
  if (!held_.hasObservation() || !lastPlan_) return fail("no sweep to program multicast on");
  const auto start = now();
  const auto sentBefore = engine_.counters().sent;
  // Only the trees are new: the last plan is shared, not copied.
  std::optional<MulticastPlan> trees;
  if (auto groups = readGroups()) {
    std::vector<PlanNote> notes;
    trees = planTreesOn(*lastPlan_, *groups, mcTopology_.get(), notes);
    logNotes(*log_, notes);
  }
  SweepResult result;
  result.planTime = since(start);
  result.engine = lastPlan_->routing.engine;
  program::SubnetProgrammer programmer(engine_, held_, settings_.program, log_);
  auto summary = programmer.programMulticast(*lastPlan_, trees ? &*trees : nullptr);
  if (!summary) return std::unexpected(summary.error());
  result.program = *summary;
  for (const auto& f : summary->failures) result.reasons.push_back("programming: " + f);
  result.up = result.reasons.empty();
  result.mads = engine_.counters().sent - sentBefore;
  result.elapsed = since(start);
  mfts_ = trees ? std::make_shared<const MulticastPlan>(std::move(*trees)) : nullptr;
  result.plan = lastPlan_;
  return result;
}

std::shared_ptr<const SubnetPlan> MasterSweep::hint() const {
  if (!settings_.stableRoutes || rebalanceAsked_ || !lastPlan_ || rebalanceDue()) return nullptr;
  return lastPlan_;
}

bool MasterSweep::rebalanceDue() const {
  if (settings_.rebalanceInterval.count() == 0 || tablesFresh_) return false;
  return now() - staleSince_ >= settings_.rebalanceInterval;
}

void MasterSweep::noteFreshness(const SubnetPlan& plan, MadClock::time_point planned) {
  // Kept entries whose paths all held leave the tables as fresh as they
  // were; a path that broke and was mended in place may leave them
  // elsewhere than a fresh computation would.
  if (plan.stable && plan.stable->stats.stabilised) {
    if (plan.stable->stats.broken > 0 && tablesFresh_) {
      tablesFresh_ = false;
      staleSince_ = planned;
    }
    return;
  }
  tablesFresh_ = true;
}

void MasterSweep::logStability(const SubnetPlan& plan) const {
  if (!plan.stable) {
    log_->info("SM-0427 routes computed afresh{}",
               rebalanceAsked_ ? " (rebalance)" : (lastPlan_ ? "" : " (first plan)"));
    return;
  }
  const auto& s = plan.stable->stats;
  if (s.stabilised)
    log_->info(
        "SM-0428 routes under change ({}): {} entries kept, {} rerouted; busiest link {} routes "
        "(fresh tables: {})",
        changeName(plan.stable->change), s.kept, s.broken, s.busiest, s.freshBusiest);
  else
    log_->info("SM-0429 routes under change ({}): {}", changeName(plan.stable->change), s.why);
}

namespace {

// Loopback cables by name, which outlives the NodeIds of one sweep.
std::vector<std::string> loopbackNames(const SubnetPlan& plan) {
  std::vector<std::string> out;
  for (const auto& [a, b] : plan.routing.loopbacks)
    out.push_back(fmt::format("{} -- {}", plan.fabric.describe(a), plan.fabric.describe(b)));
  return out;
}

}  // namespace

// Once when a loopback cable appears, not on every sweep that still finds it.
void MasterSweep::logLoopbacks(const SubnetPlan& plan) const {
  if (plan.routing.loopbacks.empty()) return;
  const auto now = loopbackNames(plan);
  const auto before = lastPlan_ ? loopbackNames(*lastPlan_) : std::vector<std::string>{};
  for (const auto& name : now)
    if (std::ranges::find(before, name) == before.end())
      log_->warn("SM-0440 loopback cable {} carries no route: left out of routing", name);
}

void MasterSweep::noteCreditLoop(const SubnetPlan& plan, const CreditLoopReport& loops) {
  // Once per plan that brings the loop in, not at every sweep that keeps it.
  const bool wasLooped = lastPlanLooped_;
  lastPlanLooped_ = !loops.acyclic;
  if (loops.acyclic || wasLooped) return;
  log_->warn(
      "SM-0442 routes programmed with a credit loop (engine {}: {}); cycle: {}. Name a loop-free "
      "engine after it, e.g. routing.engine = [\"{}\", \"updn\"]",
      plan.routing.engine,
      plan.routing.objection ? "no engine after it routed the fabric" : "the last named",
      fmt::join(loops.cycle, " => "), plan.routing.engine);
}

namespace {

void logPlan(spdlog::logger& log, const SubnetPlan& plan, std::chrono::microseconds planTime) {
  for (const auto& f : plan.routing.fallbacks) log.warn("SM-0404 engine refused: {}", f);
  log.info("SM-0401 plan: engine {}, {} LIDs (max {}), routed in {} ms", plan.routing.engine,
           plan.lids.assignments.size(), plan.lids.maxLid.value, planTime.count() / 1000);
}

// What the second thread of the class comment returns.
struct Judgement {
  RouteReport report;
  Result<void> saved;
};

// The verdict on the tables, and the pairs left unrouted as a reason the
// subnet is not up.
void takeReport(SweepResult& result, RouteReport judged) {
  result.report = std::move(judged);
  const RouteReport& report = result.report;
  result.switches = report.switches;
  result.caPorts = report.caPorts;
  result.routedPairs = report.routedPairs();
  result.unreachablePairs = report.unreachablePairs();
  if (result.unreachablePairs > 0)
    result.reasons.push_back(fmt::format("{} pairs unrouted", result.unreachablePairs));
}

// What programming did, and what it failed at as reasons the subnet is not up.
void takeProgramming(SweepResult& result, const program::ProgramSummary& summary) {
  result.program = summary;
  for (const auto& f : summary.failures) result.reasons.push_back("programming: " + f);
  if (summary.stoppedAt) result.reasons.push_back("programming stopped early");
}

}  // namespace

PlanWork MasterSweep::planWork(Guid2Lid saved, Fabric fabric) {
  PlanWork work{.fabric = std::move(fabric),
                .smPort = held_.observed().smPort,
                .inputs = settings_.plan,
                .hint = hint(),
                .partitions = settings_.partitions,
                .qosPolicy = settings_.qosPolicy,
                .qos = settings_.qos,
                .groups = readGroups(),
                .mcCache = mcTopology_,
                .testOnPlanThread = settings_.testOnPlanThread};
  work.inputs.guid2lid = std::move(saved);
  return work;
}

Result<PlannedSubnet> MasterSweep::computeServing(PlanWork work) {
  if (!offLoop_) return computePlan(std::move(work));
  auto job = PlanJob::start(std::move(work));
  // Failed (cancelled): the plan is abandoned, its thread ends alone. On a
  // real port `ibsm status` waits at most a look (1 ms) more than it would
  // between sweeps.
  if (auto served = serveInLooks(
          engine_, [&job] { return job->ready(); },
          [&job](std::chrono::microseconds most) { job->waitFor(most); });
      !served)
    return std::unexpected(served.error());
  return job->take();
}

Result<SweepResult> MasterSweep::planAndProgram(const std::optional<Fabric>& before,
                                                SweepResult result, program::ReadAhead* ahead) {
  auto saved = store_.loadGuid2Lid();
  if (!saved) return std::unexpected(saved.error());
  const auto planStart = now();
  // A rebalance asked while this plan runs is taken by the next one.
  const bool rebalancing = rebalanceAsked_;
  auto cut = health::isolateLinks(held_.observed().fabric, isolate_);
  isolated_ = std::move(cut.isolated);
  refused_ = std::move(cut.refused);
  auto planned = computeServing(planWork(*saved, std::move(cut.fabric)));
  if (!planned) return std::unexpected(planned.error());
  logNotes(*log_, planned->notes);
  auto& plan = *planned->plan;
  if (!plan) return std::unexpected(plan.error());
  logStability(*plan);
  logLoopbacks(*plan);
  noteFreshness(*plan, planStart);
  if (rebalancing) rebalanceAsked_ = false;
  result.planTime = since(planStart);
  result.engine = plan->routing.engine;
  logPlan(*log_, *plan, result.planTime);

  // The second thread of the class comment: the verdict walk and the LID
  // file need only the plan, which nothing changes until get() below.
  auto judging = std::async(std::launch::async, [&plan, &saved, this] {
    // As the dry run does: the verdict on the tables comes from walking them.
    return Judgement{analyseRoutes(plan->fabric, plan->routing, settings_.plan.routing.threads),
                     store_.saveGuid2Lid(*saved, plan->lids)};
  });
  program::SubnetProgrammer programmer(engine_, held_, settings_.program, log_);
  auto summary = programmer.program(*plan, ahead);
  Judgement judged = judging.get();
  if (!judged.saved) log_->error("SM-0405 could not save LIDs: {}", judged.saved.error().message);
  if (!summary) return std::unexpected(summary.error());

  takeReport(result, std::move(judged.report));
  // Tables with a credit loop reach here only from the last engine named
  // (CreditLoopJudge.h): programmed, the subnet up, and the operator told.
  noteCreditLoop(*plan, result.report.creditLoops);
  takeProgramming(result, *summary);
  result.portsActive = activePorts(held_.observed());

  if (before) {
    // The fabric's changes, not the isolation's: both as observed.
    result.changes = describeChanges(*before, held_.observed().fabric);
    for (const auto& c : result.changes) log_->info("SM-0402 {}", c);
  }
  result.up = result.reasons.empty();
  if (!result.up)
    for (const auto& r : result.reasons) log_->warn("SM-0403 not up yet: {}", r);
  result.plan = std::make_shared<const SubnetPlan>(std::move(*plan));
  lastPlan_ = result.plan;
  // The sweep's trees, shared with its plan (aliasing: no copy).
  mfts_ = lastPlan_->multicast
              ? std::shared_ptr<const MulticastPlan>(lastPlan_, &*lastPlan_->multicast)
              : nullptr;
  return result;
}

Result<discovery::DescriptionsRead> MasterSweep::readDescriptions(SweepResult& result) {
  if (!held_.hasObservation()) return discovery::DescriptionsRead{};
  const auto& seen = held_.observed();
  auto read = discovery::readDescriptions(engine_, seen, seen.describedFromBefore);
  if (!read) return read;
  if (!read->changed.empty() && result.plan) {
    // The plan is shared (status, SA) and immutable: a copy with the new
    // descriptions replaces it. Its NodeIds are the observation's.
    auto plan = std::make_shared<SubnetPlan>(*result.plan);
    for (const auto& [node, text] : read->changed)
      if (const auto id = plan->fabric.findNode(seen.fabric.node(node).guid))
        plan->fabric.node(*id).description = text;
    if (lastPlan_ == result.plan) lastPlan_ = plan;
    result.plan = std::move(plan);
  }
  held_.describe(read->changed);
  return read;
}

Result<program::ProgramSummary> MasterSweep::readForSa(const SubnetPlan& plan) {
  program::SubnetProgrammer programmer(engine_, held_, settings_.program, log_);
  return programmer.readForSa(plan);
}

}  // namespace ibsm::sm::manager
