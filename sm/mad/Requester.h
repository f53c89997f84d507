// The one requester of the SM: a window of outstanding requests with a FIFO
// queue behind it, transaction ids, retries, per-attempt timeouts and
// cancel, written once for every MAD the SM asks and waits for: SMPs
// (MadEngine), PerfMgt GMPs (health::PerfRequester) and the SA's
// Report(Notice)s (sa::Reports). Each user keeps its own request and answer
// types and its wire; the requester never touches the wire itself. It is
// handed hooks (send, how long an attempt waits, how many attempts a
// request gets, where a request ends) and fed answers by TID (deliver) and
// the clock's progress (expire); it says when it wants to be woken next
// (nextDeadline, or the wakeAt hook).
//
// The window counts requests while their answer is due. A user may say
// when that is (the holds hook: a round trip learnt, shorter than a
// backed-off timeout): past it a request still waits for its answer and
// its timeout, but gives its place in the window to the next request, so
// SMPs lost on a lossy path do not stop others from going out meanwhile.
// A user may also say which node a request goes to (the node hook) and
// keep at most perNodeWindow of the window on one node: the rest wait in
// that node's own queue while requests to other nodes go out
// (sm/mad/NodeQueues.h).
// Requests waiting so are at most kWaitingPerWindow windows' worth: what
// is on the wire stays bounded (ibsim, whose sockets fill and block both
// ends, and a real fabric's management processors).
//
//   Requester<MyRequest, MyAnswer> r({.send = ..., .timeout = ..., .attempts = ...,
//                                     .complete = ..., .clock = ...}, {.window = 8});
//   r.submit(request);       // queued
//   r.pump();                // sends what the window has room for
//   r.deliver(tid, answer, /*badStatus=*/false);   // from the receive path, then pump()
//   r.expire();              // at r.nextDeadline(): retries, or Timeout
//
// TIDs: the lower 32 bits (the kernel owns the upper 32), unique while
// outstanding, never 0. A retry resends the same TID, so a late answer to
// an earlier attempt still completes the request; an answer to nothing
// outstanding is counted unmatched and dropped. Every request ends exactly
// once in the complete hook: answered (Ok, BadStatus), Timeout after its
// last attempt, SendFailed when the transport refused it, or cancelAll()'s
// outcome. Hooks may submit more; those only queue until the next pump().
//
// Once the window has been full, an outstanding request costs no allocation
// of its own: the map node of an answered or expired request is kept for
// the next one sent. Nor does a queued one once the queue has grown: the
// queue is a ring (sm/mad/RingQueue.h) that gives its storage back when it
// empties past its kept size -- a whole fabric's LFT blocks may be queued
// at once, 40 MB at radix 24, not kept for good.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sm/mad/MadTransport.h"
#include "sm/mad/NodeQueues.h"
#include "sm/mad/RequesterTypes.h"
#include "sm/mad/RingQueue.h"

namespace ibsm::sm::mad {

template <typename Request, typename Answer>
class Requester {
 public:
  using Hooks = RequesterHooks<Request, Answer>;
  // Outstanding requests past their hold, at most this many windows' worth.
  static constexpr std::size_t kWaitingPerWindow = 1;

  Requester(Hooks hooks, RequesterOptions options)
      : hooks_(std::move(hooks)),
        options_(options),
        nodes_(hooks_.node ? options.perNodeWindow : 0),
        lastTid_(options.firstTid - 1) {
    options_.window = std::max<std::size_t>(options_.window, 1);
    options_.perNodeWindow = nodes_.perNode();
  }
  Requester(const Requester&) = delete;
  Requester& operator=(const Requester&) = delete;

  // Queues a request; it goes out from the next pump().
  void submit(Request request) {
    const std::uint64_t node = nodes_.limited() ? hooks_.node(request) : 0;
    queue_.push_back(Entry{.request = std::move(request), .node = node});
  }

  // Sends from the queue, in order, while the window has room and the
  // requester is not paused; requests made ready by their node first, and
  // a request whose node is full is held for it (NodeQueues.h). A refused
  // send completes at once; hooks' submits are taken by this same loop.
  void pump() {
    if (pumping_) return;
    pumping_ = true;
    while (!paused_ && hasRoom() && (nodes_.hasReady() || !queue_.empty())) {
      const bool ready = nodes_.hasReady();
      Entry e = ready ? nodes_.popReady() : std::move(queue_.front());
      if (!ready) queue_.pop_front();
      if (const std::uint64_t node = e.node; !nodes_.hasRoom(node)) {
        nodes_.hold(std::move(e), node, /*first=*/ready);
        continue;
      }
      if (e.tid == 0) e.tid = nextTid();
      transmit(std::move(e));
    }
    pumping_ = false;
    rearm();
  }

