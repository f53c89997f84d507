#include "sm/health/HealthView.h"

namespace ibsm::sm::health {

std::string_view conditionName(Condition c) {
  switch (c) {
    case Condition::Errors:
      return "errors";
    case Condition::Downgraded:
      return "downgraded";
    case Condition::Flapping:
      return "flapping";
    case Condition::Rebooted:
      return "rebooted";
  }
  return "unknown";
}

std::string_view actionName(Action a) {
  return a == Action::Isolate ? "isolate" : "report";
}

}  // namespace ibsm::sm::health
