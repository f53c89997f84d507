// One heavy sweep of a master SM: discover, plan (the same planSubnet() the
// dry run calls), program the difference, and judge the result by walking
// the planned tables. What the subnet holds (HeldSubnet: the observation as
// programming changed it, and the tables) lives here across sweeps, so a
// second sweep sends only what changed.
//
// Threads: everything here runs on the caller's thread (the daemon's one
// thread), but for two pieces of pure work:
// - the plan (planSubnet: LIDs, routing, PKeys, QoS, multicast trees), with
//   planOffLoop(true) (the daemon sets it), is computed on a thread of its
//   own (PlanWork.h) from copies of what it needs -- the observed fabric
//   with isolated links cut, the settings, the groups read on this thread,
//   the last plan (immutable, shared) as the hint -- while this thread
//   serves the daemon's loop in engine.runUntil() looks of 1 ms, so
//   `ibsm status`, SMInfo queries and SIGTERM are answered during a plan of
//   seconds (radix 48). Nothing here changes while it waits: the handlers
//   that run only feed the machine, which queues their work behind this
//   sweep. When the wait fails (SIGTERM cancels the engine) the plan is
//   abandoned: its thread runs to its end on what it owns and the sweep
//   returns the error at once. Off (unit tests of this class, the default):
//   the plan is computed on the caller's thread, as before;
// - the verdict walk (analyseRoutes) and the guid2lid save run on a second,
//   short-lived thread while programming waits on the wire; that thread
//   reads only the plan (not changed until it is joined) and writes only
//   the state file, and it is joined before planAndProgram() returns
//   (radix-24 fat tree: the ~80-170 ms walk no longer delays "subnet up").
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
// Multicast: when the daemon gives a source of groups (setMulticast()),
// every plan gets every switch's MFT from planMulticast() on the planned
// fabric, and programMulticast() plans the trees again on the last plan's
// fabric between sweeps (a join, a leave) and writes only the MFT blocks
// that differ -- the same plan-diff-program step, one table kind. A pass
// shares the last plan (fabric, LIDs, LFTs: a join changes none of them)
// and keeps only its new trees (multicastPlan()), never a copy of the plan.
//
// Routes under change: every plan after the first is made with the last
// plan's tables and fabric as the hint (PlanInputs::previous), so a lost
// cable moves only the entries whose path used it, a host that comes and
// goes writes no LFT block, and capacity that comes back restores the fresh
// tables. requestRebalance() makes the next plan fresh; rebalanceDue() says
// when routing.rebalance_interval asks for one.
//
// Log ids: see LOG MESSAGES in ibsm(8).
#pragma once

#include <ibsm/Multicast.h>
#include <ibsm/Partitions.h>
#include <ibsm/QosOptions.h>
#include <ibsm/QosPolicy.h>
#include <ibsm/Report.h>
#include <ibsm/SubnetPlan.h>
#include <spdlog/logger.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "sm/discovery/Descriptions.h"
#include "sm/discovery/Discovery.h"
#include "sm/health/Isolation.h"
#include "sm/mad/MadEngine.h"
#include "sm/manager/GroupSource.h"
#include "sm/manager/PlanWork.h"
#include "sm/manager/StateStore.h"
#include "sm/program/HeldSubnet.h"
#include "sm/program/ProgramOptions.h"
#include "sm/program/ProgramSummary.h"

namespace ibsm::sm::program {
class ReadAhead;  // program/ReadAhead.h
}  // namespace ibsm::sm::program

namespace ibsm::sm::manager {

struct LightLook;

struct SweepSettings {
  PlanInputs plan;  // guid2lid is taken from the state store at every sweep
  program::ProgramOptions program;
  PartitionPlanner partitions;  // empty: PKey tables are not managed
  // qos.policy_file as read (config::readQosPolicySource); null: no policy.
  std::shared_ptr<const qos::QosPolicy> qosPolicy{};
  // Route under change with the last plan as the hint (routing.stable_routes):
  // a lost cable moves only the entries that used it. False: fresh tables
  // at every plan, as OpenSM computes them.
  bool stableRoutes{true};
  // routing.rebalance_interval: tables that may differ from what a fresh
  // computation gives (entries mended in place after a loss) are computed
  // afresh once they have been so this long; zero: only when the operator
  // asks (`ibsm sweep --rebalance`).
  std::chrono::seconds rebalanceInterval{0};
  // [qos]: SL2VL and VLArbitration of every port when enabled.
  qos::QosOptions qos{};
  // Tests only: called on the thread that computes each plan, before it
  // (to make a plan slow, or to see where it runs). Empty in `ibsm run`.
  std::function<void()> testOnPlanThread{};
};

// What the last plan that asked the groups' source saw: the source's
// generation then (a pass is due when it moved on) and the groups and
// members it routed. `plans` counts the plans that asked.
struct MulticastPlanned {
  std::uint64_t plans{0};
  std::uint64_t generation{0};
  std::uint64_t groups{0};
  std::uint64_t members{0};
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
  // Ports ACTIVE as the subnet holds them after the sweep (switch port 0
  // aside), whoever activated them; program.portsActivated: by this sweep.
  std::size_t portsActive{0};
  discovery::DiscoveryCounters discovery;
  program::ProgramSummary program;
  std::uint64_t mads{0};  // transmissions in this sweep, retries included
  RouteReport report;     // the planned tables, walked
  std::chrono::microseconds planTime{0};
  std::chrono::microseconds elapsed{0};
  // What this sweep planned and programmed (LIDs, LFTs, PKeys, SL2VL), for
  // those who answer from it (the SA's snapshot); shared, since a result is
  // copied into the status and the plan of a large fabric is not small.
  std::shared_ptr<const SubnetPlan> plan;
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
  std::vector<Guid> lostTables;      // switches whose LFT was lost without us (a reboot)
  // Switches that trapped asked before the others (lightSweep's `trapped`),
  // and whether one of them showed the loss and the reroute was programmed
  // before the other switches were asked.
  std::size_t askedFirst{0};
  bool reroutedEarly{false};
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
  [[nodiscard]] Result<SweepResult> run(discovery::DiscoveredSubnet discovered,
                                        const discovery::DiscoveryCounters& counters);

