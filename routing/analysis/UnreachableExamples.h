// The few unreachable pairs a report shows, chosen alike whatever the
// number of threads that walked the tables: per reason, the first
// destinations (in ForwardingView::destinations() order) with a source that
// cannot reach them, each with its first such source switch. Workers note
// candidates as they go (two integers each); the examples are traced and
// named once, after the workers' candidates are merged.
//
//   ExampleCandidates mine;                       // one per worker
//   mine.offer(reason, {destinationIndex, s});    // the first s of a LID per reason
//   all.merge(mine);                              // any order
//   report.unreachableExamples = unreachableExamples(view, all);
#pragma once

#include <ibsm/Report.h>

#include <array>
#include <cstdint>
#include <vector>

#include "routing/analysis/ForwardingView.h"

namespace ibsm::analysis {

struct ExampleAt {
  std::uint32_t destination{0};  // index into ForwardingView::destinations()
  SwitchIndex from{kNoSwitch};   // the source switch
};

class ExampleCandidates {
 public:
  // Keeps the candidate when it is among the first kMaxExamples of its
  // reason by destination; a destination offers at most once per reason.
  void offer(UnreachableReason reason, ExampleAt at);
  void merge(const ExampleCandidates& other);
  const std::vector<ExampleAt>& of(UnreachableReason reason) const {
    return byReason_[static_cast<std::size_t>(reason)];
  }

 private:
  std::array<std::vector<ExampleAt>, kUnreachableReasons> byReason_;
};

// Up to RouteReport::kMaxExamples examples, round-robin over the reasons so
// that the few shown cover every reason that occurred.
std::vector<UnreachableExample> unreachableExamples(const ForwardingView& view,
                                                    const ExampleCandidates& candidates);

}  // namespace ibsm::analysis
