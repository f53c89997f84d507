#include "sm/mad/MadEngine.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

namespace ibsm {

namespace {

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
      rto_({.initial = options_.timeout, .floor = options_.timeoutMin, .cap = options_.timeoutMax}),
      trace_(log_),
      requests_(hooks(), {.window = options_.window, .perNodeWindow = options_.perNodeWindow}) {
  options_.window = requests_.options().window;
  options_.perNodeWindow = requests_.options().perNodeWindow;
  if (!options_.clock) options_.clock = [] { return MadClock::now(); };
}

MadEngine::Requests::Hooks MadEngine::hooks() {
  return Requests::Hooks{
      .send = [this](Entry& e, std::uint32_t tid,
                     unsigned attempt) { return transmit(e, tid, attempt); },
      // The last attempt waits mad.timeout_ms at least: round trips learnt
      // from quick Gets only speed the retries, they never fail a slow but
      // working device (a switch whose LFT writes take tens of ms). A
      // request's own patience, when longer, is what it waits.
      .timeout = [this](const Entry& e, unsigned attempt) -> MadRto::Duration {
        const MadRto::Duration t = rto_.timeout(e.rtoKey, attempt);
        if (attempt < attemptsFor(e)) return t;
        return std::max(
            {t, MadRto::Duration{options_.timeout}, MadRto::Duration{e.request.patience}});
      },
      .holds = [this](const Entry& e, unsigned) { return rto_.rto(e.rtoKey); },
      .node = [this](const Entry& e) { return nodeOf(e.request.to); },
      .attempts = [this](const Entry& e) { return attemptsFor(e); },
      .complete = [this](Entry& e,
                         sm::mad::Completion<Smp>&& done) { complete(e, std::move(done)); },
      .clock = [this] { return now(); },
      .retrying = [this](const Entry& e, unsigned attempts) { retrying(e, attempts); },
      .wakeAt = {}};
}

MadCounters MadEngine::counters() const {
  const sm::mad::RequesterCounters& r = requests_.counters();
  MadCounters c = own_;
  c.sent += r.sent;
  c.timeouts = r.timedOut;
  c.retries = r.retried;
  c.errors = r.badStatus;
  c.sendFailures += r.sendFailed;
  c.unmatched = r.unmatched;
  c.cancelled = r.cancelled;
  return c;
}

namespace {

MadRto::Kind rtoKind(const SmpRequest& r) {
  if (r.method != Method::Set) return MadRto::Kind::Get;
  switch (r.attributeId) {
    case AttributeId::PKeyTable:
    case AttributeId::SlToVlTable:
    case AttributeId::VlArbitrationTable:
    case AttributeId::LinearForwardingTable:
    case AttributeId::MulticastForwardingTable:
      return MadRto::Kind::TableSet;
    default:
      return MadRto::Kind::Set;
  }
}

}  // namespace

void MadEngine::submit(SmpRequest request, SmpCallback done) {
  const std::size_t bucket = MadLoss::bucketOf(request.to);
  const std::size_t key = MadRto::keyOf(bucket, rtoKind(request));
  requests_.submit(Entry{
      .request = std::move(request), .done = std::move(done), .lossBucket = bucket, .rtoKey = key});
}

bool MadEngine::transmit(Entry& e, std::uint32_t tid, unsigned attempt) {
  const SmpRequest& r = e.request;
  // Encoded for each attempt straight into the buffer handed to the
  // transport (no copy kept per request: a retry encodes the same bytes
  // again, unless keys rotate and this attempt tries the port's other
  // key, HeldKeys.h). Retries are rare; an encoding kept per request was
  // 256 bytes more for every move of every queued request.
  Smp smp =
      std::holds_alternative<DrPath>(r.to)
          ? Smp::directed(r.method, r.attributeId, r.attributeModifier, std::get<DrPath>(r.to))
          : Smp::lidRouted(r.method, r.attributeId, r.attributeModifier);
  smp.header.tid = tid;
  smp.header.mKey = keyFor(r.to, attempt);
  smp.data = r.data;
  const MadBuffer wire = encodeSmp(smp);
  const MadAddress to = std::holds_alternative<DrPath>(r.to)
                            ? MadAddress::directed()
                            : MadAddress::toLid(std::get<Lid>(r.to));
  if (auto sent = transport_.send(wire, to); !sent) {
    log_->error("MAD-0103 cannot send {}: {}", describe(r), sent.error().message);
    return false;
  }
  return true;
}

std::uint64_t MadEngine::nodeOf(const std::variant<DrPath, Lid>& to) const {
  if (const auto port = ports_.portAt(to)) return port->value;
  // Not known yet: the route (FNV-1a of its ports) or the LID stands for
  // the node until an answer names its port.
  if (const auto* path = std::get_if<DrPath>(&to)) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (std::uint8_t port : path->ports()) h = (h ^ port) * 0x100000001b3ULL;
    return h ^ path->hopCount();
  }
  return std::get<Lid>(to).value;
}

unsigned MadEngine::attemptsFor(const Entry& e) const {
  if (e.request.attempts != 0) return e.request.attempts;
  const MadLoss::Limits limits{.floor = options_.retries + 1,
                               .ceiling = std::max(options_.maxAttempts, options_.retries + 1)};
  return loss_.attemptsFor(e.lossBucket, limits);
}

void MadEngine::retrying(const Entry& e, unsigned attempts) {
  if (attempts > options_.retries) ++own_.lossRetries;
  // describe() formats the route: not for a line that is not logged (a
  // lossy sweep retries thousands of SMPs, issue 32).
  if (log_->should_log(spdlog::level::debug))
    log_->debug("MAD-0107 {} timed out (attempt {}), retrying", describe(e.request), attempts);
}

void MadEngine::traceEnd(const Entry& e, const SmpReply& reply, MadClock::time_point sentAt) {
  const auto t = now();
  const auto id = static_cast<std::uint16_t>(e.request.attributeId);
  std::string status =
      reply.outcome == SmpOutcome::Ok ? std::string("ok")
      : reply.outcome == SmpOutcome::BadStatus
          ? fmt::format("status 0x{:04x} ({})", reply.status, describeMadStatus(reply.status))
      : reply.outcome == SmpOutcome::Timeout   ? std::string("timeout")
      : reply.outcome == SmpOutcome::Cancelled ? std::string("cancelled")
                                               : std::string("transport failed");
  trace_.record(
      MadTraceEntry{.method = e.request.method == Method::Set ? "SubnSet" : "SubnGet",
                    .attribute = smpAttributeName(id),
                    .attributeId = id,
                    .modifier = e.request.attributeModifier,
                    .to = e.request.destination(),
                    .status = std::move(status),
                    .latency = std::chrono::duration_cast<std::chrono::microseconds>(t - sentAt),
                    .attempts = reply.attempts},
      t);
}

void MadEngine::complete(Entry& e, sm::mad::Completion<Smp>&& done) {
  SmpReply reply{.outcome = done.outcome, .smp = std::move(done.answer), .attempts = done.attempts};
  if (reply.smp) reply.status = reply.smp->header.status;
  // Never on the wire (refused at once, or queued when the work ended):
  // nothing to trace, nothing learnt of the path.
  if (reply.outcome == SmpOutcome::Timeout) {
    log_->warn("MAD-0101 {} got no response after {} attempts", describe(e.request),
               reply.attempts);
  } else if (reply.outcome == SmpOutcome::BadStatus) {
    log_->warn("MAD-0102 {} answered with status {}", describe(e.request),
               describeMadStatus(reply.status));
  }
  if (done.wasSent && trace_.enabled()) traceEnd(e, reply, done.sentAt);
  if (reply.outcome == SmpOutcome::Ok || reply.outcome == SmpOutcome::BadStatus) {
    loss_.answeredAt(e.lossBucket, reply.attempts);
    // Karn's rule: an answer to a retried request may answer any of its
    // attempts, so only a first attempt's says how long the path takes.
    if (reply.attempts == 1 && done.wasSent)
      rto_.sample(e.rtoKey, std::chrono::duration_cast<MadRto::Duration>(now() - done.sentAt));
  }
  if (reply.outcome == SmpOutcome::Ok) {
    if (const auto port = ports_.learn(e.request.to, *reply.smp); port && keyOf_) {
      // Outside a rotation an answer says nothing HeldKeys keeps: the
      // port's current key (an HMAC, and the takeover's look-up) is not
      // worked out a second time for every answer.
      const std::uint64_t previous = previousOf_ ? previousOf_(*port) : 0;
      if (previous == 0)
        held_.forget();
      else
        held_.learn(*port, {.current = keyOf_(*port), .previous = previous}, e.request.method,
                    *reply.smp);
    }
  }
  e.done(e.request, reply);
}

void MadEngine::handleIncoming(const ReceivedMad& in) {
  ++own_.received;
  auto smp = decodeSmp(in.mad);
  if (!smp) {
    ++own_.malformed;
    log_->warn("MAD-0106 dropped a MAD from LID {}: {}", in.from.lid, smp.error().message);
    return;
  }
  if (smp->header.method == Method::TrapRepress) {
    // Answers a trap we sent; there is nothing to match or to answer.
    ++own_.represses;
    log_->debug("MAD-0109 TrapRepress TID 0x{:x} from LID {}", smp->header.tid, in.from.lid);
    return;
  }
  if (isResponse(smp->header.method)) return handleResponse(std::move(*smp));
  ++own_.unsolicited;
  if (unsolicited_) {
    unsolicited_(IncomingSmp{*smp, in.from});
  } else {
    ++own_.unhandled;
    log_->debug("MAD-0105 no handler for method 0x{:02x} attribute 0x{:04x} from LID {}",
                static_cast<unsigned>(smp->header.method),
                static_cast<unsigned>(smp->header.attributeId), in.from.lid);
  }
}

void MadEngine::handleResponse(Smp smp) {
  // The transport owns the upper 32 TID bits (see MadTransport::send).
  const auto tid = static_cast<std::uint32_t>(smp.header.tid);
  const std::uint64_t wholeTid = smp.header.tid;
  const AttributeId attribute = smp.header.attributeId;
  const bool bad = smp.header.status != 0;
  const bool matched = requests_.deliver(
      tid, std::move(smp), bad, [&](const Entry& e) { return e.request.attributeId == attribute; });
  if (!matched)
    log_->debug("MAD-0104 response TID 0x{:x} attribute 0x{:04x} matches no outstanding request",
                wholeTid, static_cast<unsigned>(attribute));
}

Error MadEngine::cancelError() {
  return Error{"cancelled: the work was stopped (cancel())"};
}

Result<std::optional<ReceivedMad>> MadEngine::receive(MadClock::time_point deadline) {
  if (options_.waiter) return options_.waiter->receive(transport_, deadline);
  return transport_.receive(deadline);
}

Result<void> MadEngine::step(MadClock::time_point until) {
  const auto next = requests_.nextDeadline();
  auto in = receive(next ? std::min(until, *next) : until);
  if (!in) return failAll(SmpOutcome::TransportFailed, in.error());
  if (*in) {
    handleIncoming(**in);
    // What else has arrived is read before any timeout is judged: a loop
    // kept from reading for a while (a busy machine) must not retry SMPs
    // whose answers wait to be read. Each retry adds work for the fabric
    // and an answer more to read; unchecked, that feeds on itself.
    for (std::size_t n = 0; n < 4 * options_.window && !cancelled_; ++n) {
      auto more = receive(now());
      if (!more) return failAll(SmpOutcome::TransportFailed, more.error());
      if (!*more) break;
      handleIncoming(**more);
    }
  }
  // A handler (the waiter's, or one run for the MAD just read) may have
  // cancelled the work; nothing more goes out then.
  if (cancelled_) return failAll(SmpOutcome::Cancelled, cancelError());
  requests_.expire();  // retries, timeouts, then the window refilled
  return {};
}

Result<void> MadEngine::failAll(SmpOutcome outcome, Error why) {
  // Callbacks may submit again (a BFS does on success only, but any caller
  // may): the requester completes those too, so no callback outlives this run.
  const std::size_t completed = requests_.cancelAll(outcome);
  if (outcome == SmpOutcome::Cancelled) {
    if (completed > 0) log_->info("MAD-0112 cancelled {} pending request(s)", completed);
  } else {
    own_.transportFailed += completed;
    if (completed > 0)
      log_->warn("MAD-0111 {} pending request(s) completed unanswered: the transport failed ({})",
                 completed, why.message);
  }
  return std::unexpected(std::move(why));
}

Result<void> MadEngine::runUntilIdle() {
  if (cancelled_) return failAll(SmpOutcome::Cancelled, cancelError());
  requests_.pump();
  // pump() leaves either an empty queue or a full window, so nothing
  // outstanding means nothing left to do.
  while (requests_.outstanding() > 0) {
    if (auto ok = step(MadClock::time_point::max()); !ok) return ok;
  }
  return cancelledAtEnd();
}

Result<void> MadEngine::runUntil(MadClock::time_point deadline, const std::function<bool()>& stop) {
  if (cancelled_) return failAll(SmpOutcome::Cancelled, cancelError());
  requests_.pump();
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

}  // namespace ibsm
