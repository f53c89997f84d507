#include "sm/cli/RouteQos.h"

#include "sm/manager/QosPlan.h"

namespace ibsm::sm::cli {

Result<std::optional<QosReport>> planDryRunQos(
    SubnetPlan& plan, const partition::PartitionConfig& partitions,
    const std::shared_ptr<const qos::QosPolicy>& policy) {
  if (!policy) return std::optional<QosReport>{};
  auto planned = partition::planPartitions(plan.fabric, partitions, std::nullopt);
  if (!planned) return std::unexpected(planned.error());
  sortByPort(planned->tables);
  plan.qos = manager::resolvePlanQos(policy, plan.fabric, &*planned, Guid{});
  return std::optional(qos::countPlainPathLevels(*plan.qos, plan.fabric, &planned->tables));
}

}  // namespace ibsm::sm::cli
