// Keeps many SMPs on the wire at once from a single thread. Discovery
// submits requests with callbacks; the callbacks submit the next requests,
// so a BFS keeps the window full across levels without threads:
//
//   MadEngineOptions options;
//   options.window = 16;
//   MadEngine engine(transport, options);
//   engine.submit(SmpRequest::get(AttributeId::NodeInfo, 0, DrPath{}),
//                 [&](const SmpRequest& req, const SmpReply& reply) {
//                   if (!reply.ok()) return;            // logged already
//                   NodeInfo ni = decodeNodeInfo(reply.smp->data);
//                   for (std::uint8_t p = 1; p <= ni.numPorts; ++p) engine.submit(...);
//                 });
//   if (auto done = engine.runUntilIdle(); !done) fail(done.error());
//
//   auto replies = engine.sendAll(requests);   // no callback: replies in request order
//
// The engine owns TIDs (lower 32 bits, unique while outstanding), the window,
// per-MAD timeouts and retries (a retry resends the same TID, so a late first
// answer still counts; duplicates after completion are ignored). Timeouts
// are learnt from the round trips of answered SMPs per path length
// (sm/mad/MadRto.h), and a request waiting out a backed-off timeout gives
// its place in the window to the next once its answer is overdue
// (sm/mad/Requester.h), so lost SMPs do not idle the window. Requests
// that arrive unasked (SubnGet(SMInfo) from another SM or `sminfo`, traps)
// go to the unsolicited handler, also while a sweep is running; answer them
// with respond() or repress().
//
// The lifetime rule: every callback given to submit() runs exactly once,
// from inside a runUntilIdle() or runUntil() call, and before the call that
// is running when its request completes returns. A request completes with
// an answer, a timeout, a refused send, or -- all at once, before the run
// returns its error -- when the transport fails (TransportFailed) or the
// work is cancelled (Cancelled). runUntilIdle() returns, with or without an
// error, only once nothing is queued or outstanding, so a caller that
// submits and then runs until idle may capture its own frame: no callback
// outlives the call. (runUntil() may return at its deadline with requests
// still outstanding; they complete in a later run. A request submitted but
// never run is dropped, unrun, with the engine.)
//
// Waiting: without MadEngineOptions::waiter the engine blocks in
// transport.receive(); with one (sm/loop/EventLoop.h) its waits also serve
// the program's other fds and timers, whose handlers run on this thread
// between MADs and may call cancel().
//
// M_Keys: every SMP the engine sends (and every TrapRepress) carries the
// M_Key of the port it reaches, by that port's GUID (setPortKeys), which
// the engine learns from the NodeInfo and PortInfo answers going by
// (sm/mad/PortDirectory.h); a port not known yet gets key 0. During an
// M_Key rotation (setPreviousPortKeys) each SMP carries the key its port
// holds, the previous or the new (sm/mad/HeldKeys.h), and an unanswered
// one is retried with the two keys in turn before it times out.
//
// Log ids: see LOG MESSAGES in ibsm(8).
#pragma once

#include <ibsm/Mad.h>
#include <ibsm/MadPath.h>
#include <spdlog/logger.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sm/mad/HeldKeys.h"
#include "sm/mad/MadLoss.h"
#include "sm/mad/MadRto.h"
#include "sm/mad/MadTrace.h"
#include "sm/mad/MadTransport.h"
#include "sm/mad/PortDirectory.h"
#include "sm/mad/Requester.h"

