// The requester's queue (sm/mad/Requester.h): a FIFO that also takes a
// retry back at its head, kept in one ring of slots that grows when full and
// is never given back. A std::deque of the requester's entries (hundreds of
// bytes each: the request, its callback, its cached encoding) allocates a
// node for every entry pushed and frees it when popped -- one malloc and one
// free per SMP; the ring allocates only while the queue reaches a new
// high-water mark.
//
//   RequestRing<Entry> q;
//   q.push_back(std::move(e));
//   Entry next = q.take_front();   // the oldest
//   q.push_front(std::move(retry)); // waits at the head
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace ibsm::sm::mad {

template <typename T>
class RequestRing {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // The i-th from the front (i < size()).
  T& operator[](std::size_t i) { return *slots_[(head_ + i) % slots_.size()]; }
  // Slots held, used or not: what the ring has allocated for.
  std::size_t capacity() const { return slots_.size(); }

  void push_back(T value) {
    grow();
    slots_[(head_ + size_) % slots_.size()].emplace(std::move(value));
    ++size_;
  }
  void push_front(T value) {
    grow();
    head_ = (head_ + slots_.size() - 1) % slots_.size();
    slots_[head_].emplace(std::move(value));
    ++size_;
  }
  // Removes the oldest and returns it; its slot keeps nothing of it (a
  // callback's captures are released with the entry, not when the slot is
  // next used).
  T take_front() {
    std::optional<T>& slot = slots_[head_];
    T value = std::move(*slot);
    slot.reset();
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return value;
  }
  void clear() {
    while (!empty()) take_front();
  }

 private:
  static constexpr std::size_t kFirstCapacity = 16;

  void grow() {
    if (size_ < slots_.size()) return;
    std::vector<std::optional<T>> bigger(std::max(kFirstCapacity, 2 * slots_.size()));
    for (std::size_t i = 0; i < size_; ++i)
      bigger[i] = std::move(slots_[(head_ + i) % slots_.size()]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<std::optional<T>> slots_;
  std::size_t head_{0};
  std::size_t size_{0};
};

}  // namespace ibsm::sm::mad
