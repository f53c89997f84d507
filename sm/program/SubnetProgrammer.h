// The programming step of a sweep: diff(plan, held), send, apply each
// reply to the held subnet -- phase by phase in OpenSM's order (read the
// table blocks worth knowing, then PKey tables, SM LID, LIDs, LFTs, SL2VL
// tables, links Armed, then Active), each phase waiting for the one before
// and keeping the MAD engine's window full within itself.
//
//   HeldSubnet held;                               // kept across sweeps
//   held.observe(discovered);                      // after each discovery
//   SubnetProgrammer programmer(engine, held, options);
//   auto summary = programmer.program(plan);
//   if (!summary) ...                              // the transport died, or the plan is stale
//   else if (!summary->complete()) ...             // some objects stay dirty: sweep again
//
// Nothing that failed is taken as done: a block whose Set failed is Stale in
// the held subnet and sent again by the next run; a port whose PortInfo Set
// failed is not armed; a node whose LID, LFT or SL2VL tables are not in
// place keeps its links out of Active (the next run finds them still Armed
// and activates them). If the SM's own LID cannot be set the run stops
// there, since every other port would name a LID nobody holds.
//
// Log ids: see LOG MESSAGES in ibsm(8).
#pragma once

#include <ibsm/SubnetPlan.h>
#include <spdlog/logger.h>

#include <chrono>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "sm/mad/MadEngine.h"
#include "sm/program/HeldSubnet.h"
#include "sm/program/ProgramOptions.h"
#include "sm/program/ProgramSummary.h"

namespace ibsm::sm::program {

class ReadAhead;  // ReadAhead.h

class SubnetProgrammer {
 public:
  // How many of a phase's SMPs are made ahead of their answers, queued or
  // on the wire: the rest are made as the first are answered
  // (SubnetProgrammer.cpp, PhaseFeed). More than any window the engine keeps.
  static constexpr std::size_t kPhaseAhead = 4096;

  SubnetProgrammer(MadEngine& engine, HeldSubnet& held, ProgramOptions options = {},
                   std::shared_ptr<spdlog::logger> logger = nullptr);

  // Fails when the MAD transport stops working or the plan was not made
  // from the held observation; SMPs that fail are reported in the summary.
  // With `ahead` (ReadAhead.h: reads already on their way), the diff is
  // made on another thread while the engine's loop serves them, their
  // replies are taken in, and the ReadTables phase sends only what they
  // left unknown (summary.readAhead counts them).
  [[nodiscard]] Result<ProgramSummary> program(const SubnetPlan& plan, ReadAhead* ahead = nullptr);
  // Only the read-vlarb phase: the VLArbitration blocks the SA serves and
  // the held model does not know. Run once the subnet is up (SmDaemon),
  // so bring-up waits on none of them.
  [[nodiscard]] Result<ProgramSummary> readForSa(const SubnetPlan& plan);
  // Only the MFT phases (prune, grow, top): a multicast pass between
  // sweeps, when joins and leaves changed the trees (`mfts`, planned on
  // plan.fabric) and nothing else; the plan's own `multicast` is not read,
  // so a pass shares the last sweep's plan. Null `mfts`: nothing to write.
  [[nodiscard]] Result<ProgramSummary> programMulticast(const SubnetPlan& plan,
                                                        const MulticastPlan* mfts);

 private:
  // What failed so far, to hold back the steps that depend on it.
  struct Holds {
    std::set<PortRef> brokenPorts;  // PortInfo not in place: not armed, nor its peer
    std::set<NodeId> heldNodes;     // tables or LID not in place: links not activated
    // MLID blocks a prune write failed for: their Mfts writes would meet
    // old entries; and switches with a failed MFT write: no top raise.
    std::set<std::uint16_t> unprunedMlidBlocks;
    std::set<NodeId> mftFailed;
    // Nothing failed yet: no step of the next phase is held back.
    bool empty() const {
      return brokenPorts.empty() && heldNodes.empty() && unprunedMlidBlocks.empty() &&
             mftFailed.empty();
    }
  };
  // diff() off the loop while the engine serves `ahead`, then every read
  // ahead answered and recorded (ReadAhead.h).
  [[nodiscard]] Result<ProgramDiff> diffServing(const SubnetPlan& plan, ReadAhead& ahead,
                                                ProgramSummary& summary);
  [[nodiscard]] Result<void> readBackRefusedRetries(const std::vector<ProgramStep>& steps,
                                                    std::vector<SmpReply>& replies,
                                                    ProgramSummary& summary);
  // One phase of a wave: its steps to send, and how many it held back.
  struct PhaseRun {
    ProgramPhase phase{ProgramPhase::ReadTables};
    const std::vector<ProgramStep>* steps{nullptr};
    std::size_t deferred{0};
  };
  // The phases of `runs` sent together, with no barrier between them (the
  // Lids and Lfts phases where no LID moves: ProgramDiff::lidsKept); each
  // reported as a phase of its own (PROG-0301). Their replies, by run.
  [[nodiscard]] Result<std::vector<std::vector<SmpReply>>> runWave(std::span<const PhaseRun> runs,
                                                                   ProgramSummary& summary);
  void reportPhase(const PhaseRun& run, const std::vector<SmpReply>& replies,
                   std::uint64_t transmissions, std::chrono::microseconds duration,
                   ProgramSummary& summary);
  [[nodiscard]] Result<std::vector<SmpReply>> runPhase(ProgramPhase phase,
                                                       const std::vector<ProgramStep>& steps,
                                                       std::size_t deferred,
                                                       ProgramSummary& summary);
  void record(ProgramPhase phase, const ProgramStep& step, const SmpReply& reply,
              ProgramSummary& summary);
  [[nodiscard]] Result<void> writePhases(const ProgramDiff& d, std::span<const ProgramPhase> phases,
                                         ProgramSummary& summary, Holds& holds);
  [[nodiscard]] Result<void> writeTables(const ProgramDiff& d, ProgramSummary& summary,
                                         Holds& holds);
  [[nodiscard]] Result<void> clearPortStateChanges(ProgramSummary& summary, const Holds& holds);
  [[nodiscard]] Result<void> changeLinkStates(const ProgramDiff& d, ProgramSummary& summary,
                                              Holds& holds);
  void noteFailure(ProgramPhase phase, const ProgramStep& step, Holds& holds) const;
  void logTotals(const ProgramSummary& summary);
  // One PROG-0307 line for every port that kept its enforcement bits.
  void logQuirks(const ProgramSummary& summary) const;
  static constexpr std::size_t kQuirkExamples = 3;

  MadEngine& engine_;
  HeldSubnet& held_;
  ProgramOptions options_;
  std::shared_ptr<spdlog::logger> log_;
};

}  // namespace ibsm::sm::program
