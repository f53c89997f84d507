#include <fmt/format.h>
#include <ibsm/MadEngine.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

namespace ibsm {

SmpRequest SmpRequest::get(AttributeId id, std::uint32_t modifier, std::variant<DrPath, Lid> to) {
  return SmpRequest{
      .method = Method::Get, .attributeId = id, .attributeModifier = modifier, .to = std::move(to)};
}

SmpRequest SmpRequest::set(AttributeId id, std::uint32_t modifier, std::variant<DrPath, Lid> to,
                           const SmpData& data) {
  return SmpRequest{.method = Method::Set,
                    .attributeId = id,
                    .attributeModifier = modifier,
                    .to = std::move(to),
                    .data = data};
}

std::string SmpRequest::destination() const {
  if (const auto* path = std::get_if<DrPath>(&to)) return fmt::format("DR {}", *path);
  return fmt::format("LID {}", std::get<Lid>(to));
}

std::string describeFailure(const SmpReply& reply) {
  switch (reply.outcome) {
    case SmpOutcome::Ok:
      return "answered";
    case SmpOutcome::BadStatus:
      return fmt::format("was answered with status 0x{:04x} ({})", reply.status,
                         describeMadStatus(reply.status));
    case SmpOutcome::Timeout:
      return fmt::format("got no response after {} attempts", reply.attempts);
    case SmpOutcome::SendFailed:
      return "could not be sent (transport error)";
    case SmpOutcome::TransportFailed:
      return "was pending when the transport failed";
    case SmpOutcome::Cancelled:
      return "was cancelled";
  }
  return "unknown outcome";
}

namespace {

SmpReply outcomeOnly(SmpOutcome outcome) {
  SmpReply reply;
  reply.outcome = outcome;
  return reply;
}

std::string describe(const SmpRequest& r) {
  return fmt::format("{}(0x{:04x}, mod 0x{:x}) to {}",
                     r.method == Method::Set ? "SubnSet" : "SubnGet",
                     static_cast<unsigned>(r.attributeId), r.attributeModifier, r.destination());
}

}  // namespace

MadEngine::MadEngine(MadTransport& transport, MadEngineOptions options)
    : transport_(transport),
      options_(std::move(options)),
      log_(options_.logger ? options_.logger : spdlog::default_logger()),
      trace_(log_) {
  options_.window = std::max<std::size_t>(options_.window, 1);
  if (!options_.clock) options_.clock = [] { return MadClock::now(); };
}

void MadEngine::submit(SmpRequest request, SmpCallback done) {
  queue_.push_back(Queued{std::move(request), std::move(done)});
}

std::uint32_t MadEngine::nextTid() {
  do {
    ++lastTid_;
  } while (lastTid_ == 0 || pending_.contains(lastTid_));
  return lastTid_;
}

bool MadEngine::transmit(Pending& p) {
  const MadAddress to = std::holds_alternative<DrPath>(p.request.to)
                            ? MadAddress::directed()
                            : MadAddress::toLid(std::get<Lid>(p.request.to));
  if (auto sent = transport_.send(p.wire, to); !sent) {
    ++counters_.sendFailures;
    log_->error("MAD-0103 cannot send {}: {}", describe(p.request), sent.error().message);
    return false;
  }
  ++counters_.sent;
  ++p.attempts;
  const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
      options_.timeout * loss_.timeoutFactor(p.lossBucket, p.attempts));
  p.sentAt = now();
  p.deadline = p.sentAt + wait;
  return true;
}

void MadEngine::fillWindow() {
  // A failed send completes at once, and its callback may queue more.
  while (pending_.size() < options_.window && !queue_.empty()) {
    Queued q = std::move(queue_.front());
    queue_.pop_front();
    const SmpRequest& r = q.request;
    Smp smp =
        std::holds_alternative<DrPath>(r.to)
            ? Smp::directed(r.method, r.attributeId, r.attributeModifier, std::get<DrPath>(r.to))
            : Smp::lidRouted(r.method, r.attributeId, r.attributeModifier);
    const std::uint32_t tid = nextTid();
    smp.header.tid = tid;
    smp.header.mKey = r.mKey;
    smp.data = r.data;
    Pending p;
    p.lossBucket = MadLoss::bucketOf(q.request.to);
    p.request = std::move(q.request);
    p.done = std::move(q.done);
    p.wire = encodeSmp(smp);
    if (transmit(p)) {
      pending_.emplace(tid, std::move(p));
    } else {
      SmpReply reply = outcomeOnly(SmpOutcome::SendFailed);
      reply.attempts = 1;
      p.done(p.request, reply);
    }
  }
}