  // An answer with `tid` (the lower 32 bits); `accepts` may refuse one
  // that does not fit the request (another attribute). True when it
  // completed an outstanding request; otherwise counted unmatched. The
  // window refills at the caller's next pump().
  template <typename Accepts>
  bool deliver(std::uint32_t tid, Answer answer, bool badStatus, Accepts&& accepts) {
    auto it = pending_.find(tid);
    if (it == pending_.end() || !accepts(std::as_const(it->second.entry.request))) {
      ++counters_.unmatched;
      return false;
    }
    Entry e = take(it);
    ++counters_.answered;
    if (badStatus) ++counters_.badStatus;
    finish(e, badStatus ? RequestOutcome::BadStatus : RequestOutcome::Ok, std::move(answer));
    return true;
  }
  bool deliver(std::uint32_t tid, Answer answer, bool badStatus) {
    return deliver(tid, std::move(answer), badStatus, [](const Request&) { return true; });
  }
  // An answer the user could not even read as one of its own.
  void countUnmatched() { ++counters_.unmatched; }

  // Retries, or fails as Timeout, what is past its deadline (in TID order:
  // deterministic), then fills the window again.
  void expire() {
    spent_ = true;  // the timer that called this is spent: always say what is next
    const auto now = hooks_.clock();
    // The TIDs due, in a buffer kept between calls (expire() runs after
    // every MAD read): taken, so a hook that ends in expire() again
    // cannot clear it under this loop.
    std::vector<std::uint32_t> due = std::move(due_);
    due.clear();
    for (auto& [tid, p] : pending_) {
      if (p.deadline <= now) due.push_back(tid);
      if (!p.released && p.holdUntil <= now) {
        p.released = true;  // still waits for its answer, but out of the window
        ++released_;
        nodes_.give(p.entry.node);
      }
    }
    std::ranges::sort(due);
    for (std::uint32_t tid : due) {
      auto it = pending_.find(tid);  // an earlier hook may have cancelled it
      if (it == pending_.end()) continue;
      Entry e = take(it);
      if (e.attempts < hooks_.attempts(e.request)) {
        retry(std::move(e));
        continue;
      }
      ++counters_.timedOut;
      finish(e, RequestOutcome::Timeout);
    }
    due_ = std::move(due);
    pump();
  }

  // Paused: nothing new is sent and retries wait at the queue's head
  // (keeping their TID); what is outstanding may still be answered.
  void pause(bool paused) {
    paused_ = paused;
    pump();
  }

