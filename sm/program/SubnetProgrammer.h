// The programming step of a sweep: after discovery and planSubnet(), sends
// what differs, phase by phase in OpenSM's order (PKey tables, SM LID,
// LIDs, LFTs, SL2VL tables, then links Armed, then Active), each phase
// waiting for the one before and keeping the MAD engine's window full
// within itself.
//
//   SwitchTableCache cache;                        // kept across sweeps (LFTs, PKeys, SL2VL)
//   SubnetProgrammer programmer(engine, cache, options);
//   auto summary = programmer.program(discovered, plan);
//   if (!summary) ...                              // the transport died, or the plan is stale
//   else if (!summary->complete()) ...             // some objects stay dirty: sweep again
//
// Nothing that failed is taken as done: an LFT or PKey block or SL2VL table
// whose Set failed is unknown in the cache and is sent again by the next
// run; a port whose PortInfo Set failed is not armed; a switch whose LFT,
// SL2VL tables or LID are not in place keeps its links out of Active (the next run finds them still
// Armed and activates them). If the SM's own LID cannot be set the run
// stops there, since every other port would name a LID nobody holds.
//
// Log message ids (spdlog):
//   PROG-0301 info   one line per phase: SMPs (PKey and SL2VL SMPs among them), failures,
//                    deferred, duration
//   PROG-0302 warn   one object could not be written (it stays dirty)
//   PROG-0303 error  the SM's own port LID could not be set: run stopped
//   PROG-0304 warn   links held back from Armed/Active because of an earlier failure
//   PROG-0305 warn   something the planner left alone, and why
//   PROG-0306 info   end of run: blocks and SL2VL tables written, ports activated, totals
//   PROG-0307 warn   a switch port acknowledged but ignored partition enforcement
#pragma once

#include <ibsm/SubnetPlan.h>
#include <spdlog/logger.h>

#include <memory>

#include "DiscoveredSubnet.h"
#include "MadEngine.h"
#include "ProgramOptions.h"
#include "ProgramPlan.h"
#include "ProgramSummary.h"
#include "SwitchTableCache.h"

namespace ibsm::sm {

class SubnetProgrammer {
 public:
  SubnetProgrammer(MadEngine& engine, SwitchTableCache& cache, ProgramOptions options = {},
                   std::shared_ptr<spdlog::logger> logger = nullptr);

  // Fails when the MAD transport stops working or the plan was not made
  // from this discovery; SMPs that fail are reported in the summary.
  [[nodiscard]] Result<ProgramSummary> program(const DiscoveredSubnet& discovered,
                                               const SubnetPlan& plan);

 private:
  [[nodiscard]] Result<std::vector<SmpReply>> runPhase(Phase phase,
                                                       const std::vector<ProgramStep>& steps,
                                                       std::size_t deferred, const Fabric& fabric,
                                                       ProgramSummary& summary);
  void noteIgnoredEnforcement(const Fabric& fabric, PortRef port, const ProgramStep& step,
                              const SmpReply& reply);
  [[nodiscard]] Result<void> readTables(const DiscoveredSubnet& discovered, const SubnetPlan& plan,
                                        ProgramSummary& summary);

  MadEngine& engine_;
  SwitchTableCache& cache_;
  ProgramOptions options_;
  std::shared_ptr<spdlog::logger> log_;
};

}  // namespace ibsm::sm
