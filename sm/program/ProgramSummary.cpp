#include "sm/program/ProgramSummary.h"

namespace ibsm::sm::program {

std::size_t ProgramSummary::requests() const {
  std::size_t n = readAheadAsked;
  for (const PhaseReport& p : phases) n += p.requests;
  return n;
}

std::size_t ProgramSummary::requests(TableKind kind) const {
  std::size_t n = kind == TableKind::PKey ? readAheadAsked : 0;  // ReadAhead.h reads PKeys only
  for (const PhaseReport& p : phases) n += p.tableRequests[kind];
  return n;
}

std::size_t ProgramSummary::failed() const {
  std::size_t n = 0;
  // A failed read costs nothing: the block is not known, so it is written.
  // Nor does a PortStateChange left set: the next light sweep reads the
  // switch's ports once more and clears it.
  for (std::size_t i = 0; i < kProgramPhases; ++i) {
    const auto phase = static_cast<ProgramPhase>(i);
    if (phase == ProgramPhase::ReadTables || phase == ProgramPhase::PortStateChange) continue;
    n += phases[i].failures + phases[i].deferred;
  }
  return n;
}

std::chrono::microseconds ProgramSummary::duration() const {
  std::chrono::microseconds total{0};
  for (const PhaseReport& p : phases) total += p.duration;
  return total;
}

}  // namespace ibsm::sm::program