namespace ibsm {

struct SmpRequest {
  Method method{Method::Get};
  AttributeId attributeId{AttributeId::NodeInfo};
  std::uint32_t attributeModifier{0};
  std::variant<DrPath, Lid> to;  // directed route, or LID-routed
  SmpData data{};                // what a Set writes; ignored by Get
  // Sends at most; 0: as many as the engine gives a request on its path.
  // 1 for an SMP to a port that refuses the SM's M_Key (SubnetProgrammer):
  // it would be dropped again, each time one more M_Key violation there.
  unsigned attempts{0};
  // The last attempt waits this long at least (beside mad.timeout_ms): what
  // an answer that may be slow for a reason of its own gets, e.g. a
  // standby's poll of a master whose loop is busy (PeerSms.h pollSmInfo).
  // Every attempt carries the same TID, so an answer to any of them counts.
  std::chrono::milliseconds patience{0};
  // No M_Key here: the engine puts the key of the port reached on every
  // SMP (setPortKeys), so no caller can forget it or send a wrong one.

  static SmpRequest get(AttributeId id, std::uint32_t modifier, std::variant<DrPath, Lid> to);
  static SmpRequest set(AttributeId id, std::uint32_t modifier, std::variant<DrPath, Lid> to,
                        const SmpData& data);
  // "DR 0,1,3" or "LID 12", for log lines.
  std::string destination() const;
};

// The one requester's outcome (sm/mad/Requester.h): SMPs end as every
// request the SM waits on does.
using SmpOutcome = sm::mad::RequestOutcome;

struct SmpReply {
  SmpOutcome outcome{SmpOutcome::Timeout};
  std::optional<Smp> smp;  // the response, for Ok and BadStatus
  std::uint16_t status{0};
  unsigned attempts{0};
  bool ok() const { return outcome == SmpOutcome::Ok; }
};

// What happened to a request, for log lines: "was answered with status
// 0x001c (invalid field)", "got no response after 4 attempts", ...
std::string describeFailure(const SmpReply& reply);

using SmpCallback = std::function<void(const SmpRequest&, const SmpReply&)>;

struct IncomingSmp {
  Smp smp;
  MadAddress from;
};
using UnsolicitedHandler = std::function<void(const IncomingSmp&)>;

struct MadEngineOptions {
  // SMPs outstanding at most. 32: no gain past it on ibsim, 2.5x faster than
  // 4 on a 1344-node fat tree (tests/sm/ibsim/SmpWindowProbe.cpp has figures).
  std::size_t window{32};
  // SMPs outstanding to one node at most (a directed route's: the node at
  // its end; a LID-routed SMP's: the node holding the LID), 0: no limit.
  // A node's management processor answers one SMP at a time, so more only
  // queue there while the window could keep other nodes busy. 1: on any
  // fabric with more switches than the window, one per switch keeps the
  // most management processors at work (each idles only while its answer
  // travels back); 2 pays only where the window exceeds twice the
  // switches. bench/pacing_bench has figures (mad.per_node_window).
  std::size_t perNodeWindow{1};
  // The timeout of an SMP on a path length not measured yet; once SMPs
  // there are answered, their round trip plus four deviations, within
  // timeoutMin..timeoutMax, each retry waiting twice the one before
  // (sm/mad/MadRto.h).
  std::chrono::milliseconds timeout{200};
  std::chrono::milliseconds timeoutMin{2};
  std::chrono::milliseconds timeoutMax{50};
  unsigned retries{3};
  // Attempts a request may get on a path that loses MADs (sm/mad/MadLoss.h:
  // as many as leave it a 1e-4 chance of failing at the loss seen lately on
  // paths of its length); 1 + retries or less: always 1 + retries.
  unsigned maxAttempts{64};
  // Time as the engine sees it; tests give a fake transport's clock. The
  // one clock of the SM: the daemon and its sweeps time themselves with it.
  std::function<MadClock::time_point()> clock;
  // Waits for the wire while serving other fds (sm/loop/EventLoop.h); not
  // owned, outlives the engine. Null: block in transport.receive().
  MadWaiter* waiter{nullptr};
  std::shared_ptr<spdlog::logger> logger;  // default: spdlog's default logger
};

struct MadCounters {
  std::uint64_t sent{0};         // transmissions, retries included
  std::uint64_t received{0};     // every MAD read from the transport
  std::uint64_t timeouts{0};     // requests that failed after all retries
  std::uint64_t retries{0};      // retransmissions
  std::uint64_t lossRetries{0};  // of those, beyond `retries`: paths that lose MADs
  std::uint64_t errors{0};       // responses with a non-zero status
  std::uint64_t sendFailures{0};
  std::uint64_t unmatched{0};  // responses to no outstanding request
  std::uint64_t unsolicited{0};
  std::uint64_t unhandled{0};  // unsolicited MADs dropped: no handler installed
  std::uint64_t malformed{0};
  std::uint64_t traps{0};            // traps we sent (sendTrap)
  std::uint64_t represses{0};        // TrapRepress received: acknowledgements, not requests
  std::uint64_t transportFailed{0};  // requests completed as TransportFailed
  std::uint64_t cancelled{0};        // requests completed as Cancelled
};

class MadEngine {
 public:
  explicit MadEngine(MadTransport& transport, MadEngineOptions options = {});
  MadEngine(const MadEngine&) = delete;
  MadEngine& operator=(const MadEngine&) = delete;

