// The QoS policy an SM applies, read by one function so that `ibsm run` and
// the dry run (`ibsm route`) read the same file: --qos-policy, else
// qos.policy_file of the config in use; neither: no policy (null). Read in
// full before anything is sent, so a bad file refuses start-up with its
// file and line and, on SIGHUP, keeps the running policy.
#pragma once

#include <ibsm/Error.h>
#include <ibsm/QosPolicy.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "sm/config/Config.h"

namespace ibsm::sm::config {

[[nodiscard]] Result<std::shared_ptr<const qos::QosPolicy>> readQosPolicySource(
    const Config& config, const std::optional<std::filesystem::path>& policyFile);

}  // namespace ibsm::sm::config
