// The QoS part of `ibsm route --qos-policy`: the policy resolved on the
// routed fabric with the partitions `ibsm run` would plan (the SM port not
// known offline: SELF names no port), and the level a plain PathRecord of
// every CA port pair gets, counted by level (include/ibsm/QosReport.h).
#pragma once

#include <ibsm/Partitions.h>
#include <ibsm/QosReport.h>
#include <ibsm/SubnetPlan.h>

#include <memory>
#include <optional>

namespace ibsm::sm::cli {

// Fills plan.qos; nullopt (and plan.qos null) without a policy.
[[nodiscard]] Result<std::optional<QosReport>> planDryRunQos(
    SubnetPlan& plan, const partition::PartitionConfig& partitions,
    const std::shared_ptr<const qos::QosPolicy>& policy);

}  // namespace ibsm::sm::cli
