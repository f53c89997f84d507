// Reads a programming pass makes whatever the plan says, sent while the
// plan is computed and diffed instead of after (issue 32). After a
// takeover or a restart every PKey table that holds a LID or an M_Key is
// Unknown (HeldSubnet.h), and diff() reads each of its blocks before the
// first write: at radix 24, 14,544 Gets that waited ~400 ms of planning
// and diffing with the wire idle, then took ~250 ms of their own. Which
// blocks those are depends only on the observation, not on the plan: a
// port's table is read when the partition planner can list it -- an end
// port (CA port, switch port 0) or a switch port cabled to one, whose
// table SwitchInfo:PartitionEnforcementCap sizes -- and its block is
// Unknown. A plan that lists fewer ports (partitions.conf naming some)
// leaves those blocks read and unused: a read never changes a device.
//
//   auto ahead = ReadAhead::start(engine, held);   // Gets on their way
//   ... plan, while serving the engine's loop ...
//   programmer.program(plan, ahead.get());          // diffs while they fly
//
// The Gets go out kAhead ahead of the wire (the next from each completion,
// so the first are sent while the rest are made), the replies kept
// here until SubnetProgrammer applies them to the held subnet: nothing
// else changes `held` meanwhile, so the diff can read it on another
// thread. The callbacks own the object (shared), so it may be dropped with
// Gets still in flight (a failed plan); the engine's next run ends them.
#pragma once

#include <memory>
#include <vector>

#include "sm/mad/MadEngine.h"
#include "sm/program/HeldSubnet.h"
#include "sm/program/ProgramOptions.h"
#include "sm/program/ProgramSteps.h"

namespace ibsm::sm::program {

// The Gets of every Unknown PKey block of the ports described above, one
// block of each port in turn (the first block of every port, then the
// second...), so a window paced per node spreads over the nodes.
std::vector<ProgramStep> pkeyReadsAhead(const HeldSubnet& held);

// A read still worth sending: the block it reads is not known (no read
// ahead answered it, nor failed and left it Stale).
bool stillUnknown(const HeldSubnet& held, const ProgramStep& step);

class ReadAhead : public std::enable_shared_from_this<ReadAhead> {
 public:
  static constexpr std::size_t kAhead = 4096;  // more than any window the engine keeps

  // Null when there is nothing to read ahead.
  [[nodiscard]] static std::shared_ptr<ReadAhead> start(MadEngine& engine, const HeldSubnet& held,
                                                        ProgramOptions options = {});

  std::size_t size() const { return steps_.size(); }
  std::size_t completed() const { return completed_; }
  bool done() const { return completed_ == steps_.size(); }
  // In submission order; a reply is meaningful once done().
  const std::vector<ProgramStep>& steps() const { return steps_; }
  const std::vector<SmpReply>& replies() const { return replies_; }

  ReadAhead(MadEngine& engine, const HeldSubnet& held, ProgramOptions options,
            std::vector<ProgramStep> steps);

 private:
  void submitNext();

  MadEngine& engine_;
  const HeldSubnet& held_;
  ProgramOptions options_;
  std::vector<ProgramStep> steps_;
  std::vector<SmpReply> replies_;
  std::size_t next_{0};
  std::size_t completed_{0};
};

}  // namespace ibsm::sm::program
