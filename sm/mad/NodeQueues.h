// Pacing per destination node for the Requester (sm/mad/Requester.h): at
// most `perNode` requests in the window to one node, the rest held in that
// node's own FIFO until one of its requests leaves the window. A node's
// management processor answers one SMP at a time (IBA 13.4: one SMA per
// node, processing in order of arrival); a window piled on one switch only
// lengthens its queue while the others idle.
//
// Held requests never block others: the Requester moves a request whose
// node is full out of its queue into the node's list (once, O(1)), and goes
// on with the next. When a node's request leaves the window, the head of
// its list is made ready, and ready requests go out before the Requester's
// queue: FIFO per node, and nodes served in the order they freed a place
// (round robin among the busy ones). No scan of the window or the queue.
//
//   NodeQueues<Entry> nodes(2);
//   if (!nodes.hasRoom(n)) nodes.hold(std::move(e), n); else { nodes.take(n); send(e); }
//   nodes.give(n);                  // one of n's left the window
//   while (nodes.hasReady()) ... nodes.popReady() ...
//
// perNode 0: no limit, and every call is a no-op (no look-up per request).
// Held requests live in one pool of slots, linked per node; the pool is
// given back once nothing is held (a whole fabric's LFT blocks may be held
// at once during programming: not kept for good).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sm/mad/RingQueue.h"

namespace ibsm::sm::mad {

template <typename Entry>
class NodeQueues {
 public:
  explicit NodeQueues(std::size_t perNode) : perNode_(perNode) {}

  bool limited() const { return perNode_ != 0; }
  std::size_t perNode() const { return perNode_; }

  // Room for one more request to `node` in the window.
  bool hasRoom(std::uint64_t node) const {
    if (!limited()) return true;
    auto it = nodes_.find(node);
    return it == nodes_.end() || it->second.inWindow < perNode_;
  }
  // A request to `node` entered the window.
  void take(std::uint64_t node) {
    if (limited()) ++nodes_[node].inWindow;
  }
  // A request to `node` left the window (answered, timed out, or past its
  // hold): the next one held for the node becomes ready.
  void give(std::uint64_t node) {
    if (!limited()) return;
    auto it = nodes_.find(node);
    if (it == nodes_.end()) return;
    Node& n = it->second;
    if (n.inWindow > 0) --n.inWindow;
    if (n.head != kNone) ready_.push_back(unlink(n));
  }
  // Waits for room at `node`: at the back of its list, or at the front
  // (a retry, or a ready request that lost its place to one).
  void hold(Entry e, std::uint64_t node, bool first = false) {
    const std::uint32_t s = slot(std::move(e));
    Node& n = nodes_[node];
    if (n.head == kNone) {
      n.head = n.tail = s;
    } else if (first) {
      pool_[s].next = n.head;
      n.head = s;
    } else {
      pool_[n.tail].next = s;
      n.tail = s;
    }
    ++held_;
  }

  bool hasReady() const { return !ready_.empty(); }
  Entry popReady() {
    Entry e = std::move(ready_.front());
    ready_.pop_front();
    return e;
  }
  // Requests held or ready: queued, not yet sent.
  std::size_t waiting() const { return held_ + ready_.size(); }
  // Of those, held for a node whose window is full.
  std::size_t held() const { return held_; }

  // Every request waiting, ready ones first, then each node's in order;
  // nothing is left waiting. Window counts stay.
  std::vector<Entry> drain() {
    std::vector<Entry> all;
    all.reserve(waiting());
    while (!ready_.empty()) all.push_back(popReady());
    for (auto& [key, n] : nodes_)
      while (n.head != kNone) all.push_back(unlink(n));
    return all;
  }
  // Forgets every window count (everything outstanding was completed).
  void clearWindow() { nodes_.clear(); }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFU;
  static constexpr std::size_t kKeptSlots = 1024;  // a pool this small is kept for the next
  struct Node {
    std::size_t inWindow{0};
    std::uint32_t head{kNone};
    std::uint32_t tail{kNone};
  };
  struct Slot {
    std::optional<Entry> entry;
    std::uint32_t next{kNone};
  };

  std::uint32_t slot(Entry e) {
    if (!free_.empty()) {
      const std::uint32_t s = free_.back();
      free_.pop_back();
      pool_[s] = Slot{.entry = std::move(e), .next = kNone};
      return s;
    }
    pool_.push_back(Slot{.entry = std::move(e), .next = kNone});
    return static_cast<std::uint32_t>(pool_.size() - 1);
  }

  Entry unlink(Node& n) {
    const std::uint32_t s = n.head;
    n.head = pool_[s].next;
    if (n.head == kNone) n.tail = kNone;
    Entry e = std::move(*pool_[s].entry);
    pool_[s].entry.reset();
    --held_;
    if (held_ == 0 && pool_.size() > kKeptSlots) {
      // Nothing held: a large pool (its high-water mark) goes.
      std::deque<Slot>().swap(pool_);
      std::vector<std::uint32_t>().swap(free_);
    } else if (held_ == 0) {
      pool_.clear();
      free_.clear();
    } else {
      free_.push_back(s);
    }
    return e;
  }

  std::size_t perNode_;
  std::unordered_map<std::uint64_t, Node> nodes_;
  // A deque: growing it never moves the requests held (a vector moved
  // every held request at each doubling -- a fabric's LFT blocks).
  std::deque<Slot> pool_;
  std::vector<std::uint32_t> free_;
  RingQueue<Entry> ready_;  // no allocation per request once grown
  std::size_t held_{0};
};

}  // namespace ibsm::sm::mad
