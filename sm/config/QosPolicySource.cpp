#include "sm/config/QosPolicySource.h"

namespace ibsm::sm::config {

Result<std::shared_ptr<const qos::QosPolicy>> readQosPolicySource(
    const Config& config, const std::optional<std::filesystem::path>& policyFile) {
  const std::filesystem::path file = policyFile.value_or(config.sm.qosPolicyFile);
  if (file.empty()) return std::shared_ptr<const qos::QosPolicy>{};
  auto policy = qos::readQosPolicy(file);
  if (!policy) return std::unexpected(policy.error());
  return std::make_shared<const qos::QosPolicy>(std::move(*policy));
}

}  // namespace ibsm::sm::config
