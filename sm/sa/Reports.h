// The Reports in flight: each Report(Notice) sent to a subscriber is sent
// again, with the same TID, until a ReportResp with that TID comes back or
// the retries run out (then it counts as failed; the subscription stays,
// as in OpenSM). The window, TIDs, retries and timeouts are the SM's one
// requester's (sm/mad/Requester.h); this file is what is the SA's own: the
// subscriber's timeout, the cap on Reports in flight, the Report encoding.
// Pure: it says what to send and when (due()), on the caller's clock; the
// daemon sends and arms one timer at nextDeadline().
//
//   Reports reports(settings);
//   reports.add(notice, subscription, now);           // queued, due at once
//   for (auto& out : reports.due(now)) port.sendGmp(out.mad, out.to);
//   reports.acknowledge(reportResp);                  // from the port
//   loop.at(*reports.nextDeadline(), ...);            // retries
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "sm/mad/Gmp.h"
#include "sm/mad/MadTransport.h"
#include "sm/mad/Requester.h"
#include "sm/sa/SaRecords.h"
#include "sm/sa/Subscriptions.h"

namespace ibsm::sm::sa {

struct ReportSettings {
  // The wait for a ReportResp is what the subscriber said it needs
  // (InformInfo:RespTimeValue, 4.096 us * 2^v) plus a round trip of the
  // subnet's packet life (2 * 4.096 us * 2^packetLifeTime), kept within
  // these bounds: a subscriber asking for hours must not hold a Report
  // that long, nor one asking for nanoseconds be flooded with retries.
  std::uint8_t packetLifeTime{18};
  std::chrono::milliseconds minTimeout{100};
  std::chrono::milliseconds maxTimeout{4000};
  // Sends after the first, before the Report counts as failed.
  std::uint32_t retries{3};
  // Reports in flight at most; more are failed at once (a flood of traps
  // to many subscribers must not grow without bound).
  std::size_t maxOutstanding{4096};
};

struct ReportCounters {
  std::uint64_t sent{0};          // first sends
  std::uint64_t retried{0};       // sends again after a timeout
  std::uint64_t acknowledged{0};  // a ReportResp came
  std::uint64_t failed{0};        // no ReportResp after the retries, or no room
  std::uint64_t unmatched{0};     // a ReportResp of no Report in flight (late, duplicate)
};

// How long to wait for a subscriber's ReportResp (see ReportSettings).
std::chrono::milliseconds reportTimeout(std::uint8_t respTimeValue, const ReportSettings& settings);

class Reports {
 public:
  using Clock = MadClock;
  explicit Reports(ReportSettings settings = {});
  Reports(const Reports&) = delete;
  Reports& operator=(const Reports&) = delete;

  // Queues a Report of `notice` to `to`, due at `now`.
  void add(const SaNotice& notice, const Subscription& to, Clock::time_point now);
  // The MADs to send at `now`: first sends and retries; a Report out of
  // retries is dropped and counted failed.
  std::vector<OutgoingGmp> due(Clock::time_point now);
  // A ReportResp (any SA MAD with the response bit): true when it ends a
  // Report in flight. Only the low 32 TID bits are compared: the kernel
  // (and umad2sim) put the agent's own id in the upper ones.
  bool acknowledge(std::span<const std::uint8_t> mad);
  // When due() has something to do next; nullopt when nothing is in flight.
  std::optional<Clock::time_point> nextDeadline() const;
  // Forgets every Report in flight (not counted failed): the SM is no
  // longer master, another SA speaks for the subnet now.
  void clear() { requests_.cancelAll(); }

  std::size_t outstanding() const { return requests_.outstanding() + requests_.queued(); }
  const ReportCounters& counters() const { return counters_; }

 private:
  struct Report {
    SaNotice notice;
    GmpAddress to;
    std::chrono::milliseconds timeout{};
    std::vector<std::uint8_t> mad;  // encoded at the first send, with its TID
  };
  using Requests = ibsm::sm::mad::Requester<Report, std::monostate>;
  Requests::Hooks hooks();

  ReportSettings settings_;
  Clock::time_point now_{};            // the caller's clock, as of the last add() or due()
  Clock::time_point firstQueuedAt_{};  // when the oldest Report not yet sent was added
  std::vector<OutgoingGmp> out_;       // what the requester sent during due()
  ReportCounters counters_;
  Requests requests_;
};

}  // namespace ibsm::sm::sa
