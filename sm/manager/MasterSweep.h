// One heavy sweep of a master SM: discover, plan (the same planSubnet() the
// dry run calls), program the difference, and judge the result by walking
// the planned tables. The switch table cache and the last fabric live here
// across sweeps, so a second sweep sends only what changed.
//
//   MasterSweep sweep(engine, store, settings, logger);
//   auto result = sweep.run();
//   if (result && result->up) log("subnet up");
//
// Log message ids: SM-0401 plan, SM-0402 changes since the last sweep,
// SM-0403 why the subnet is not up yet, SM-0001 subnet up.
#pragma once

#include <ibsm/Report.h>
#include <ibsm/SubnetPlan.h>
#include <spdlog/logger.h>

#include <chrono>
#include <memory>
#include <optional>

#include "Discovery.h"
#include "MadEngine.h"
#include "ProgramSummary.h"
#include "StateStore.h"
#include "SwitchTableCache.h"

namespace ibsm::sm {

struct SweepSettings {
  PlanInputs plan;  // guid2lid is taken from the state store at every sweep
  ProgramOptions program;
};

struct SweepResult {
  bool up{false};                    // every reachable port ACTIVE and every pair routed
  std::vector<std::string> reasons;  // why not, when not
  std::vector<std::string> changes;  // since the previous sweep
  std::string engine;
  std::size_t switches{0};
  std::size_t caPorts{0};
  std::uint64_t routedPairs{0};
  std::uint64_t unreachablePairs{0};
  DiscoveryCounters discovery;
  ProgramSummary program;
  std::uint64_t mads{0};  // transmissions in this sweep, retries included
  RouteReport report;     // the planned tables, walked
  std::chrono::microseconds planTime{0};
  std::chrono::microseconds elapsed{0};
};

class MasterSweep {
 public:
  MasterSweep(MadEngine& engine, const StateStore& store, SweepSettings settings,
              std::shared_ptr<spdlog::logger> logger);

  // Fails when the SM cannot work at all (its own node silent, the port
  // gone, the state file corrupt); anything less is in the result.
  [[nodiscard]] Result<SweepResult> run();

  // The fabric of the last sweep, with the LIDs it was given.
  const std::optional<Fabric>& lastFabric() const { return last_; }

 private:
  MadEngine& engine_;
  const StateStore& store_;
  SweepSettings settings_;
  std::shared_ptr<spdlog::logger> log_;
  SwitchTableCache cache_;
  std::optional<Fabric> last_;
};

}  // namespace ibsm::sm
