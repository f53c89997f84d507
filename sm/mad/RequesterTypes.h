// The requester's vocabulary (sm/mad/Requester.h): how a request ended,
// what its user is told and counted, the options, and the hooks through
// which the requester reaches the user's wire, timers and clock. Apart from
// the class so users that only name outcomes or counters (PerfOutcome,
// MadCounters, the daemon's status) need not read the template.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "sm/mad/MadTransport.h"

namespace ibsm::sm::mad {

// How a request ended: one type for every user (SmpOutcome, PerfOutcome).
enum class RequestOutcome : std::uint8_t {
  Ok,               // answered with status 0
  BadStatus,        // answered with a non-zero status (busy, unsupported, invalid field)
  Timeout,          // no answer after every attempt
  SendFailed,       // the transport refused the request
  TransportFailed,  // the transport stopped receiving while the request was pending
  Cancelled,        // the work ended before an answer came
};

template <typename Answer>
struct Completion {
  RequestOutcome outcome{RequestOutcome::Timeout};
  std::optional<Answer> answer;   // for Ok and BadStatus
  unsigned attempts{0};           // sends tried, the refused one included
  std::uint32_t tid{0};           // 0: never given one
  bool wasSent{false};            // the transport took at least one attempt
  MadClock::time_point sentAt{};  // the last transmission (if wasSent): a trace's latency
};

struct RequesterCounters {
  std::uint64_t sent{0};        // transmissions the transport took, retries included
  std::uint64_t retried{0};     // retransmissions tried after a timeout
  std::uint64_t answered{0};    // requests answered (Ok or BadStatus)
  std::uint64_t badStatus{0};   // of those, with a non-zero status
  std::uint64_t timedOut{0};    // requests that failed after every attempt
  std::uint64_t sendFailed{0};  // transmissions the transport refused
  std::uint64_t unmatched{0};   // answers to nothing outstanding (late, duplicate, stray)
  std::uint64_t cancelled{0};   // requests ended by cancelAll(Cancelled)
};

struct RequesterOptions {
  std::size_t window{32};     // requests outstanding and due at most (at least 1)
  std::uint32_t firstTid{1};  // TIDs count up from here (a capture tells users apart)
  // Requests in the window to one node (the node hook) at most; 0: no limit.
  std::size_t perNodeWindow{0};
};

template <typename Request, typename Answer>
struct RequesterHooks {
  // Puts `request` on the wire with `tid`, attempt `attempt` (1-based);
  // false when the transport refused it. May cache the encoding in `request`.
  std::function<bool(Request&, std::uint32_t tid, unsigned attempt)> send;
  // How long attempt `attempt` (1-based) waits for its answer.
  std::function<std::chrono::microseconds(const Request&, unsigned attempt)> timeout;
  // Optional: how long attempt `attempt` (1-based) holds its place in the
  // window, when shorter than its timeout (see the top). Unset: until its
  // timeout.
  std::function<std::chrono::microseconds(const Request&, unsigned attempt)> holds{};
  // Optional: the node a request goes to, asked once at submit, for
  // RequesterOptions::perNodeWindow. Unset: no limit per node.
  std::function<std::uint64_t(const Request&)> node{};
  // Attempts the request gets in all; asked each time one times out.
  std::function<unsigned(const Request&)> attempts;
  // Where every request ends, exactly once.
  std::function<void(Request&, Completion<Answer>&&)> complete;
  std::function<MadClock::time_point()> clock;
  // Optional: called before each retry (attempt: the ones made so far).
  std::function<void(const Request&, unsigned attempt)> retrying;
  // Optional: the timer the requester wants (nullopt: none), asked when
  // its earliest deadline changes or after expire() spent the last one.
  std::function<void(std::optional<MadClock::time_point>)> wakeAt;
};

}  // namespace ibsm::sm::mad
