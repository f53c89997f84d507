// Keeps a window of Performance Management GMPs (class 0x04) on the wire
// for the counter sweep, with the requester the MAD engine uses for SMPs
// (sm/mad/Requester.h): this file is only what is PerfMgt's own (the
// encoding, the trace line, its counters' names). GMPs go on QP1
// beside the SA's traffic, not through the engine (which knows SMPs only),
// and their answers come back from inside the transport's receive() -- in
// the daemon's waits and between the SMPs of a sweep -- so the requester
// never blocks: it is fed answers (deliver) and told when its deadlines are
// due (expire), and says when it wants to be woken next (wakeAt).
//
//   PerfRequester perf(io, {.window = 8});
//   perf.submit({.to = lid, .attributeId = perfAttr::kPortCounters, .data = ...},
//               [](const PerfReply& r) { if (r.ok()) use(decodePortCounters(r.mad->data)); });
//   gmpPort.onGmp(... perf.deliver(in.mad) ...);   // answers by TID
//   loop.at(deadline, [&] { perf.expire(); });   // armed through io.wakeAt
//
// TIDs: the lower 32 bits, unique while outstanding (the kernel owns the
// upper 32). A retry resends the same TID, so a late first answer still
// completes the request; an answer to nothing outstanding is counted and
// dropped. Every callback runs exactly once: with the answer, a timeout, a
// refused send, or Cancelled (cancelAll). Callbacks may submit more.
#pragma once

#include <ibsm/Error.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "sm/mad/Gmp.h"
#include "sm/mad/MadTrace.h"
#include "sm/mad/MadTransport.h"
#include "sm/mad/PerfCounters.h"
#include "sm/mad/Requester.h"

namespace ibsm::sm::health {

struct PerfRequest {
  GmpAddress to;
  std::uint8_t method{perfMethod::kGet};
  std::uint16_t attributeId{perfAttr::kPortCounters};
  std::uint32_t attributeModifier{0};
  PerfData data{};
};

// The one requester's outcome (never TransportFailed here: nothing waits
// on a receive of its own).
using PerfOutcome = ibsm::sm::mad::RequestOutcome;

struct PerfReply {
  PerfOutcome outcome{PerfOutcome::Timeout};
  std::optional<PerfMad> mad;  // the answer, for Ok and BadStatus
  unsigned attempts{0};
  bool ok() const { return outcome == PerfOutcome::Ok; }
};

using PerfCallback = std::function<void(const PerfReply&)>;

struct PerfRequesterOptions {
  // GMPs outstanding at most (health.counter_window). Modest: they share
  // QP1 and the switches' management processors with the SA and the SM.
  std::size_t window{8};
  // PMAs answer from firmware like SMAs; the engine's 200 ms would do on
  // ibsim, real switches under load answer GMPs slower than SMPs.
  std::chrono::milliseconds timeout{500};
  unsigned retries{2};
};

struct PerfRequesterCounters {
  std::uint64_t sent{0};     // transmissions, retries included
  std::uint64_t retries{0};  // retransmissions
  std::uint64_t answered{0};
  std::uint64_t timeouts{0};  // requests that failed after all retries
  std::uint64_t errors{0};    // answers with a non-zero status
  std::uint64_t sendFailures{0};
  std::uint64_t unmatched{0};  // answers to nothing outstanding (late, duplicate)
  std::uint64_t cancelled{0};
};

// What the requester needs of the world: a port to send on, the one
// clock, and a timer it asks for (nullopt: none needed).
struct PerfRequesterIo {
  std::function<Result<void>(std::span<const std::uint8_t>, const GmpAddress&)> send;
  std::function<MadClock::time_point()> clock;
  std::function<void(std::optional<MadClock::time_point>)> wakeAt;
};

class PerfRequester {
 public:
  PerfRequester(PerfRequesterIo io, PerfRequesterOptions options);
  PerfRequester(const PerfRequester&) = delete;
  PerfRequester& operator=(const PerfRequester&) = delete;

  void submit(PerfRequest request, PerfCallback done);
  // A PerfMgt GMP received; true when it answered an outstanding request.
  bool deliver(std::span<const std::uint8_t> mad);
  // Retries or fails what is past its deadline. Called by the timer wakeAt
  // asked for, which is then spent: a new one is asked for if needed.
  void expire();
  // Paused (a sweep is running): nothing new is sent, retries wait; what
  // is outstanding may still be answered.
  void pause(bool paused);
  // Completes everything queued and outstanding as Cancelled (left MASTER).
  void cancelAll();

  bool idle() const { return requests_.idle(); }
  std::size_t outstanding() const { return requests_.outstanding(); }
  std::size_t queued() const { return requests_.queued(); }
  PerfRequesterCounters counters() const;
  // The trace lines of `--log-level trace` logged and suppressed.
  const MadTraceCounters& traceCounters() const { return trace_.counters(); }
  // Where `--log-level trace` writes one line per GMP (sm/mad/MadTrace.h);
  // until then spdlog's default logger.
  void traceTo(std::shared_ptr<spdlog::logger> logger) { trace_ = MadTrace(std::move(logger)); }
  const PerfRequesterOptions& options() const { return options_; }

 private:
  struct Entry {
    PerfRequest request;
    PerfCallback done;
  };
  using Requests = ibsm::sm::mad::Requester<Entry, PerfMad>;

  Requests::Hooks hooks();
  bool transmit(const Entry& e, std::uint32_t tid);
  void complete(Entry& e, ibsm::sm::mad::Completion<PerfMad>&& done);
  void traceEnd(const Entry& e, const PerfReply& reply, MadClock::time_point sentAt);

  PerfRequesterIo io_;
  PerfRequesterOptions options_;
  MadTrace trace_;
  Requests requests_;
};

}  // namespace ibsm::sm::health
