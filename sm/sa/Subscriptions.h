// The ports subscribed to notices through Set(InformInfo): SA state of its
// own like ServiceRecords, kept in the responder across snapshots. The
// notice sender (Notifier.h) reads them (all()) to send each matching
// subscriber a Report when a trap comes in or a port comes and goes; the
// responder itself sends nothing.
#pragma once

#include <cstdint>
#include <expected>
#include <span>
#include <vector>

#include "sm/sa/SaMad.h"
#include "sm/sa/SaRecords.h"

namespace ibsm::sm::sa {

struct Subscription {
  Gid subscriber{};  // the requesting port's GID
  // Where its Reports go: the address the Set came from (LID, QP, Q_Key,
  // SL, P_Key index, GRH), as OpenSM keeps it (IBA C13-32.1.2 copies only
  // the source address vector; InformInfo's own QPN is not trusted).
  GmpAddress reportTo{};
  std::uint16_t enumeration{0};
  InformInfo info{};
};

class Subscriptions {
 public:
  static constexpr std::size_t kDefaultMaxSubscriptions = 4096;
  explicit Subscriptions(std::size_t max = kDefaultMaxSubscriptions) : max_(max) {}

  // Subscribes (info.subscribe) or withdraws the same subscription of the
  // same subscriber: kReqInvalid when there is none to withdraw,
  // kNoResources when full. Subscribing twice keeps one.
  [[nodiscard]] std::expected<InformInfo, std::uint16_t> set(const InformInfo& info,
                                                             const Gid& subscriber,
                                                             const GmpAddress& from);
  // Withdraws every subscription of `subscriber` (its port left the
  // subnet, as OpenSM's drop manager does); returns how many.
  std::size_t drop(const Gid& subscriber);
  // Encoded InformInfoRecords matching `query` under `mask`.
  std::vector<std::vector<std::uint8_t>> records(std::span<const std::uint8_t> query,
                                                 std::uint64_t mask) const;
  const std::vector<Subscription>& all() const { return subscriptions_; }

 private:
  std::size_t max_;
  std::uint16_t nextEnum_{0};
  std::vector<Subscription> subscriptions_;
};

}  // namespace ibsm::sm::sa
