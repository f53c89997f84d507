#include "sm/manager/QosPlan.h"

namespace ibsm::sm::manager {

qos::QosPartitions qosPartitionsOf(const partition::PartitionPlan& plan) {
  qos::QosPartitions out;
  for (const auto& p : plan.partitions) {
    const auto pkey = static_cast<std::uint16_t>(p.pkey & 0x7FFF);
    out.pkeyOf.emplace(p.name, pkey);
    auto& full = out.fullMembers[pkey];
    for (const auto& m : p.members)
      if (m.membership != partition::Membership::Limited) full.insert(m.guid);
  }
  return out;
}

std::shared_ptr<const qos::ResolvedQos> resolvePlanQos(
    const std::shared_ptr<const qos::QosPolicy>& policy, const Fabric& fabric,
    const partition::PartitionPlan* partitions, Guid smPort) {
  if (!policy) return nullptr;
  const auto parts = partitions ? qosPartitionsOf(*partitions) : qos::QosPartitions{};
  return std::make_shared<const qos::ResolvedQos>(qos::resolveQos(policy, fabric, parts, smPort));
}

}  // namespace ibsm::sm::manager
