#include "sm/sa/FairQueue.h"

#include <algorithm>

namespace ibsm::sm::sa {

Requester Requester::of(const GmpAddress& from) {
  // With a GRH the GID names the port wherever the MAD came from; the LID
  // and QP then add nothing (and a router may rewrite the LID).
  if (from.gid) return Requester{.gid = from.gid, .lid = {}, .qpn = 0};
  return Requester{.gid = std::nullopt, .lid = from.lid, .qpn = from.qpn};
}

FairQueue::FairQueue(FairQueueLimits limits) {
  setLimits(limits);
}

void FairQueue::setLimits(FairQueueLimits limits) {
  // The config refuses both (Config.h); a caller's zero still queues one.
  limits_.perRequester = std::max<std::size_t>(limits.perRequester, 1);
  limits_.total = std::max(limits.total, limits_.perRequester);
  for (auto& [who, mine] : queues_) {
    while (mine.size() > limits_.perRequester) {
      mine.pop_front();
      --size_;
      ++counters_.droppedRequesterFull;
    }
  }
  while (size_ > limits_.total) {
    const auto longest = std::ranges::max_element(
        queues_, {}, [](const auto& entry) { return entry.second.size(); });
    longest->second.pop_front();
    --size_;
    ++counters_.droppedTotalFull;
    if (longest->second.empty()) forget(longest->first);
  }
}

void FairQueue::push(const ReceivedGmp& gmp, std::chrono::steady_clock::time_point now) {
  const Requester who = Requester::of(gmp.from);
  auto it = queues_.find(who);
  const bool added = it == queues_.end();
  if (added && !spareQueues_.empty()) {
    auto node = std::move(spareQueues_.back());
    spareQueues_.pop_back();
    node.key() = who;
    it = queues_.insert(std::move(node)).position;
  } else if (added) {
    it = queues_.try_emplace(who).first;
  }
  std::deque<QueuedGmp>& mine = it->second;
  if (mine.size() >= limits_.perRequester) {
    mine.pop_front();
    --size_;
    ++counters_.droppedRequesterFull;
  } else if (size_ >= limits_.total) {
    dropFromLongest(who);
  }
  QueuedGmp& queued = mine.emplace_back();
  if (!spareBuffers_.empty()) {
    queued.gmp.mad = std::move(spareBuffers_.back());
    spareBuffers_.pop_back();
  }
  queued.gmp.mad.assign(gmp.mad.begin(), gmp.mad.end());
  queued.gmp.from = gmp.from;
  queued.at = now;
  ++size_;
  ++counters_.queued;
  counters_.largestEver = std::max(counters_.largestEver, mine.size());
  if (added) turns_.push_back(who);
}

void FairQueue::dropFromLongest(const Requester& pushing) {
  const auto longest =
      std::ranges::max_element(queues_, {}, [](const auto& entry) { return entry.second.size(); });
  // Never the one being pushed to while it is empty: the total is at least
  // perRequester, so a full total has a non-empty queue somewhere.
  longest->second.pop_front();
  --size_;
  ++counters_.droppedTotalFull;
  // The requester being pushed to keeps its place (its request follows).
  if (longest->second.empty() && longest->first != pushing) forget(longest->first);
}

void FairQueue::forget(Requester who) {
  std::erase(turns_, who);
  if (const auto it = queues_.find(who); it != queues_.end()) release(it);
}

void FairQueue::release(std::map<Requester, std::deque<QueuedGmp>>::iterator it) {
  if (spareQueues_.size() < kSpares) {
    spareQueues_.push_back(queues_.extract(it));
  } else {
    queues_.erase(it);
  }
}

void FairQueue::recycle(QueuedGmp&& served) {
  // Buffers of one MAD only: a reassembled RMPP request's larger one goes.
  constexpr std::size_t kKeepBytes = 256;
  if (spareBuffers_.size() < kSpares && served.gmp.mad.capacity() <= kKeepBytes) {
    served.gmp.mad.clear();
    spareBuffers_.push_back(std::move(served.gmp.mad));
  }
}

std::optional<QueuedGmp> FairQueue::pop() {
  if (turns_.empty()) return std::nullopt;
  const Requester who = turns_.front();
  turns_.pop_front();
  const auto it = queues_.find(who);
  QueuedGmp next = std::move(it->second.front());
  it->second.pop_front();
  --size_;
  if (it->second.empty()) {
    release(it);
  } else {
    turns_.push_back(who);  // its next request after everyone else's
  }
  return next;
}

std::size_t FairQueue::largest() const {
  std::size_t most = 0;
  for (const auto& [who, queue] : queues_) most = std::max(most, queue.size());
  return most;
}

}  // namespace ibsm::sm::sa
