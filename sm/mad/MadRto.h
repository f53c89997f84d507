// Retransmission timeouts learned from answered SMPs, as TCP learns its own
// (RFC 6298): per path length (directed route by hop count, LID-routed
// apart: MadLoss::bucketOf) and per kind of SMP: Gets, Sets of a table
// block (LFT, MFT, PKey, SL2VL, VLArb) and other Sets apart (a switch writes
// a table block far slower than it reads an attribute: Sets timed by what
// Gets took would each be sent again, and Karn's rule would never let their
// own round trips in), a smoothed round trip and its mean deviation,
// and a timeout of the round trip plus four deviations, within a floor and
// a cap. Before a path length has been measured each attempt of its SMPs
// waits the initial timeout (mad.timeout_ms), cap or not. Once measured,
// attempt n waits 2^(n-1) times the timeout, up to the cap (exponential
// back-off, RFC 6298 5.5). Only a request answered
// at its first attempt gives a sample (Karn's rule, RFC 6298 3): an answer
// to a retried request cannot say which attempt it answers.
//
//   MadRto rto({.initial = 200ms, .floor = 2ms, .cap = 200ms});
//   const std::size_t key = MadRto::keyOf(lossBucket, MadRto::Kind::TableSet);
//   rto.sample(key, answeredAt - sentAt);   // first attempts only
//   auto wait = rto.timeout(key, attempt);  // 1-based
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sm/mad/MadLoss.h"

namespace ibsm {

class MadRto {
 public:
  using Duration = std::chrono::microseconds;

  struct Limits {
    Duration initial{std::chrono::milliseconds(200)};  // before any sample
    Duration floor{std::chrono::milliseconds(2)};      // every timeout at least
    Duration cap{std::chrono::milliseconds(200)};      // and at most, back-off included
  };

  // What is known of one path length's round trips.
  struct Estimate {
    Duration srtt{0};    // smoothed round trip
    Duration rttvar{0};  // its mean deviation
    std::uint64_t samples{0};
  };

  enum class Kind : std::uint8_t { Get, Set, TableSet };
  static constexpr std::size_t kKinds = 3;
  // Estimates kept: a path length's (MadLoss bucket) kinds apart.
  static constexpr std::size_t kKeys = kKinds * MadLoss::kBuckets;
  static constexpr std::size_t keyOf(std::size_t lossBucket, Kind kind) {
    return kKinds * lossBucket + static_cast<std::size_t>(kind);
  }

  explicit MadRto(Limits limits);

  // A request of this key (keyOf) answered at its first attempt, `rtt` after it
  // was sent.
  void sample(std::size_t bucket, Duration rtt);
  // The bucket's timeout before back-off: srtt + 4 rttvar within
  // floor..cap; the initial timeout (at least the floor) before any sample.
  Duration rto(std::size_t bucket) const;
  // How long attempt `attempt` (1-based) waits: rto * 2^(attempt-1), at most
  // the cap; before any sample, the initial timeout.
  Duration timeout(std::size_t bucket, unsigned attempt) const;
  const Estimate& estimate(std::size_t bucket) const { return estimates_.at(bucket); }

  // One key's estimate as the status shows it: which paths, which kind.
  struct Learnt {
    bool lidRouted{false};
    std::size_t hops{0};  // of a directed route; 0 when LID-routed
    Kind kind{Kind::Get};
    Estimate estimate;
    Duration timeout{0};  // rto(): before back-off
  };
  // Every key with samples, by path length then kind (LID-routed last).
  std::vector<Learnt> learnt() const;
  static std::string_view kindName(Kind kind);  // "get", "set", "table_set"
  const Limits& limits() const { return limits_; }

 private:
  Limits limits_;
  std::array<Estimate, kKeys> estimates_{};
};

}  // namespace ibsm
