// One heavy sweep of a master SM: discover, plan (the same planSubnet() the
// dry run calls), program the difference, and judge the result by walking
// the planned tables. The switch table cache and the last fabric live here
// across sweeps, so a second sweep sends only what changed.
//
//   MasterSweep sweep(engine, store, settings, logger);
//   auto result = sweep.run();
//   if (result && result->up) log("subnet up");
//
// Between heavy sweeps, lightSweep() asks every switch whether a port
// changed (one SMP per switch when nothing did) and, when only cables went
// down, reroutes from the last discovery without a NodeInfo sweep: the same
// plan-and-program step as run(), so only LFT blocks that change are sent.
//
// Partitions: when the settings carry a partition planner, every plan
// (heavy sweep and reroute alike) gets its PKey tables from it, so the
// tables follow the fabric and the config without a separate pass.
//
// Log message ids: SM-0401 plan, SM-0402 changes since the last sweep,
// SM-0403 why the subnet is not up yet, SM-0407 light sweep decision,
// SM-0420 partition plan refused (PKeys left as they are), SM-0421
// partition members not in the fabric, SM-0001 subnet up.
#pragma once

#include <ibsm/Partitions.h>
#include <ibsm/Report.h>
#include <ibsm/SubnetPlan.h>
#include <spdlog/logger.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "Discovery.h"
#include "MadEngine.h"
#include "ProgramSummary.h"
#include "StateStore.h"
#include "SwitchTableCache.h"

namespace ibsm::sm {

// The partition plan of a fabric, given the SM's port GUID. A function
// rather than the config, so that the manager does not care where the
// partitions come from (`ibsm run` binds the files it read).
using PartitionPlanner =
    std::function<Result<partition::PartitionPlan>(const Fabric&, Guid smPortGuid)>;

struct SweepSettings {
  PlanInputs plan;  // guid2lid is taken from the state store at every sweep
  ProgramOptions program;
  PartitionPlanner partitions;  // empty: PKey tables are not managed
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

struct LightResult {
  bool ok{true};           // false: could not run (nothing swept yet, or tables forgotten)
  bool needsHeavy{false};  // a change the incremental path cannot handle: new link (Init),
                           // switch silent or lost its tables, port silent, node gone...
  bool changed{false};     // the fabric differs from the last sweep (rerouted or needs heavy)
  std::optional<SweepResult> reroute;  // set when links were lost and rerouted incrementally
  std::uint64_t mads{0};               // every MAD of this light sweep incl. the reroute
  std::chrono::microseconds elapsed{0};
  std::vector<std::string> changes;  // e.g. "cable lost: \"s1\"[5] (0x..) - \"s2\"[7] (0x..)"
};

// The SM-0406 line: what one sweep found and cost, by phase.
void logSweep(spdlog::logger& log, const SweepResult& result);

class MasterSweep {
 public:
  MasterSweep(MadEngine& engine, const StateStore& store, SweepSettings settings,
              std::shared_ptr<spdlog::logger> logger);

  // Fails when the SM cannot work at all (its own node silent, the port
  // gone, the state file corrupt); anything less is in the result.
  [[nodiscard]] Result<SweepResult> run();
  // The same on a discovery the caller has just made (the daemon's
  // DISCOVERING read the fabric a moment ago): plan and program it without
  // reading the fabric again. Its MADs and time count in the result.
  [[nodiscard]] Result<SweepResult> run(DiscoveredSubnet discovered,
                                        const DiscoveryCounters& counters);

  // Stage 1 and 2 of a light sweep, then an incremental reroute when
  // only cables were lost. Fails only when the transport does.
  [[nodiscard]] Result<LightResult> lightSweep();
  // New settings (SIGHUP) on the fabric of the last sweep: plan again and
  // program what differs (PKey blocks for a partitions edit), no discovery.
  // Fails when nothing was swept yet or after forgetSwitchTables().
  [[nodiscard]] Result<SweepResult> replan();

  // The fabric of the last sweep, with the LIDs it was given.
  const std::optional<Fabric>& lastFabric() const { return last_; }
  // The last discovery (or reroute), as the subnet holds it after a
  // complete programming run: LIDs, links Active, LinearFDBTop written.
  const std::optional<DiscoveredSubnet>& lastDiscovered() const { return discovered_; }
  // Takeover: another SM programmed the switches, so what the cache holds
  // is stale; the next run() reads the tables back. lightSweep() refuses
  // (ok=false) until then.
  void forgetSwitchTables();
  // SIGHUP: routing and programming options for the next sweep; what the
  // switches hold and the last fabric stay known.
  void setSettings(SweepSettings settings) { settings_ = std::move(settings); }

 private:
  // Plan and program `discovered` as it is, judge, and remember it: the
  // second half of run() and the whole of a reroute.
  [[nodiscard]] Result<SweepResult> planAndProgram(DiscoveredSubnet discovered, SweepResult result);
  // plan.pkeys from the partition planner; left unset (PKeys as they are)
  // when there is none or it refuses the fabric.
  void planPKeys(const DiscoveredSubnet& discovered, SubnetPlan& plan) const;

  MadEngine& engine_;
  const StateStore& store_;
  SweepSettings settings_;
  std::shared_ptr<spdlog::logger> log_;
  SwitchTableCache cache_;
  std::optional<Fabric> last_;
  std::optional<DiscoveredSubnet> discovered_;
};

}  // namespace ibsm::sm
