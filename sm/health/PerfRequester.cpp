#include "sm/health/PerfRequester.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace ibsm::sm::health {
namespace {

PerfReply failed(PerfOutcome outcome, unsigned attempts) {
  PerfReply r;
  r.outcome = outcome;
  r.attempts = attempts;
  return r;
}

}  // namespace

PerfRequester::PerfRequester(PerfRequesterIo io, PerfRequesterOptions options)
    : io_(std::move(io)), options_(options), trace_(nullptr) {
  options_.window = std::max<std::size_t>(options_.window, 1);
}

void PerfRequester::submit(PerfRequest request, PerfCallback done) {
  queue_.push_back(Queued{.request = std::move(request), .done = std::move(done)});
  fillWindow();
}

std::uint32_t PerfRequester::nextTid() {
  do {
    ++lastTid_;
  } while (lastTid_ == 0 || pending_.contains(lastTid_));
  return lastTid_;
}

void PerfRequester::fillWindow() {
  // A callback of a send that failed may submit again: the loop below
  // takes it, instead of a nested fill.
  if (filling_) return;
  filling_ = true;
  while (!paused_ && !queue_.empty() && pending_.size() < options_.window) {
    Queued q = std::move(queue_.front());
    queue_.pop_front();
    if (q.tid == 0) q.tid = nextTid();
    transmit(std::move(q));
  }
  filling_ = false;
  rearm();
}

bool PerfRequester::transmit(Queued q) {
  const PerfMad mad{.method = q.request.method,
                    .status = 0,
                    .classSpecific = 0,
                    .tid = q.tid,
                    .attributeId = q.request.attributeId,
                    .attributeModifier = q.request.attributeModifier,
                    .data = q.request.data};
  const PerfMadBytes wire = encode(mad);
  ++q.attempts;
  q.sentAt = io_.clock();
  ++counters_.sent;
  if (q.attempts > 1) ++counters_.retries;
  if (auto sent = io_.send(wire, q.request.to); !sent) {
    ++counters_.sendFailures;
    const unsigned attempts = q.attempts;
    complete(std::move(q), failed(PerfOutcome::SendFailed, attempts));
    return false;
  }
  const std::uint32_t tid = q.tid;
  pending_.insert_or_assign(tid,
                            Pending{.q = std::move(q), .deadline = io_.clock() + options_.timeout});
  return true;
}

void PerfRequester::traceEnd(const Queued& q, const PerfReply& reply) {
  const auto t = io_.clock();
  const std::string status = reply.outcome == PerfOutcome::Ok ? std::string("ok")
                             : reply.outcome == PerfOutcome::BadStatus
                                 ? fmt::format("status 0x{:04x}", reply.mad->status)
                             : reply.outcome == PerfOutcome::Timeout   ? std::string("timeout")
                             : reply.outcome == PerfOutcome::Cancelled ? std::string("cancelled")
                                                                       : std::string("send failed");
  trace_.record(
      MadTraceEntry{.method = q.request.method == perfMethod::kSet ? "PerfSet" : "PerfGet",
                    .attribute = perfAttributeName(q.request.attributeId),
                    .attributeId = q.request.attributeId,
                    .modifier = q.request.attributeModifier,
                    .to = fmt::format("LID {}", q.request.to.lid),
                    .status = status,
                    .latency = std::chrono::duration_cast<std::chrono::microseconds>(t - q.sentAt),
                    .attempts = reply.attempts},
      t);
}

void PerfRequester::complete(Queued q, PerfReply reply) {
  if (trace_.enabled()) traceEnd(q, reply);
  // Moved out first: the callback may submit, which may reuse the TID.
  PerfCallback done = std::move(q.done);
  if (done) done(reply);
}

bool PerfRequester::deliver(std::span<const std::uint8_t> bytes) {
  const std::optional<PerfMad> mad = decodePerfMad(bytes);
  if (!mad || mad->mgmtClass != kPerfClass || mad->method != perfMethod::kGetResp) {
    ++counters_.unmatched;
    return false;
  }
  const auto tid = static_cast<std::uint32_t>(mad->tid);
  auto it = pending_.find(tid);
  if (it == pending_.end()) {
    ++counters_.unmatched;
    return false;
  }
  Queued q = std::move(it->second.q);
  pending_.erase(it);
  ++counters_.answered;
  const bool ok = mad->status == 0;
  if (!ok) ++counters_.errors;
  const unsigned attempts = q.attempts;
  complete(std::move(q), PerfReply{.outcome = ok ? PerfOutcome::Ok : PerfOutcome::BadStatus,
                                   .mad = *mad,
                                   .attempts = attempts});
  fillWindow();
  return true;
}

void PerfRequester::expire() {
  spent_ = true;  // the timer that called this is spent: always say what is next
  const auto now = io_.clock();
  std::vector<std::uint32_t> due;
  for (const auto& [tid, p] : pending_)
    if (p.deadline <= now) due.push_back(tid);
  std::ranges::sort(due);  // the order they were sent in, mostly: deterministic
  for (std::uint32_t tid : due) {
    auto it = pending_.find(tid);
    if (it == pending_.end()) continue;
    Queued q = std::move(it->second.q);
    pending_.erase(it);
    if (q.attempts <= options_.retries) {
      // Same TID: a late answer to the first try still completes it.
      if (paused_) {
        queue_.push_front(std::move(q));
      } else {
        transmit(std::move(q));
      }
      continue;
    }
    ++counters_.timeouts;
    const unsigned attempts = q.attempts;
    complete(std::move(q), failed(PerfOutcome::Timeout, attempts));
  }
  fillWindow();
}

void PerfRequester::pause(bool paused) {
  paused_ = paused;
  fillWindow();
}

void PerfRequester::cancelAll() {
  // Callbacks may submit: those only queue (paused) and are cancelled
  // too, until nothing is left.
  const bool wasPaused = std::exchange(paused_, true);
  while (!idle()) {
    std::vector<Queued> all;
    for (auto& [tid, p] : pending_) all.push_back(std::move(p.q));
    pending_.clear();
    for (auto& q : queue_) all.push_back(std::move(q));
    queue_.clear();
    for (Queued& q : all) {
      ++counters_.cancelled;
      const unsigned attempts = q.attempts;
      complete(std::move(q), failed(PerfOutcome::Cancelled, attempts));
    }
  }
  paused_ = wasPaused;
  rearm();
}

void PerfRequester::rearm() {
  std::optional<MadClock::time_point> next;
  for (const auto& [tid, p] : pending_)
    if (!next || p.deadline < *next) next = p.deadline;
  if (next == armedAt_ && !spent_) return;
  spent_ = false;
  armedAt_ = next;
  if (io_.wakeAt) io_.wakeAt(next);
}

}  // namespace ibsm::sm::health
