#include "sm/manager/PlanWork.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "sm/manager/QosPlan.h"

namespace ibsm::sm::manager {
namespace {

void note(std::vector<PlanNote>& notes, spdlog::level::level_enum level, std::string text) {
  notes.push_back({level, std::move(text)});
}

// plan.pkeys from the partition planner; left unset (PKeys as they are)
// when there is none or it refuses the fabric. plan.qos either way.
void planPKeys(SubnetPlan& plan, const PlanWork& work, std::vector<PlanNote>& notes) {
  const Guid smGuid = plan.fabric.port(work.smPort).guid;
  if (!work.partitions) {
    plan.qos = resolvePlanQos(work.qosPolicy, plan.fabric, nullptr, smGuid);
    return;
  }
  auto partitions = work.partitions(plan.fabric, smGuid);
  if (!partitions) {
    // Half a plan could cut members off: better the tables of the last one.
    // The policy's partition selectors then name no port this sweep.
    note(notes, spdlog::level::err,
         "SM-0420 partitions not programmed this sweep, PKey tables left as they are: " +
             partitions.error().message);
    plan.qos = resolvePlanQos(work.qosPolicy, plan.fabric, nullptr, smGuid);
    return;
  }
  if (!partitions->warnings.empty())
    note(notes, spdlog::level::warn,
         fmt::format("SM-0421 partitions: {}", fmt::join(partitions->warnings, "; ")));
  // Resolved with the partition plan: `partition:` selectors need it.
  plan.qos = resolvePlanQos(work.qosPolicy, plan.fabric, &*partitions, smGuid);
  sortByPort(partitions->tables);
  plan.pkeys = std::move(partitions->tables);
  for (const auto& p : partitions->partitions)
    if (p.sl) plan.partitionSl[p.pkey & 0x7FFF] = *p.sl;
}

// plan.qosTables from the [qos] options and the plan's QoS policy.
void planQosTables(SubnetPlan& plan, const PlanWork& work, std::vector<PlanNote>& notes) {
  if (!work.qos.enabled) return;
  auto tables = qos::planQosFor(plan.fabric, work.qos, plan.qos.get(), plan.routing);
  if (!tables) {
    // As for partitions: the QoS tables the ports hold beat half a plan.
    // The engine's own SL2VL, its layers, is still programmed: the routes
    // of this sweep are deadlock-free only on it.
    note(notes, spdlog::level::err,
         "SM-0486 QoS tables not programmed this sweep, VLArbitration and QoS SL2VL tables "
         "left as they are: " +
             tables.error().message);
    return;
  }
  plan.qosTables = std::move(*tables);
  for (const auto& n : plan.qosTables->notes)
    note(notes, spdlog::level::info, "SM-0485 QoS tables: " + n);
}

}  // namespace

std::optional<MulticastPlan> planTreesOn(const SubnetPlan& plan,
                                         const std::vector<McGroupRoute>& groups,
                                         McTopologyCache* cache, std::vector<PlanNote>& notes) {
  MulticastOptions options;
  options.cache = cache;
  options.oneTree = plan.routing.treesShareVl.has_value();
  options.upDownOrder = &plan.routing.upDownOrder;
  auto mfts = planMulticast(plan.fabric, groups, options);
  if (!mfts) {
    // As for partitions: the trees of the last plan beat none.
    note(notes, spdlog::level::err,
         "SM-0423 multicast not programmed this sweep, MFTs left as they are: " +
             mfts.error().message);
    return std::nullopt;
  }
  if (!mfts->warnings.empty())
    note(notes, spdlog::level::warn,
         fmt::format("SM-0424 multicast: {}", fmt::join(mfts->warnings, "; ")));
  return std::move(*mfts);
}

PlannedSubnet computePlan(PlanWork work) {
  if (work.testOnPlanThread) work.testOnPlanThread();
  PlannedSubnet out;
  if (work.hint)
    work.inputs.previous = std::make_shared<const PreviousRoutes>(
        previousRoutesOf(work.hint->fabric, work.hint->routing));
  auto plan = planSubnet(std::move(work.fabric), work.inputs, defaultRegistry());
  if (plan) {
    planPKeys(*plan, work, out.notes);
    planQosTables(*plan, work, out.notes);
    if (work.groups)
      plan->multicast = planTreesOn(*plan, *work.groups, work.mcCache.get(), out.notes);
  }
  out.plan = std::move(plan);
  return out;
}

std::shared_ptr<PlanJob> PlanJob::start(PlanWork work) {
  auto job = std::make_shared<PlanJob>();
  // Detached: a plan abandoned (SIGTERM) must not hold the daemon's exit.
  // The thread owns its work and shares only `job`.
  std::thread([job, work = std::move(work)]() mutable {
    PlannedSubnet planned = computePlan(std::move(work));
    const std::scoped_lock lock(job->mutex_);
    job->out_ = std::move(planned);
    job->done_ = true;
    job->doneCv_.notify_all();
  }).detach();
  return job;
}

bool PlanJob::ready() const {
  const std::scoped_lock lock(mutex_);
  return done_;
}

void PlanJob::waitFor(std::chrono::microseconds most) {
  std::unique_lock lock(mutex_);
  doneCv_.wait_for(lock, most, [this] { return done_; });
}

PlannedSubnet PlanJob::take() {
  std::unique_lock lock(mutex_);
  doneCv_.wait(lock, [this] { return done_; });
  return std::move(*out_);
}

}  // namespace ibsm::sm::manager
