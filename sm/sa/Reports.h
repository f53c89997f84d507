// The Reports in flight: each Report(Notice) sent to a subscriber is sent
// again, with the same TID, until a ReportResp with that TID comes back or
// the retries run out (then it counts as failed; the subscription stays,
// as in OpenSM). Pure: it says what to send and when (due()), on the
// caller's clock; the daemon sends and arms one timer at nextDeadline().
//
//   Reports reports(settings);
//   reports.add(notice, subscription, now);           // queued, due at once
//   for (auto& out : reports.due(now)) port.sendGmp(out.mad, out.to);
//   reports.acknowledge(reportResp);                  // from the port
//   loop.at(*reports.nextDeadline(), ...);            // retries
#pragma once

#include <ibsm/Gmp.h>
#include <ibsm/MadTransport.h>
#include <ibsm/SaRecords.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

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
  explicit Reports(ReportSettings settings = {}) : settings_(settings) {}

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
  void clear() { pending_.clear(); }

  std::size_t outstanding() const { return pending_.size(); }
  const ReportCounters& counters() const { return counters_; }

 private:
  struct Pending {
    std::uint32_t tid{0};
    OutgoingGmp gmp;
    std::chrono::milliseconds timeout{};
    Clock::time_point deadline{};  // next send, or failure once sends == 1 + retries
    std::uint32_t sends{0};
  };
  std::uint32_t nextTid();

  ReportSettings settings_;
  std::vector<Pending> pending_;
  // OpenSM starts its Report TIDs at 0x02DAB000; any start will do, ours
  // tells ibsm's Reports apart in a capture.
  std::uint32_t lastTid_{0x1B5A0000};
  ReportCounters counters_;
};

}  // namespace ibsm::sm::sa
