// The pieces of health JSON that `ibsm health --json` and `ibsm status
// --json` (its `health` object) share, so both name a figure the same way.
// Private to sm/control.
#pragma once

#include <nlohmann/json.hpp>

#include "sm/control/HealthFormat.h"

namespace ibsm::sm::control {

// {"unhealthy": {"errors": n, "downgraded": n, ...}, "total": n, "isolated": n}
nlohmann::ordered_json healthCountsJson(const HealthCounts& counts);
// {"enabled": .., "interval_s": .., "passes": .., "gmps_sent": .., ...,
//  "last_pass_at": "2026-12-04T12:03:04Z" or null, "next_pass_in_s": 12 or null}
nlohmann::ordered_json counterSweepJson(const health::CounterSweepFigures& figures);

}  // namespace ibsm::sm::control