  // Queues a request; it goes on the wire from runUntilIdle()/runUntil().
  // The callback runs exactly once, from inside those calls (the lifetime
  // rule above); it may submit, respond, repress and cancel, but not run
  // the engine itself.
  void submit(SmpRequest request, SmpCallback done);

  // Runs until nothing is queued or outstanding. Fails when the transport
  // cannot receive any more or after cancel(); every pending request has
  // then completed (TransportFailed, Cancelled) before the error returns.
  [[nodiscard]] Result<void> runUntilIdle();
  // Runs until the deadline even when idle, or until `stop()` (asked after
  // every MAD and every handler of the waiter) says to return: how the SM
  // waits between sweeps while answering SMInfo queries and traps. Fails
  // as runUntilIdle() does.
  [[nodiscard]] Result<void> runUntil(MadClock::time_point deadline,
                                      const std::function<bool()>& stop = {});
  // Submits `requests`, runs until idle, and returns their replies in the
  // same order: for callers that need every answer before going on.
  [[nodiscard]] Result<std::vector<SmpReply>> sendAll(const std::vector<SmpRequest>& requests);

  // Ends the work at once (SIGTERM mid-sweep): the running (or next) run
  // completes every queued and outstanding request as Cancelled and returns
  // an error saying so. Final: from then on every run does the same without
  // sending, so whatever the caller tries next ends quickly. respond(),
  // repress() and sendTrap() still send. Safe to call from any handler the
  // engine runs (callbacks, the unsolicited handler, the waiter's handlers).
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

  void onUnsolicited(UnsolicitedHandler handler) { unsolicited_ = std::move(handler); }

  // The M_Key of each port, by its GUID (sm/security's KeyScheme::keyFor);
  // unset: every SMP carries 0. Applies from the next SMP put on the wire.
  void setPortKeys(std::function<std::uint64_t(Guid portGuid)> keyOf) { keyOf_ = std::move(keyOf); }
  // The key each port held before a rotation (KeyScheme::previousKeyFor);
  // 0 or unset: no rotation under way, every SMP carries keyOf's.
  void setPreviousPortKeys(std::function<std::uint64_t(Guid portGuid)> previousOf) {
    previousOf_ = std::move(previousOf);
  }
  // The key an SMP to `to` carries now (its first attempt): its port's, or
  // 0 for a port unknown.
  std::uint64_t keyFor(const std::variant<DrPath, Lid>& to) const;
  // Which port each route and LID reaches, as learnt so far.
  const sm::mad::PortDirectory& ports() const { return ports_; }
  // Answers a Get or Set with a GetResp carrying `data` and `status`.
  [[nodiscard]] Result<void> respond(const IncomingSmp& request, const SmpData& data,
                                     std::uint16_t status = 0);
  // Acknowledges a trap so its sender stops repeating it.
  [[nodiscard]] Result<void> repress(const IncomingSmp& trap);
  // Sends a LID-routed SubnTrap(Notice) at once: no window, no wait, no
  // retry (a standby's trap 144 is repeated by its next poll if it matters).
  // The TrapRepress that comes back is counted and dropped, never handed to
  // the unsolicited handler.
  [[nodiscard]] Result<void> sendTrap(Lid to, const SmpData& notice);

