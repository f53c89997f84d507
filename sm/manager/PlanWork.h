// A sweep's plan as pure work: everything it needs copied in (PlanWork),
// everything it has to say given back (PlannedSubnet: the plan and the log
// lines it would write), so that it can run on a thread of its own while the
// daemon's one loop keeps answering `ibsm status`, SMInfo and SIGTERM
// (MasterSweep.h, "Threads"). A plan may be abandoned mid-way (SIGTERM): it
// then runs to its end on its own, touching nothing but what it owns.
//
//   auto job = PlanJob::start(std::move(work));        // a detached thread
//   while (!job->ready()) { serve the loop; job->waitFor(1ms); }
//   PlannedSubnet planned = job->take();
#pragma once

#include <ibsm/Engines.h>
#include <ibsm/Multicast.h>
#include <ibsm/Partitions.h>
#include <ibsm/QosOptions.h>
#include <ibsm/QosPolicy.h>
#include <ibsm/SubnetPlan.h>
#include <spdlog/common.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::sm::manager {

// The partition plan of a fabric, given the SM's port GUID. A function
// rather than the config, so that the manager does not care where the
// partitions come from (`ibsm run` binds the files it read).
using PartitionPlanner =
    std::function<Result<partition::PartitionPlan>(const Fabric&, Guid smPortGuid)>;

struct PlanWork {
  Fabric fabric;  // the observation, isolated links cut (a copy: the plan owns it)
  PortRef smPort{};
  PlanInputs inputs;  // guid2lid as saved; `previous` filled from `hint` on the thread
  // The last plan, whose tables are the hint (routes under change); null:
  // fresh tables.
  std::shared_ptr<const SubnetPlan> hint;
  PartitionPlanner partitions;  // empty: PKey tables are not managed
  std::shared_ptr<const qos::QosPolicy> qosPolicy;
  qos::QosOptions qos;
  // The groups to route, read on the loop (the SA changes them); nullopt:
  // MFTs are not managed.
  std::optional<std::vector<McGroupRoute>> groups;
  std::shared_ptr<McTopologyCache> mcCache;  // shared: an abandoned plan may outlive the sweep
  // Tests only (SweepSettings::testOnPlanThread): run on the planning
  // thread before the plan, to make it slow or to see where it runs.
  std::function<void()> testOnPlanThread;
};

// A log line the plan would write, written by the loop thread after it.
struct PlanNote {
  spdlog::level::level_enum level;
  std::string text;
};

struct PlannedSubnet {
  std::optional<Result<SubnetPlan>> plan;  // always set by computePlan()
  std::vector<PlanNote> notes;
};

// Pure: the plan of `work` (routing, PKeys, QoS tables, multicast trees).
[[nodiscard]] PlannedSubnet computePlan(PlanWork work);

// The trees of `groups` on `plan`'s fabric, every one part of one tree
// (MulticastOptions::oneTree) where the routing shares a layer with them
// (RoutingResult::treesShareVl); nullopt (and a note) when planning them
// fails, so the MFTs stay as they are.
std::optional<MulticastPlan> planTreesOn(const SubnetPlan& plan,
                                         const std::vector<McGroupRoute>& groups,
                                         McTopologyCache* cache, std::vector<PlanNote>& notes);

// One computePlan() on a detached thread. Shared by the thread and the
// waiter, so either may go first.
class PlanJob {
 public:
  [[nodiscard]] static std::shared_ptr<PlanJob> start(PlanWork work);
  bool ready() const;
  // Blocks up to `most` of real time or until the plan is done.
  void waitFor(std::chrono::microseconds most);
  // The outcome; call once, after ready().
  [[nodiscard]] PlannedSubnet take();

 private:
  mutable std::mutex mutex_;
  std::condition_variable doneCv_;
  bool done_{false};
  std::optional<PlannedSubnet> out_;
};

}  // namespace ibsm::sm::manager