void MadEngine::traceEnd(const Pending& p, const SmpReply& reply) {
  const auto t = now();
  const auto id = static_cast<std::uint16_t>(p.request.attributeId);
  std::string status =
      reply.outcome == SmpOutcome::Ok ? std::string("ok")
      : reply.outcome == SmpOutcome::BadStatus
          ? fmt::format("status 0x{:04x} ({})", reply.status, describeMadStatus(reply.status))
      : reply.outcome == SmpOutcome::Timeout   ? std::string("timeout")
      : reply.outcome == SmpOutcome::Cancelled ? std::string("cancelled")
                                               : std::string("transport failed");
  trace_.record(
      MadTraceEntry{.method = p.request.method == Method::Set ? "SubnSet" : "SubnGet",
                    .attribute = smpAttributeName(id),
                    .attributeId = id,
                    .modifier = p.request.attributeModifier,
                    .to = p.request.destination(),
                    .status = std::move(status),
                    .latency = std::chrono::duration_cast<std::chrono::microseconds>(t - p.sentAt),
                    .attempts = reply.attempts},
      t);
}

void MadEngine::complete(std::uint32_t tid, SmpReply reply) {
  auto node = pending_.extract(tid);
  reply.attempts = node.mapped().attempts;
  if (trace_.enabled()) traceEnd(node.mapped(), reply);
  if (reply.outcome == SmpOutcome::Ok || reply.outcome == SmpOutcome::BadStatus)
    loss_.answeredAt(node.mapped().lossBucket, reply.attempts);
  node.mapped().done(node.mapped().request, reply);
}

void MadEngine::expireTimeouts() {
  const auto t = now();
  std::vector<std::uint32_t> expired;
  for (const auto& [tid, p] : pending_) {
    if (p.deadline <= t) expired.push_back(tid);
  }
  std::ranges::sort(expired);  // deterministic order for callbacks
  for (std::uint32_t tid : expired) {
    Pending& p = pending_.at(tid);
    const MadLoss::Limits limits{.floor = options_.retries + 1,
                                 .ceiling = std::max(options_.maxAttempts, options_.retries + 1)};
    if (p.attempts < loss_.attemptsFor(p.lossBucket, limits)) {
      ++counters_.retries;
      if (p.attempts > options_.retries) ++counters_.lossRetries;
      log_->debug("MAD-0107 {} timed out (attempt {}), retrying", describe(p.request), p.attempts);
      if (transmit(p)) continue;
      complete(tid, outcomeOnly(SmpOutcome::SendFailed));
      continue;
    }
    ++counters_.timeouts;
    log_->warn("MAD-0101 {} got no response after {} attempts", describe(p.request), p.attempts);
    complete(tid, outcomeOnly(SmpOutcome::Timeout));
  }
}

void MadEngine::handleIncoming(const ReceivedMad& in) {
  ++counters_.received;
  auto smp = decodeSmp(in.mad);
  if (!smp) {
    ++counters_.malformed;
    log_->warn("MAD-0106 dropped a MAD from LID {}: {}", in.from.lid, smp.error().message);
    return;
  }
  if (smp->header.method == Method::TrapRepress) {
    // Answers a trap we sent; there is nothing to match or to answer.
    ++counters_.represses;
    log_->debug("MAD-0109 TrapRepress TID 0x{:x} from LID {}", smp->header.tid, in.from.lid);
    return;
  }
  if (!isResponse(smp->header.method)) {
    ++counters_.unsolicited;
    if (unsolicited_) {
      unsolicited_(IncomingSmp{*smp, in.from});
    } else {
      ++counters_.unhandled;
      log_->debug("MAD-0105 no handler for method 0x{:02x} attribute 0x{:04x} from LID {}",
                  static_cast<unsigned>(smp->header.method),
                  static_cast<unsigned>(smp->header.attributeId), in.from.lid);
    }
    return;
  }
  // The transport owns the upper 32 TID bits (see MadTransport::send).
  const auto tid = static_cast<std::uint32_t>(smp->header.tid);
  auto it = pending_.find(tid);
  if (it == pending_.end() || it->second.request.attributeId != smp->header.attributeId) {
    ++counters_.unmatched;
    log_->debug("MAD-0104 response TID 0x{:x} attribute 0x{:04x} matches no outstanding request",
                smp->header.tid, static_cast<unsigned>(smp->header.attributeId));
    return;
  }
  const std::uint16_t status = smp->header.status;
  if (status != 0) {
    ++counters_.errors;
    log_->warn("MAD-0102 {} answered with status {}", describe(it->second.request),
               describeMadStatus(status));
  }
  complete(tid, SmpReply{.outcome = status == 0 ? SmpOutcome::Ok : SmpOutcome::BadStatus,
                         .smp = std::move(*smp),
                         .status = status});
}

Error MadEngine::cancelError() {
  return Error{"cancelled: the work was stopped (cancel())"};
}

Result<std::optional<ReceivedMad>> MadEngine::receive(MadClock::time_point deadline) {
  if (options_.waiter) return options_.waiter->receive(transport_, deadline);
  return transport_.receive(deadline);
}

