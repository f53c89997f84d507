#include <ibsm/SubnetPlan.h>

namespace ibsm {

Result<SubnetPlan> planSubnet(Fabric fabric, const PlanInputs& inputs,
                              const EngineRegistry& registry) {
  auto lids = planLids(fabric, inputs.guid2lid, inputs.lmc);
  if (!lids) return std::unexpected(lids.error());
  applyLids(fabric, *lids);
  auto routed = registry.route(fabric, inputs.engines, inputs.routing);
  if (!routed) return std::unexpected(routed.error());
  return SubnetPlan{std::move(fabric), std::move(*lids), std::move(*routed)};
}

}  // namespace ibsm
