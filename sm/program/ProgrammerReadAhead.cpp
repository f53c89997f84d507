// SubnetProgrammer's side of a read ahead (ReadAhead.h): the diff made off
// the loop while the engine serves the reads, then their replies taken in.
#include <chrono>
#include <future>

#include "sm/mad/ServeInLooks.h"
#include "sm/program/Diff.h"
#include "sm/program/ReadAhead.h"
#include "sm/program/SubnetProgrammer.h"

namespace ibsm::sm::program {

Result<ProgramDiff> SubnetProgrammer::diffServing(const SubnetPlan& plan, ReadAhead& ahead,
                                                  ProgramSummary& summary) {
  // The held subnet does not change until the reads are recorded below:
  // the loop thread only keeps their replies meanwhile (ReadAhead.h), and
  // reads it to make each Get; the M_Key memo (HeldSubnet::keyCache) is
  // the diff's alone.
  auto job = std::async(std::launch::async,
                        [&] { return diff(plan, held_, options_, DiffScope::Program); });
  const auto ready = [&job] {
    return job.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  };
  if (auto served = serveInLooks(engine_, ready,
                                 [&job](std::chrono::microseconds most) { job.wait_for(most); });
      !served) {
    job.wait();
    return std::unexpected(served.error());
  }
  if (auto idle = engine_.runUntilIdle(); !idle) return std::unexpected(idle.error());
  // A read ahead that failed is a failed read (PROG-0308): HeldSubnet
  // takes its block as Stale, so it is written unread, not asked again.
  const auto& steps = ahead.steps();
  summary.readAheadAsked = steps.size();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    record(ProgramPhase::ReadTables, steps[i], ahead.replies()[i], summary);
    if (ahead.replies()[i].ok()) ++summary.readAhead;
  }
  log_->info(
      "PROG-0312 {} table blocks read while the plan was made ({} unanswered: written unread)",
      summary.readAhead, steps.size() - summary.readAhead);
  return job.get();
}

}  // namespace ibsm::sm::program
