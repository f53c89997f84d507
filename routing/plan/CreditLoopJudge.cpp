#include "routing/plan/CreditLoopJudge.h"

#include <fmt/format.h>
#include <ibsm/Report.h>

namespace ibsm {

TablesJudge creditLoopJudge() {
  return [](const Fabric& fabric, const RoutingResult& result) -> std::optional<std::string> {
    const CreditLoopReport loops = findCreditLoops(fabric, result);
    if (loops.acyclic) return std::nullopt;
    return fmt::format("its tables have a credit loop (cycle: {})", fmt::join(loops.cycle, " => "));
  };
}

}  // namespace ibsm
