// What one programming run did, for the sweep's log line, counters and
// the decision whether the subnet is fully up. Failures are listed in
// words an operator can act on; each failed object stays dirty and is sent
// again by the next run.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ProgramPlan.h"

namespace ibsm::sm {

struct PhaseReport {
  bool ran{false};
  std::size_t requests{0};         // SMPs the phase submitted, one per object
  std::size_t pkeyRequests{0};     // of which PKeyTable Gets or Sets
  std::size_t sl2vlRequests{0};    // of which SLtoVLMappingTable Gets or Sets
  std::uint64_t transmissions{0};  // on the wire, retries included
  std::size_t failures{0};         // timeouts after all retries, error statuses
  std::size_t deferred{0};         // held back because an earlier step failed
  std::chrono::microseconds duration{0};
};

struct ProgramSummary {
  std::array<PhaseReport, kPhaseCount> phases{};
  std::size_t blocksRead{0};
  std::size_t blocksWritten{0};
  std::size_t topsWritten{0};         // SwitchInfo Sets
  std::size_t pkeyBlocksRead{0};      // PKeyTable Gets answered
  std::size_t pkeyBlocksWritten{0};   // PKeyTable Sets acknowledged
  std::size_t sl2vlTablesRead{0};     // SLtoVLMappingTable Gets answered
  std::size_t sl2vlTablesWritten{0};  // SLtoVLMappingTable Sets acknowledged
  std::size_t portsConfigured{0};     // PortInfo Sets of the SM-LID and LID phases
  std::size_t portsArmed{0};
  std::size_t portsActivated{0};
  std::vector<std::string> failures;  // one line per failed or deferred object
  std::vector<std::string> notes;     // what the planner left alone, and why
  std::optional<Phase> stoppedAt;     // a phase whose failure ends the run early

  const PhaseReport& phase(Phase p) const { return phases[static_cast<std::size_t>(p)]; }
  PhaseReport& phase(Phase p) { return phases[static_cast<std::size_t>(p)]; }
  std::size_t requests() const;
  std::size_t failed() const;         // failed and deferred writes
  std::size_t pkeyRequests() const;   // PKeyTable SMPs of all phases (reads and writes)
  std::size_t sl2vlRequests() const;  // SLtoVLMappingTable SMPs of all phases
  std::chrono::microseconds duration() const;
  // Everything the plan asked for is in place.
  bool complete() const { return !stoppedAt && failed() == 0; }
};

}  // namespace ibsm::sm