  // Stage 1 and 2 of a light sweep, then an incremental reroute when
  // only cables were lost. `trapped`: LIDs of switches that sent a Trap 128
  // since the last one, asked first; when one shows a cable lost (and
  // nothing else) the reroute is programmed before the other switches are
  // asked (MasterSweepLight.cpp). Fails only when the transport does.
  [[nodiscard]] Result<LightResult> lightSweep(std::span<const Lid> trapped = {});
  // New settings (SIGHUP) on the fabric of the last sweep: plan again and
  // program what differs (PKey blocks for a partitions edit), no discovery.
  // Fails when nothing was swept yet or after forgetSwitchTables().
  [[nodiscard]] Result<SweepResult> replan();

  // What the subnet holds as far as this SM knows: the last discovery (or
  // reroute) as programming changed it, and the tables.
  const program::HeldSubnet& held() const { return held_; }
  // Takeover: another SM programmed the switches, so what is held is
  // stale; the next run() reads the tables back. lightSweep() and replan()
  // refuse until then.
  void forgetHeld() {
    held_.forget();
    lastPlan_.reset();
    mfts_.reset();
  }
  // A discovery made while not master (a standby's): the descriptions it
  // read, for the takeover's discovery to take instead of reading them
  // before up (Descriptions.h). Kept across forgetHeld(): a node's
  // description is not a table another SM programs.
  void noteDescriptions(const discovery::DiscoveredSubnet& seen) {
    known_ = discovery::knownDescriptions(seen);
  }
  // Null when none is known.
  const discovery::KnownDescriptions* knownDescriptions() const {
    return known_.empty() ? nullptr : &known_;
  }
  // After up: the descriptions the last sweep's discovery took from
  // before, read; those that changed go into what is held and into a copy
  // of `result`'s plan (the SA's NodeRecords), which becomes the last plan.
  [[nodiscard]] Result<discovery::DescriptionsRead> readDescriptions(SweepResult& result);
  // The VLArbitration blocks the SA serves that are not known yet, read
  // after the subnet is up (SubnetProgrammer::readForSa).
  [[nodiscard]] Result<program::ProgramSummary> readForSa(const SubnetPlan& plan);
  // SIGHUP: routing and programming options for the next sweep; what the
  // switches hold and the last fabric stay known.
  void setSettings(SweepSettings settings) { settings_ = std::move(settings); }
  // An M_Key rotation's keys, from the next sweep on (MKeyService.h).
  void setMKeys(security::KeyScheme keys) { settings_.program.mKeys = std::move(keys); }
  // Plans computed off the caller's thread while it serves the engine's
  // loop (the class comment's "Threads"); the daemon turns it on.
  void planOffLoop(bool on) { offLoop_ = on; }
  // Where the groups come from, asked (routes() and generation()) at every
  // plan; null: MFTs are not managed. Kept across setSettings().
  void setMulticast(std::shared_ptr<const GroupSource> source) { multicast_ = std::move(source); }
  // The groups changed since the last plan: their trees planned again on
  // the last plan's fabric, and the MFT blocks that differ written (and
  // nothing else). The result's plan is the last sweep's, shared, not
  // copied; the new trees are multicastPlan(). Fails when nothing was
  // swept yet, after forgetHeld(), or when the transport does.
  [[nodiscard]] Result<SweepResult> programMulticast();
  // What the last plan or pass saw of the groups (MulticastPlanned).
  const MulticastPlanned& multicastPlanned() const { return planned_; }
  // The next plan is computed afresh, whatever the last one held.
  void requestRebalance() { rebalanceAsked_ = true; }
  // A rebalance was asked and the next plan has not taken it yet: the
  // daemon counts that plan's sweep as a rebalance.
  bool rebalanceAsked() const { return rebalanceAsked_; }
  // The tables were mended in place after a loss (they may differ from a
  // fresh computation) at least routing.rebalance_interval ago.
  bool rebalanceDue() const;
  // Links the health policy isolates: every plan from now on is made on the
  // fabric without them (health::isolateLinks, as a dry run would), but for
  // those that are the only way to a node; the programmed ports stay as
  // they are, only the routes avoid them.
  void setIsolation(std::vector<health::LinkKey> links) { isolate_ = std::move(links); }
  const std::vector<health::LinkKey>& isolationAsked() const { return isolate_; }
  // What the last plan did with them.
  const std::vector<health::LinkKey>& isolated() const { return isolated_; }
  const std::vector<health::RefusedLink>& isolationRefused() const { return refused_; }
  // The plan of the last sweep; null before the first. Its `multicast` is
  // the trees that sweep planned: the passes since keep theirs apart.
  const std::shared_ptr<const SubnetPlan>& lastPlan() const { return lastPlan_; }
  // The MFTs as the last sweep or multicast pass planned them (sharing the
  // sweep's plan until a pass replaces them); null when not managed, before
  // the first sweep, or when the last planning of the trees failed.
  const std::shared_ptr<const MulticastPlan>& multicastPlan() const { return mfts_; }

