#include <ibsm/SubnetPlan.h>

#include "routing/plan/CreditLoopJudge.h"

namespace ibsm {
namespace {

// The previous tables by NodeId of `fabric`; an empty Lft for a switch they
// do not name (new, or never programmed), which holds no previous path.
std::vector<Lft> byNode(const Fabric& fabric, const PreviousRoutes& previous) {
  std::vector<Lft> out(fabric.size());
  for (const NodeId s : fabric.switches())
    if (auto it = previous.lfts.find(fabric.node(s).guid); it != previous.lfts.end())
      out[s] = it->second;
  return out;
}

Result<RoutingResult> routeFromPrevious(const Fabric& fabric, const PlanInputs& inputs,
                                        const EngineRegistry& registry, StablePlan& stable) {
  const PreviousRoutes& previous = *inputs.previous;
  stable.change =
      previous.fabric ? classifyChange(*previous.fabric, fabric) : FabricChange::Unknown;
  return routeUnderChange(fabric, registry, inputs.engines, inputs.routing,
                          byNode(fabric, previous), stable.change, stable.stats);
}

}  // namespace

PreviousRoutes previousRoutesOf(const Fabric& fabric, const RoutingResult& routing) {
  PreviousRoutes out;
  for (const NodeId s : fabric.switches())
    if (s < routing.lfts.size()) out.lfts.emplace(fabric.node(s).guid, routing.lfts[s]);
  out.fabric = fabric;
  return out;
}

std::string_view changeName(FabricChange change) {
  switch (change) {
    case FabricChange::CapacityLost:
      return "capacity-lost";
    case FabricChange::CapacityGained:
      return "capacity-gained";
    case FabricChange::HostsOnly:
      return "hosts-only";
    case FabricChange::Unknown:
      break;
  }
  return "unknown";
}

std::string_view routesHow(const SubnetPlan& plan) {
  if (!plan.stable) return "fresh";
  return plan.stable->stats.stabilised ? "kept" : "fresh-fallback";
}

Result<SubnetPlan> planSubnet(Fabric fabric, const PlanInputs& inputs,
                              const EngineRegistry& registry) {
  auto lids = planLids(fabric, inputs.guid2lid, inputs.lmc);
  if (!lids) return std::unexpected(lids.error());
  applyLids(fabric, *lids);
  std::optional<StablePlan> stable;
  auto routed = inputs.previous
                    ? routeFromPrevious(fabric, inputs, registry, stable.emplace())
                    : registry.route(fabric, inputs.engines, inputs.routing, creditLoopJudge());
  if (!routed) return std::unexpected(routed.error());
  SubnetPlan plan{std::move(fabric), std::move(*lids), std::move(*routed)};
  plan.stable = std::move(stable);
  return plan;
}

}  // namespace ibsm
