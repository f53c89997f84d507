// The SA's receive queue: one bounded FIFO per requester, served round-robin,
// so that a host sending PathRecords or joins as fast as it can waits behind
// its own requests, never in front of another host's.
//
//   FairQueue queue({.perRequester = 16, .total = 4096});   // sa.queue_per_requester,
//   sa.queue_total queue.push(gmp, now);                           // may drop that requester's
//   oldest while (auto next = queue.pop()) answer(next->gmp);   // one requester, then the next
//
// A requester is the port GID of the GRH when the MAD carried one, else its
// source LID and QP (two processes of one host on different QPs are two
// requesters; the IBA gives the SA nothing better to tell them apart by).
//
// Full queues drop the oldest request, unanswered. Why not answer it busy
// (the MAD status' Busy bit, IBA 13.4.7) or ERR_NO_RESOURCES: an answer is
// what costs the SA under a flood (a send per MAD), so a refusal must cost
// less than the answer it saves, and the requester's own timer (RespTimeValue
// from ClassPortInfo) covers a dropped request exactly as it covers one lost
// on the wire. The oldest goes because it is the one its requester is closest
// to giving up on. When the total is full the oldest request of the longest
// queue goes: whoever uses the most pays.
//
// Round-robin takes one request per requester per turn, whatever it costs
// (a GetTable is dearer than a PathRecord Get); per-requester caps and
// sa.max_records bound what one turn can cost. Not thread-safe: the daemon's
// one thread pushes and pops.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "sm/mad/Gmp.h"
#include "sm/sa/SaCounters.h"

namespace ibsm::sm::sa {

// The defaults of sa.queue_per_requester and sa.queue_total (Config.h).
struct FairQueueLimits {
  std::size_t perRequester{16};  // requests one requester may have waiting
  std::size_t total{4096};       // requests waiting in all: memory stays bounded
  auto operator<=>(const FairQueueLimits&) const = default;
};

// Where a request came from, as the queue tells requesters apart.
struct Requester {
  std::optional<Gid> gid;
  Lid lid{};
  std::uint32_t qpn{0};
  auto operator<=>(const Requester&) const = default;
  static Requester of(const GmpAddress& from);
};

struct QueuedGmp {
  ReceivedGmp gmp;
  std::chrono::steady_clock::time_point at;  // when it was queued
};

class FairQueue {
 public:
  explicit FairQueue(FairQueueLimits limits = {});

  // Queues `gmp` behind its requester's earlier ones, dropping (counted)
  // what the limits say must go.
  void push(const ReceivedGmp& gmp, std::chrono::steady_clock::time_point now);
  // The next request: the oldest of the requester whose turn it is.
  std::optional<QueuedGmp> pop();
  // A request popped and served: its buffer is kept for a later push, so
  // that a steady flow of queries allocates nothing here (issue 32).
  void recycle(QueuedGmp&& served);
  // New limits (a reload): what waits past them now is dropped at once, by
  // the rules push() follows (a requester's oldest first, then the longest
  // queue's), counted the same, so memory is bounded by the new limits from
  // this call on.
  void setLimits(FairQueueLimits limits);

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // Requesters with requests waiting now, and the longest one's queue.
  std::size_t requesters() const { return queues_.size(); }
  std::size_t largest() const;
  const FairQueueCounters& counters() const { return counters_; }
  const FairQueueLimits& limits() const { return limits_; }

 private:
  void dropFromLongest(const Requester& pushing);
  void forget(Requester who);  // its queue is empty: out of the turns (a copy: its key dies)
  // An empty queue leaves the map; its node (and the deque's own block) is
  // kept for the next requester, up to kSpares of them.
  void release(std::map<Requester, std::deque<QueuedGmp>>::iterator it);

  static constexpr std::size_t kSpares = 16;

  FairQueueLimits limits_;
  std::map<Requester, std::deque<QueuedGmp>> queues_;
  std::deque<Requester> turns_;  // requesters with something queued, whose turn first
  std::size_t size_{0};
  FairQueueCounters counters_;
  std::vector<std::map<Requester, std::deque<QueuedGmp>>::node_type> spareQueues_;
  std::vector<std::vector<std::uint8_t>> spareBuffers_;
};

}  // namespace ibsm::sm::sa
