// A FIFO (with a way back in at the front, for retries) held in one ring
// of slots, for the requests the Requester (sm/mad/Requester.h) queues and
// the ones NodeQueues makes ready. A std::deque there allocated a 512-byte
// block for every two of the requester's entries (~230 bytes each): a
// malloc and a free for every two SMPs queued, on each queue an SMP
// passed (issue 32). The ring allocates only to grow (doubling), so once
// it has grown, queueing costs no allocation. Emptied while larger than
// kKept slots it gives its storage back: a whole fabric's LFT blocks may
// be queued at once, and that high-water mark is not kept for good.
//
//   RingQueue<Entry> q;
//   q.push_back(a); q.push_back(b); q.push_front(retry);   // retry, a, b
//   Entry first = std::move(q.front()); q.pop_front();
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace ibsm::sm::mad {

template <typename T>
class RingQueue {
 public:
  // Slots kept when the queue empties; past it the storage goes.
  static constexpr std::size_t kKept = 1024;

  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  // Slots allocated: what the queue holds without allocating.
  std::size_t capacity() const { return slots_.size(); }

  T& front() { return *slots_[head_]; }
  void push_back(T value) {
    grow();
    slots_[(head_ + count_) & mask()].emplace(std::move(value));
    ++count_;
  }
  void push_front(T value) {
    grow();
    head_ = (head_ + slots_.size() - 1) & mask();
    slots_[head_].emplace(std::move(value));
    ++count_;
  }
  void pop_front() {
    slots_[head_].reset();
    head_ = (head_ + 1) & mask();
    if (--count_ == 0) emptied();
  }
  void clear() {
    while (!empty()) pop_front();
  }

 private:
  static constexpr std::size_t kFirst = 16;  // a power of 2, as every size after it

  std::size_t mask() const { return slots_.size() - 1; }

  void grow() {
    if (count_ < slots_.size()) return;
    std::vector<std::optional<T>> bigger(std::max(kFirst, 2 * slots_.size()));
    for (std::size_t i = 0; i < count_; ++i) bigger[i] = std::move(slots_[(head_ + i) & mask()]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  void emptied() {
    head_ = 0;
    if (slots_.size() > kKept) std::vector<std::optional<T>>().swap(slots_);
  }

  std::vector<std::optional<T>> slots_;
  std::size_t head_{0};
  std::size_t count_{0};
};

}  // namespace ibsm::sm::mad
