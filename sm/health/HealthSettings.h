// What the daemon's health side runs with, from the [health] config keys:
// the policy (what to isolate, the clean period), the error thresholds as
// read from their files, and the flap rule. A value, replaced whole on
// SIGHUP, so a bad threshold file leaves the one in force untouched.
#pragma once

#include "sm/health/ErrorWatch.h"
#include "sm/health/FlapTracker.h"
#include "sm/health/HealthBook.h"

namespace ibsm::sm::health {

struct HealthSettings {
  HealthPolicy policy{};
  ErrorRule errors{};
  FlapRule flaps{};
};

}  // namespace ibsm::sm::health
