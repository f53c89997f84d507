// The QoS policy resolved on a plan: its port groups named on the plan's
// fabric, `pkey:`/`partition:` selectors through the partition plan of the
// same sweep. Shared by the live SM (PlanWork.cpp, planPKeys) and the dry
// run (`ibsm route`), so both resolve a policy alike.
#pragma once

#include <ibsm/Partitions.h>
#include <ibsm/QosPolicy.h>

#include <memory>

namespace ibsm::sm::manager {

// Each partition's PKey by name and its full members (full or both) by PKey.
qos::QosPartitions qosPartitionsOf(const partition::PartitionPlan& plan);

// Null without a policy; `partitions` null: partitions are not managed, so
// pkey:/partition: selectors name no port.
std::shared_ptr<const qos::ResolvedQos> resolvePlanQos(
    const std::shared_ptr<const qos::QosPolicy>& policy, const Fabric& fabric,
    const partition::PartitionPlan* partitions, Guid smPort);

}  // namespace ibsm::sm::manager
