// The fake fabric's latency model (FakeFabricTransport::setServiceTimes):
// each node's SMA answers one SMP at a time, in order of arrival, taking a
// service time per SMP that depends on the node's kind; an SMP arriving
// while its node is busy waits behind the ones already there. Time is the
// fake fabric's clock, never the wall's.
//
// A model, not a measurement: IBA 13.4 (Management Model) gives each node
// one Subnet Management Agent, reached through QP0, that processes the SMPs
// addressed to it; a switch's SMA runs on its management processor, which
// handles them one after another in tens to hundreds of microseconds (an
// LFT block write among the slowest). Nothing in the IBA requires an SMA to
// answer requests concurrently, so the model takes the least it may do: one
// at a time, first come first served.
//
//   FakeSmaService sma;
//   sma.setTimes({.switchSmp = 50us, .caSmp = 10us});
//   auto answeredAt = sma.serve(node, isSwitch, now);   // now when the times are 0
#pragma once

#include <ibsm/Ids.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "sm/mad/MadTransport.h"

namespace ibsm::testing {

class FakeSmaService {
 public:
  struct Times {
    std::chrono::microseconds switchSmp{0};  // a switch's SMA, per SMP
    std::chrono::microseconds caSmp{0};      // a CA's (an HCA's firmware), per SMP
  };

  void setTimes(Times times) { times_ = times; }
  const Times& times() const { return times_; }

  // An SMP reaching `node` at `now`: when its SMA is done with it (and
  // answers). With no service time for the node's kind, `now`: no queue.
  MadClock::time_point serve(NodeId node, bool isSwitch, MadClock::time_point now) {
    const auto service = isSwitch ? times_.switchSmp : times_.caSmp;
    if (service.count() == 0) return now;
    if (node >= queues_.size()) {
      queues_.resize(node + 1);
      smps_.resize(node + 1, 0);
    }
    auto& queue = queues_[node];  // when each SMP there is done
    while (!queue.empty() && queue.front() <= now) queue.pop_front();
    const auto start = queue.empty() ? now : queue.back();
    queue.push_back(start + service);
    deepest_ = std::max(deepest_, queue.size());
    ++smps_[node];
    return start + service;
  }

  // The most SMPs one node held at once (in service and waiting).
  std::size_t deepestQueue() const { return deepest_; }
  // SMPs each node served (by NodeId; nodes never served may be missing).
  const std::vector<std::uint64_t>& smpsPerNode() const { return smps_; }
  // Forgets the counts (not the queues).
  void resetCounts() {
    deepest_ = 0;
    std::fill(smps_.begin(), smps_.end(), 0);
  }

 private:
  Times times_;
  std::vector<std::deque<MadClock::time_point>> queues_;
  std::vector<std::uint64_t> smps_;
  std::size_t deepest_{0};
};

}  // namespace ibsm::testing