Result<void> MadEngine::step(MadClock::time_point until) {
  auto deadline = until;
  for (const auto& [tid, p] : pending_) deadline = std::min(deadline, p.deadline);
  auto in = receive(deadline);
  if (!in) return failAll(SmpOutcome::TransportFailed, in.error());
  if (*in) handleIncoming(**in);
  // A handler (the waiter's, or one run for the MAD just read) may have
  // cancelled the work; nothing more goes out then.
  if (cancelled_) return failAll(SmpOutcome::Cancelled, cancelError());
  expireTimeouts();
  fillWindow();
  return {};
}

Result<void> MadEngine::failAll(SmpOutcome outcome, Error why) {
  std::size_t completed = 0;
  // Callbacks may submit again (a BFS does on success only, but any caller
  // may): loop until nothing is left, so no callback outlives this run.
  while (!pending_.empty() || !queue_.empty()) {
    std::vector<std::uint32_t> tids;
    tids.reserve(pending_.size());
    for (const auto& [tid, p] : pending_) tids.push_back(tid);
    std::ranges::sort(tids);  // deterministic order: outstanding by TID, then the queue
    for (std::uint32_t tid : tids) {
      ++completed;
      complete(tid, outcomeOnly(outcome));
    }
    while (!queue_.empty()) {
      Queued q = std::move(queue_.front());
      queue_.pop_front();
      ++completed;
      q.done(q.request, outcomeOnly(outcome));
    }
  }
  if (outcome == SmpOutcome::Cancelled) {
    counters_.cancelled += completed;
    if (completed > 0) log_->info("MAD-0112 cancelled {} pending request(s)", completed);
  } else {
    counters_.transportFailed += completed;
    if (completed > 0)
      log_->warn("MAD-0111 {} pending request(s) completed unanswered: the transport failed ({})",
                 completed, why.message);
  }
  return std::unexpected(std::move(why));
}

Result<void> MadEngine::runUntilIdle() {
  if (cancelled_) return failAll(SmpOutcome::Cancelled, cancelError());
  fillWindow();
  // fillWindow leaves either an empty queue or a full window, so nothing
  // outstanding means nothing left to do.
  while (!pending_.empty()) {
    if (auto ok = step(MadClock::time_point::max()); !ok) return ok;
  }
  return cancelledAtEnd();
}

Result<void> MadEngine::runUntil(MadClock::time_point deadline, const std::function<bool()>& stop) {
  if (cancelled_) return failAll(SmpOutcome::Cancelled, cancelError());
  fillWindow();
  while (now() < deadline && !(stop && stop())) {
    if (auto ok = step(deadline); !ok) return ok;
  }
  return cancelledAtEnd();
}

Result<void> MadEngine::cancelledAtEnd() {
  // cancel() from the callback that completed the last request: the run
  // still reports it, so the caller stops here rather than at its next run.
  if (cancelled_) return failAll(SmpOutcome::Cancelled, cancelError());
  return {};
}

Result<std::vector<SmpReply>> MadEngine::sendAll(const std::vector<SmpRequest>& requests) {
  std::vector<SmpReply> replies(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i)
    submit(requests[i], [&replies, i](const SmpRequest&, const SmpReply& r) { replies[i] = r; });
  // Safe to capture `replies`: runUntilIdle returns only once every callback ran.
  if (auto ran = runUntilIdle(); !ran) return std::unexpected(ran.error());
  return replies;
}

Result<void> MadEngine::sendResponse(const IncomingSmp& request, Smp response) {
  if (auto sent = transport_.send(encodeSmp(response), request.from); !sent) {
    log_->error("MAD-0108 cannot answer method 0x{:02x} attribute 0x{:04x} from LID {}: {}",
                static_cast<unsigned>(request.smp.header.method),
                static_cast<unsigned>(request.smp.header.attributeId), request.from.lid,
                sent.error().message);
    return sent;
  }
  ++counters_.sent;
  return {};
}

Result<void> MadEngine::respond(const IncomingSmp& request, const SmpData& data,
                                std::uint16_t status) {
  // Path fields and hop pointer stay as they arrived: the switches filled
  // the return path and the responder's side of the stack set the hop
  // pointer for the way back.
  Smp response = request.smp;
  response.header.method = Method::GetResp;
  response.header.status = status;
  response.header.direction = request.smp.isDirected();
  response.data = data;
  return sendResponse(request, response);
}

Result<void> MadEngine::repress(const IncomingSmp& trap) {
  Smp response = trap.smp;
  response.header.method = Method::TrapRepress;
  response.header.status = 0;
  response.header.direction = trap.smp.isDirected();
  return sendResponse(trap, response);
}

Result<void> MadEngine::sendTrap(Lid to, const SmpData& notice) {
  Smp trap = Smp::lidRouted(Method::Trap, AttributeId::Notice, 0);
  trap.header.tid = nextTid();
  trap.data = notice;
  if (auto sent = transport_.send(encodeSmp(trap), MadAddress::toLid(to)); !sent) {
    ++counters_.sendFailures;
    log_->error("MAD-0110 cannot send a trap to LID {}: {}", to, sent.error().message);
    return sent;
  }
  ++counters_.sent;
  ++counters_.traps;
  return {};
}

}  // namespace ibsm