 private:
  // Both run()s: observe `discovered` (made from `start` on, `sentBefore`
  // MADs ago), then plan and program.
  [[nodiscard]] Result<SweepResult> sweepOn(discovery::DiscoveredSubnet discovered,
                                            const discovery::DiscoveryCounters& counters,
                                            MadClock::time_point start, std::uint64_t sentBefore);
  // Plan and program what is held, judge, and describe what changed since
  // `before` (the fabric held before this sweep's observation): the second
  // half of run() and the whole of a reroute or a replan. `ahead`: reads
  // started before the plan (run() only), taken in by the programming.
  [[nodiscard]] Result<SweepResult> planAndProgram(const std::optional<Fabric>& before,
                                                   SweepResult result,
                                                   program::ReadAhead* ahead = nullptr);
  // One look's findings into `out`: a reroute when only cables were lost.
  [[nodiscard]] Result<void> takeLook(const LightLook& seen, LightResult& out);
  // The groups to route, from the source as it stands (noted in
  // planned_); nullopt when there is no source.
  std::optional<std::vector<McGroupRoute>> readGroups();
  // What the plan of this sweep needs, copied (PlanWork.h).
  PlanWork planWork(Guid2Lid saved, Fabric fabric);
  // The plan of `work`: on this thread, or off it while serving the loop
  // (planOffLoop); fails only when the wait does (the engine cancelled).
  [[nodiscard]] Result<PlannedSubnet> computeServing(PlanWork work);
  // The last plan as the hint for this one, or null for fresh tables.
  std::shared_ptr<const SubnetPlan> hint() const;
  // SM-0427..0429: how this plan's routes came about.
  void logStability(const SubnetPlan& plan) const;
  void logLoopbacks(const SubnetPlan& plan) const;
  // SM-0442 when a plan brings tables with a credit loop (the last engine's).
  void noteCreditLoop(const SubnetPlan& plan, const CreditLoopReport& loops);
  void noteFreshness(const SubnetPlan& plan, MadClock::time_point planned);
  // The engine's clock, as every timer of the SM.
  MadClock::time_point now() const { return engine_.options().clock(); }
  std::chrono::microseconds since(MadClock::time_point t) const {
    return std::chrono::duration_cast<std::chrono::microseconds>(now() - t);
  }
  std::optional<Fabric> heldFabric() const {
    return held_.hasObservation() ? std::optional(held_.observed().fabric) : std::nullopt;
  }

  MadEngine& engine_;
  const StateStore& store_;
  SweepSettings settings_;
  std::shared_ptr<spdlog::logger> log_;
  program::HeldSubnet held_;
  std::shared_ptr<const GroupSource> multicast_;
  MulticastPlanned planned_;
  // The trees' roots, kept while the switch graph stays the same: a pass
  // for a join would otherwise spend most of its time finding them again.
  // Shared with the planning thread, which an abandoned plan may outlive us on.
  std::shared_ptr<McTopologyCache> mcTopology_{std::make_shared<McTopologyCache>()};
  std::shared_ptr<const SubnetPlan> lastPlan_;
  std::shared_ptr<const MulticastPlan> mfts_;  // lastPlan_'s trees, or the last pass's
  discovery::KnownDescriptions known_;         // noteDescriptions()
  bool rebalanceAsked_{false};
  bool offLoop_{false};
  std::vector<health::LinkKey> isolate_;
  std::vector<health::LinkKey> isolated_;
  std::vector<health::RefusedLink> refused_;
  bool lastPlanLooped_{false};  // the last plan's tables have a credit loop (SM-0442 said so)
  bool tablesFresh_{true};      // the tables are what a fresh computation gave
  MadClock::time_point staleSince_{};  // when they first kept entries of another fabric
};

}  // namespace ibsm::sm::manager
