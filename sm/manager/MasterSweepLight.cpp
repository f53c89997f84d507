// MasterSweep's light sweep (MasterSweep.h): the look at every switch, and
// the reroute without rediscovery when only cables were lost. A light sweep
// a Trap 128 asked for asks the trapping switches first and reroutes as
// soon as one shows a cable lost; every switch is asked after.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "sm/manager/LightSweeper.h"
#include "sm/manager/MasterSweep.h"
#include "sm/manager/SubnetEdit.h"

namespace ibsm::sm::manager {
namespace {

// The switches of `subnet` whose port 0 holds one of `lids`.
std::vector<NodeId> switchesAt(const discovery::DiscoveredSubnet& subnet,
                               std::span<const Lid> lids) {
  std::vector<NodeId> out;
  if (lids.empty()) return out;
  for (const NodeId sw : subnet.fabric.switches()) {
    const auto it = subnet.portInfo.find(PortRef{sw, 0});
    if (it != subnet.portInfo.end() && std::ranges::find(lids, it->second.lid) != lids.end())
      out.push_back(sw);
  }
  return out;
}

}  // namespace

Result<void> MasterSweep::takeLook(const LightLook& seen, LightResult& out) {
  out.changes.insert(out.changes.end(), seen.changes.begin(), seen.changes.end());
  if (seen.quiet()) return {};
  for (const NodeId sw : seen.plan.lostTables)
    out.lostTables.push_back(held_.observed().fabric.node(sw).guid);
  if (!seen.onlyLinksLost()) {
    out.changed = out.needsHeavy = true;
    log_->info("SM-0407 light sweep: {} change(s) need a heavy sweep", out.changes.size());
    return {};
  }
  // PortStateChange set but every port as before (a link that bounced
  // back): nothing to reroute.
  if (seen.lostPorts.empty()) return {};

  out.changed = true;
  auto edited = withoutLinks(held_.observed(), seen.lostPorts);
  if (!edited) {
    log_->warn("SM-0412 light sweep: cannot reroute incrementally ({}), heavy sweep",
               edited.error().message);
    out.needsHeavy = true;
    return {};
  }
  log_->info("SM-0413 light sweep: {} cable(s) lost, rerouting without rediscovery",
             seen.lostPorts.size());
  const auto before = heldFabric();
  held_.observe(std::move(*edited));
  auto rerouted = planAndProgram(before, SweepResult{});
  if (!rerouted) return std::unexpected(rerouted.error());
  // A second reroute in one light sweep (the full look after an early one
  // found more): its result, with the changes of both.
  if (out.reroute)
    rerouted->changes.insert(rerouted->changes.begin(), out.reroute->changes.begin(),
                             out.reroute->changes.end());
  out.reroute = std::move(*rerouted);
  return {};
}

Result<LightResult> MasterSweep::lightSweep(std::span<const Lid> trapped) {
  const auto start = now();
  const auto sentBefore = engine_.counters().sent;
  LightResult out;
  auto finish = [&] {
    out.mads = engine_.counters().sent - sentBefore;
    out.elapsed = since(start);
    if (out.reroute) {
      out.reroute->mads = out.mads;
      out.reroute->elapsed = out.elapsed;
    }
    return out;
  };
  if (!held_.hasObservation()) {
    out.ok = false;
    out.needsHeavy = true;
    return finish();
  }

  LightSweeper sweeper(engine_, log_);
  auto seen = sweeper.look(held_.observed(), switchesAt(held_.observed(), trapped));
  if (!seen) return std::unexpected(seen.error());
  out.askedFirst = seen->askedFirst;
  if (seen->partial) {
    // A trapping switch showed the loss: rerouted now, every switch after.
    if (auto took = takeLook(*seen, out); !took) return std::unexpected(took.error());
    out.reroutedEarly = out.reroute.has_value();
    if (out.needsHeavy) return finish();
    seen = sweeper.look(held_.observed());
    if (!seen) return std::unexpected(seen.error());
  }
  if (auto took = takeLook(*seen, out); !took) return std::unexpected(took.error());
  return finish();
}

}  // namespace ibsm::sm::manager