  // The requester's counts and the engine's own (received, traps, ...).
  MadCounters counters() const;
  // The trace lines of `--log-level trace` logged and suppressed (MadTrace.h).
  const MadTraceCounters& traceCounters() const { return trace_.counters(); }
  std::size_t outstanding() const { return requests_.outstanding(); }
  std::size_t queued() const { return requests_.queued(); }
  bool idle() const { return requests_.idle(); }
  const MadEngineOptions& options() const { return options_; }
  // The loss seen per path length, which sets each request's attempts.
  const MadLoss& loss() const { return loss_; }
  // The round trips seen per path length, which set each attempt's timeout.
  const MadRto& rto() const { return rto_; }
  // Requests outstanding whose answer is still due (not yet past their
  // path's timeout): what the window counts.
  std::size_t inWindow() const { return requests_.inWindow(); }
  // Of the queued requests, those waiting because their node has
  // perNodeWindow SMPs in the window.
  std::size_t heldForNode() const { return requests_.heldForNode(); }

 private:
  // What the requester holds per SMP: the request, its callback, and the
  // loss bucket its attempts and timeouts come from. No encoding: each
  // attempt encodes its own (transmit), so a queued request stays small.
  struct Entry {
    SmpRequest request;
    SmpCallback done;
    std::size_t lossBucket{0};  // MadLoss::bucketOf(request.to)
    std::size_t rtoKey{0};      // MadRto::keyOf(lossBucket, its kind)
  };
  using Requests = sm::mad::Requester<Entry, Smp>;

  Requests::Hooks hooks();
  bool transmit(Entry& e, std::uint32_t tid, unsigned attempt);
  // Which node an SMP to `to` reaches: the GUID of its port when known
  // (a switch's ports all name port 0's), else the route or LID itself.
  std::uint64_t nodeOf(const std::variant<DrPath, Lid>& to) const;
  // The key attempt `attempt` of an SMP to `to` carries.
  std::uint64_t keyFor(const std::variant<DrPath, Lid>& to, unsigned attempt) const;
  sm::mad::PortKeys keysOf(Guid port) const;
  unsigned attemptsFor(const Entry& e) const;
  void retrying(const Entry& e, unsigned attempts);
  void complete(Entry& e, sm::mad::Completion<Smp>&& done);
  void traceEnd(const Entry& e, const SmpReply& reply, MadClock::time_point sentAt);
  void handleIncoming(const ReceivedMad& in);
  void handleResponse(Smp smp);
  [[nodiscard]] Result<void> step(MadClock::time_point until);
  // Completes everything queued or outstanding with `outcome` (callbacks may
  // queue more: those complete too), then returns `why` as the error.
  [[nodiscard]] Result<void> failAll(SmpOutcome outcome, Error why);
  [[nodiscard]] Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline);
  [[nodiscard]] Result<void> cancelledAtEnd();
  static Error cancelError();
  MadClock::time_point now() const { return options_.clock(); }
  [[nodiscard]] Result<void> sendResponse(const IncomingSmp& request, Smp response);

  MadTransport& transport_;
  MadEngineOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  UnsolicitedHandler unsolicited_;
  std::function<std::uint64_t(Guid)> keyOf_;
  std::function<std::uint64_t(Guid)> previousOf_;
  sm::mad::PortDirectory ports_;
  sm::mad::HeldKeys held_;  // which key each port holds while keys rotate
  MadCounters own_;         // what the engine counts itself: all but the requester's
  MadLoss loss_;
  MadRto rto_;
  MadTrace trace_;
  bool cancelled_{false};
  Requests requests_;
};

}  // namespace ibsm
