#include "sm/manager/DaemonDraw.h"

#include <fmt/format.h>

#include "routing/draw/Layout.h"
#include "routing/draw/Svg.h"

namespace ibsm::sm::manager {
namespace {

// Whether layoutFabric can place a condition on this port: a port the
// fabric has, on a switch or on a CA cabled to one.
bool placeable(const Fabric& fabric, const PortKey& key) {
  const auto node = fabric.findNode(key.node);
  if (!node || key.port >= fabric.node(*node).ports.size()) return false;
  if (fabric.node(*node).isSwitch()) return true;
  const auto& remote = fabric.node(*node).ports[key.port].remote;
  return remote && fabric.node(remote->node).isSwitch();
}

}  // namespace

std::string drawLastSweep(const std::optional<SweepResult>& last,
                          const health::HealthView& health) {
  if (!last || !last->plan) return "error: no sweep has planned the fabric yet: nothing to draw\n";
  const Fabric& fabric = last->plan->fabric;
  draw::LayoutInputs inputs{.loads = std::vector<draw::LinkLoadEntry>{},
                            .marks = {},
                            .loadsFrom = "the last sweep's report",
                            .marksFrom = "the health view"};
  for (const auto& l : last->report.linkLoad.perLink)
    inputs.loads->push_back({l.fromGuid, l.fromPort, l.routes});
  for (const auto& e : health.unhealthy)
    if (placeable(fabric, e.port))
      inputs.marks.push_back(
          {e.port.node, e.port.port, std::string(health::conditionName(e.condition)), e.detail});
  auto layout = draw::layoutFabric(fabric, inputs);
  if (!layout) return fmt::format("error: {}\n", layout.error().message);
  return draw::renderSvg(*layout, fmt::format("ibsm daemon, sweep of {} switches", last->switches));
}

}  // namespace ibsm::sm::manager
