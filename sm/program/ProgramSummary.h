// What one programming run did, as typed counters: for the sweep's result
// and log line, `ibsm status`, tests and benchmarks, and the decision
// whether the subnet is fully up. Failures are listed in words an operator
// can act on; each failed object stays dirty and is sent again by the next run.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sm/program/ProgramSteps.h"
#include "sm/program/TableKinds.h"

namespace ibsm::sm::program {

struct PhaseReport {
  bool ran{false};
  std::size_t requests{0};               // SMPs the phase submitted, one per object
  PerKind<std::size_t> tableRequests{};  // of which Gets or Sets of each table kind
  std::uint64_t transmissions{0};        // on the wire, retries included
  std::size_t failures{0};               // timeouts after all retries, error statuses
  std::size_t deferred{0};               // held back because an earlier step failed
  std::chrono::microseconds duration{0};
};

// Blocks of one table kind (SL2VL: whole tables) answered by a Get or
// acknowledged by a Set.
struct TableCounts {
  std::size_t read{0};
  std::size_t written{0};
};

struct ProgramSummary {
  std::array<PhaseReport, kProgramPhases> phases{};
  PerKind<TableCounts> tables{};
  std::size_t topsWritten{0};      // SwitchInfo Sets acknowledged
  std::size_t portsConfigured{0};  // PortInfo Sets of the SM-LID and LID phases acknowledged
  std::size_t portsKeyed{0};       // of those phases, Sets of the M_Key protection only
  std::size_t portsArmed{0};
  std::size_t portsActivated{0};
  std::size_t quirksLearned{0};  // ports found to ignore partition enforcement
  // The first few of them, for the one log line that names them (PROG-0307).
  std::vector<std::string> quirkExamples;
  // PortInfo Sets refused on a retry that the port, read back, holds
  // (RetriedSets.h): counted done, not failed.
  std::size_t retriedSetsHeld{0};
  // Table blocks read ahead (ReadAhead.h) and answered: not in the
  // ReadTables phase's report, in the tables' read counts.
  std::size_t readAhead{0};
  std::size_t readAheadAsked{0};          // Gets read ahead, answered or not: in requests()
  std::vector<std::string> failures;      // one line per failed or deferred object
  std::vector<std::string> notes;         // what the planner left alone, and why
  std::optional<ProgramPhase> stoppedAt;  // a phase whose failure ends the run early

  const PhaseReport& phase(ProgramPhase p) const { return phases[static_cast<std::size_t>(p)]; }
  PhaseReport& phase(ProgramPhase p) { return phases[static_cast<std::size_t>(p)]; }
  const TableCounts& table(TableKind k) const { return tables[k]; }
  std::size_t requests() const;
  std::size_t requests(TableKind kind) const;  // SMPs of that kind, reads and writes
  std::size_t failed() const;                  // failed and deferred writes
  std::chrono::microseconds duration() const;
  // Everything the plan asked for is in place.
  bool complete() const { return !stoppedAt && failed() == 0; }
};

}  // namespace ibsm::sm::program
