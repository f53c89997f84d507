// What the daemon answers to `ibsm draw`: the SVG of the fabric its last
// sweep planned, links coloured by that plan's routes per link and marked
// where the health book finds a condition. A function of the two values the
// daemon keeps, so it is tested without a daemon.
#pragma once

#include <optional>
#include <string>

#include "sm/health/HealthView.h"
#include "sm/manager/MasterSweep.h"

namespace ibsm::sm::manager {

// "error: ...\n" when no sweep has planned a fabric yet. Conditions on ports
// the last sweep's fabric does not have (the health book saw a newer
// fabric) are left out, not refused.
std::string drawLastSweep(const std::optional<SweepResult>& last, const health::HealthView& health);

}  // namespace ibsm::sm::manager
