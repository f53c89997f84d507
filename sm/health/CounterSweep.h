// The performance manager's pass: reads the port counters of every linked
// port of the last swept Fabric through a PerfRequester, turns each
// reading into deltas and totals (advance(), CounterDeltas.h), clears the
// counters that saturated, and keeps what it learnt for the next pass and
// for the HealthView. Asynchronous: start() submits, the requester's
// callbacks carry each node through its steps, and `done` runs when the
// pass's last GMP completed.
//
// Per node: ClassPortInfo, once (cached by node GUID; read again for a new
// node or after its counters went down by themselves, a reboot); then,
// where AllPortSelect is supported, the switch-wide sum, and the ports one
// by one when the sum's error counters moved, or when a port's reading is
// older than the sum's last move or than kRefreshPasses (portMayBeSpared,
// CounterPlan.h); then
// per port PortCounters, and PortCountersExtended where supported; then a
// PortCounters Set with CounterSelect for the counters that saturated.
//
//   CounterSweep counters(perf, {.steady = loop.clock(), .wall = &system_clock::now});
//   counters.start(fabric, [&] { countersRead(); });
//   counters.fillFigures(health);   // health.counterSweep; counters.lastPassPorts(): the ports
#pragma once

#include <ibsm/Fabric.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sm/health/CounterPlan.h"
#include "sm/health/HealthView.h"
#include "sm/health/PerfRequester.h"

namespace ibsm::sm::health {

struct CounterSweepClocks {
  std::function<MadClock::time_point()> steady;                 // the engine's: rates, durations
  std::function<std::chrono::system_clock::time_point()> wall;  // what the view shows
  // A port out of the fabric this long is forgotten, its totals with it:
  // the memory is bounded by the fabric now, not by every port ever seen.
  // A cable pulled and put back within it keeps its totals.
  std::chrono::seconds forgetAfter{600};
};

class CounterSweep {
 public:
  CounterSweep(PerfRequester& perf, CounterSweepClocks clocks);
  ~CounterSweep();
  CounterSweep(const CounterSweep&) = delete;
  CounterSweep& operator=(const CounterSweep&) = delete;

  // Starts a pass over `fabric` (its LIDs as programmed); `done` runs once,
  // from a requester callback, when every GMP of the pass completed. False
  // when a pass is still running (nothing started).
  bool start(const Fabric& fabric, std::function<void()> done);
  bool running() const { return pass_ != nullptr; }

  const CounterSweepFigures& figures() const { return figures_; }
  // Ports remembered (read at least once, not forgotten yet).
  std::size_t remembered() const { return memory_.size(); }
  bool remembers(const PortKey& port) const { return memory_.contains(port); }
  // The ports of the last finished pass, in fabric order: how many, each
  // in turn (no copy), or a copy.
  std::size_t portsRead() const { return lastPass_.size(); }
  template <typename F>
  void forEachPort(F&& f) const {
    for (const PortKey& key : lastPass_) f(memory_.at(key).view);
  }
  std::vector<PortCounterView> lastPassPorts() const;
  // HealthView::counterSweep (enabled and interval are the daemon's: left
  // as they are); the ports are lastPassPorts().
  void fillFigures(HealthView& view) const;

 private:
  // The view holds the last reading and the totals: the state advance()
  // needs is made from it (portRead), not kept twice.
  struct PortMemory {
    PortCounterView view;
    CounterSet resetAfterLast{};  // cleared by our Set after view.last was read
    MadClock::time_point readAt{};
    std::uint64_t readPass{0};  // the pass that read view.last
  };
  // A switch's last sum, and the pass where it last moved: the ports read
  // since then are the ones it vouches for.
  struct NodeSum {
    PortReading sum;
    std::uint64_t movedPass{0};
  };
  struct Pass;
  struct PortRead;

  void startNode(std::size_t node);
  void readSum(std::size_t node);
  void readPorts(std::size_t node);
  void readPortsNotSpared(std::size_t node, std::uint64_t sumMovedPass);
  void readPort(const CounterTarget& target, bool extended);
  void portRead(const PortRead& read);
  void resetCounters(const CounterTarget& target, const CounterSet& counters);
  // One outstanding GMP of the pass less; the pass ends at none.
  void settle();
  void finish();
  void forgetGone(const Pass& pass);

  PerfRequester& perf_;
  CounterSweepClocks clocks_;
  std::unique_ptr<Pass> pass_;
  std::unordered_map<Guid, PerfClassPortInfo> classPortInfo_;
  std::unordered_map<Guid, NodeSum> sums_;
  std::uint64_t passNumber_{0};  // of the pass running or last run; the first is 1
  std::map<PortKey, PortMemory> memory_;
  std::vector<PortKey> lastPass_;  // the ports the last finished pass read, in fabric order
  CounterSweepFigures figures_;
};

}  // namespace ibsm::sm::health