  // Completes everything outstanding (by TID) and queued (in order) with
  // `outcome`; what hooks submit meanwhile too, until nothing is left.
  // Returns how many requests it completed.
  std::size_t cancelAll(RequestOutcome outcome = RequestOutcome::Cancelled) {
    const bool wasPaused = std::exchange(paused_, true);
    std::size_t completed = 0;
    while (!idle()) {
      std::vector<std::uint32_t> tids;
      tids.reserve(pending_.size());
      for (const auto& [tid, p] : pending_) tids.push_back(tid);
      std::ranges::sort(tids);
      std::vector<Entry> all;
      all.reserve(tids.size() + queue_.size());
      for (std::uint32_t tid : tids) all.push_back(std::move(pending_.at(tid).entry));
      pending_.clear();
      released_ = 0;
      for (Entry& e : nodes_.drain()) all.push_back(std::move(e));
      nodes_.clearWindow();
      while (!queue_.empty()) {
        all.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      for (Entry& e : all) {
        ++completed;
        if (outcome == RequestOutcome::Cancelled) ++counters_.cancelled;
        finish(e, outcome);
      }
    }
    paused_ = wasPaused;
    rearm();
    return completed;
  }

  // A TID no outstanding request holds, for a MAD sent outside the window
  // (a trap): TIDs stay unique across everything the user sends.
  std::uint32_t takeTid() { return nextTid(); }

  // The earliest deadline of what is outstanding; nullopt when nothing is.
  std::optional<MadClock::time_point> nextDeadline() const {
    std::optional<MadClock::time_point> next;
    for (const auto& [tid, p] : pending_) {
      const auto at = p.released ? p.deadline : std::min(p.deadline, p.holdUntil);
      if (!next || at < *next) next = at;
    }
    return next;
  }

  bool idle() const { return queue_.empty() && pending_.empty() && nodes_.waiting() == 0; }
  std::size_t outstanding() const { return pending_.size(); }
  // Of those, the ones that hold a place in the window (their answer due).
  std::size_t inWindow() const { return pending_.size() - released_; }
  std::size_t queued() const { return queue_.size() + nodes_.waiting(); }
  // Of those, held because their node has perNodeWindow in the window.
  std::size_t heldForNode() const { return nodes_.held(); }
  const RequesterCounters& counters() const { return counters_; }
  const RequesterOptions& options() const { return options_; }

 private:
  struct Entry {
    Request request;
    std::uint32_t tid{0};   // kept by a retry that waits out a pause
    std::uint64_t node{0};  // the node hook's, when perNodeWindow limits
    unsigned attempts{0};
    bool wasSent{false};
    MadClock::time_point sentAt{};
  };
  struct Pending {
    Entry entry;
    MadClock::time_point deadline;
    MadClock::time_point holdUntil;  // its place in the window until then
    bool released{false};            // past holdUntil: out of the window
  };

  bool hasRoom() const {
    return inWindow() < options_.window &&
           pending_.size() < options_.window * (1 + kWaitingPerWindow);
  }

  Entry take(typename std::unordered_map<std::uint32_t, Pending>::iterator it) {
    if (it->second.released) {
      --released_;
    } else {
      nodes_.give(it->second.entry.node);
    }
    Entry e = std::move(it->second.entry);
    release(it);
    return e;
  }

  std::uint32_t nextTid() {
    do {
      ++lastTid_;
    } while (lastTid_ == 0 || pending_.contains(lastTid_));
    return lastTid_;
  }

  void transmit(Entry e) {
    ++e.attempts;
    if (!hooks_.send(e.request, e.tid, e.attempts)) {
      ++counters_.sendFailed;
      finish(e, RequestOutcome::SendFailed);
      return;
    }
    ++counters_.sent;
    nodes_.take(e.node);
    e.wasSent = true;
    e.sentAt = hooks_.clock();
    const auto deadline = e.sentAt + hooks_.timeout(e.request, e.attempts);
    const auto holdUntil = hooks_.holds
                               ? std::min(deadline, e.sentAt + hooks_.holds(e.request, e.attempts))
                               : deadline;
    const std::uint32_t tid = e.tid;
    if (spare_.empty()) {
      pending_.insert_or_assign(
          tid, Pending{.entry = std::move(e), .deadline = deadline, .holdUntil = holdUntil});
      return;
    }
    // A node of an earlier request, reused: no allocation per request.
    auto node = std::move(spare_.back());
    spare_.pop_back();
    node.key() = tid;
    node.mapped() = Pending{.entry = std::move(e), .deadline = deadline, .holdUntil = holdUntil};
    auto put = pending_.insert(std::move(node));
    if (!put.inserted) put.position->second = std::move(put.node.mapped());
  }

  // Takes an outstanding request's node out, kept for the next transmit();
  // its entry has been moved from. At most a window's worth are kept.
  void release(typename std::unordered_map<std::uint32_t, Pending>::iterator it) {
    if (spare_.size() < options_.window) {
      spare_.push_back(pending_.extract(it));
    } else {
      pending_.erase(it);
    }
  }

  void retry(Entry e) {
    ++counters_.retried;
    if (hooks_.retrying) hooks_.retrying(e.request, e.attempts);
    // Paused, or the window full of requests whose answers are due: the
    // retry waits at the queue's head, first to go.
    if (paused_ || !hasRoom()) {
      queue_.push_front(std::move(e));
    } else if (const std::uint64_t node = e.node; !nodes_.hasRoom(node)) {
      nodes_.hold(std::move(e), node, /*first=*/true);
    } else {
      transmit(std::move(e));
    }
  }

  void finish(Entry& e, RequestOutcome outcome, std::optional<Answer> answer = std::nullopt) {
    hooks_.complete(e.request, Completion<Answer>{.outcome = outcome,
                                                  .answer = std::move(answer),
                                                  .attempts = e.attempts,
                                                  .tid = e.tid,
                                                  .wasSent = e.wasSent,
                                                  .sentAt = e.sentAt});
  }

  void rearm() {
    if (!hooks_.wakeAt) return;
    const auto next = nextDeadline();
    if (next == armedAt_ && !spent_) return;
    spent_ = false;
    armedAt_ = next;
    hooks_.wakeAt(next);
  }

  Hooks hooks_;
  RequesterOptions options_;
  RingQueue<Entry> queue_;
  NodeQueues<Entry> nodes_;  // requests held for their node (perNodeWindow)
  std::unordered_map<std::uint32_t, Pending> pending_;
  // Nodes of answered or expired requests, reused by transmit().
  std::vector<typename std::unordered_map<std::uint32_t, Pending>::node_type> spare_;
  std::vector<std::uint32_t> due_;  // expire()'s scratch, kept: no allocation per MAD
  std::size_t released_{0};         // pending requests past their hold
  std::uint32_t lastTid_;
  bool paused_{false};
  bool pumping_{false};  // inside pump(): hooks' submits only queue
  bool spent_{false};    // expire() ran: the armed timer fired
  std::optional<MadClock::time_point> armedAt_;
  RequesterCounters counters_;
};

}  // namespace ibsm::sm::mad
