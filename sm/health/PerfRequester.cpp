#include "sm/health/PerfRequester.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace ibsm::sm::health {

PerfRequester::PerfRequester(PerfRequesterIo io, PerfRequesterOptions options)
    : io_(std::move(io)),
      options_(options),
      trace_(nullptr),
      requests_(hooks(), {.window = options.window}) {
  options_.window = requests_.options().window;
}

PerfRequester::Requests::Hooks PerfRequester::hooks() {
  return Requests::Hooks{
      .send = [this](Entry& e, std::uint32_t tid, unsigned) { return transmit(e, tid); },
      .timeout = [this](const Entry&, unsigned) { return options_.timeout; },
      .attempts = [this](const Entry&) { return options_.retries + 1; },
      .complete = [this](
                      Entry& e,
                      ibsm::sm::mad::Completion<PerfMad>&& done) { complete(e, std::move(done)); },
      .clock = [this] { return io_.clock(); },
      .retrying = {},
      .wakeAt =
          [this](std::optional<MadClock::time_point> at) {
            if (io_.wakeAt) io_.wakeAt(at);
          }};
}

PerfRequesterCounters PerfRequester::counters() const {
  const ibsm::sm::mad::RequesterCounters& r = requests_.counters();
  // `sent` counts what was tried, the refused sends included.
  return PerfRequesterCounters{.sent = r.sent + r.sendFailed,
                               .retries = r.retried,
                               .answered = r.answered,
                               .timeouts = r.timedOut,
                               .errors = r.badStatus,
                               .sendFailures = r.sendFailed,
                               .unmatched = r.unmatched,
                               .cancelled = r.cancelled};
}

void PerfRequester::submit(PerfRequest request, PerfCallback done) {
  requests_.submit(Entry{.request = std::move(request), .done = std::move(done)});
  requests_.pump();
}

bool PerfRequester::transmit(const Entry& e, std::uint32_t tid) {
  const PerfMad mad{.method = e.request.method,
                    .status = 0,
                    .classSpecific = 0,
                    .tid = tid,
                    .attributeId = e.request.attributeId,
                    .attributeModifier = e.request.attributeModifier,
                    .data = e.request.data};
  const PerfMadBytes wire = encode(mad);
  return io_.send(wire, e.request.to).has_value();
}

void PerfRequester::traceEnd(const Entry& e, const PerfReply& reply, MadClock::time_point sentAt) {
  const auto t = io_.clock();
  const std::string status = reply.outcome == PerfOutcome::Ok ? std::string("ok")
                             : reply.outcome == PerfOutcome::BadStatus
                                 ? fmt::format("status 0x{:04x}", reply.mad->status)
                             : reply.outcome == PerfOutcome::Timeout   ? std::string("timeout")
                             : reply.outcome == PerfOutcome::Cancelled ? std::string("cancelled")
                                                                       : std::string("send failed");
  trace_.record(
      MadTraceEntry{.method = e.request.method == perfMethod::kSet ? "PerfSet" : "PerfGet",
                    .attribute = perfAttributeName(e.request.attributeId),
                    .attributeId = e.request.attributeId,
                    .modifier = e.request.attributeModifier,
                    .to = fmt::format("LID {}", e.request.to.lid),
                    .status = status,
                    .latency = std::chrono::duration_cast<std::chrono::microseconds>(t - sentAt),
                    .attempts = reply.attempts},
      t);
}

void PerfRequester::complete(Entry& e, ibsm::sm::mad::Completion<PerfMad>&& done) {
  const PerfReply reply{
      .outcome = done.outcome, .mad = std::move(done.answer), .attempts = done.attempts};
  // One never on the wire (refused, or cancelled in the queue): 0 us.
  if (trace_.enabled()) traceEnd(e, reply, done.wasSent ? done.sentAt : io_.clock());
  if (e.done) e.done(reply);
}

bool PerfRequester::deliver(std::span<const std::uint8_t> bytes) {
  const std::optional<PerfMad> mad = decodePerfMad(bytes);
  if (!mad || mad->mgmtClass != kPerfClass || mad->method != perfMethod::kGetResp) {
    requests_.countUnmatched();
    return false;
  }
  const auto tid = static_cast<std::uint32_t>(mad->tid);
  if (!requests_.deliver(tid, *mad, mad->status != 0)) return false;
  requests_.pump();
  return true;
}

void PerfRequester::expire() {
  requests_.expire();
}

void PerfRequester::pause(bool paused) {
  requests_.pause(paused);
}

void PerfRequester::cancelAll() {
  requests_.cancelAll();
}

}  // namespace ibsm::sm::health
