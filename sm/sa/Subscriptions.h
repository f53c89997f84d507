// The ports subscribed to notices through Set(InformInfo): SA state of its
// own like ServiceRecords, kept in the responder across snapshots. The
// daemon reads them (all()) to send each matching subscriber a Report when
// a trap comes in or a port comes and goes; the SA itself sends nothing.
#pragma once

#include <ibsm/SaMad.h>
#include <ibsm/SaRecords.h>

#include <cstdint>
#include <expected>
#include <span>
#include <vector>

namespace ibsm::sm::sa {

struct Subscription {
  Gid subscriber{};  // the requesting port's GID
  Lid lid{};         // where its Reports go, with info.qpn
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
                                                             const Gid& subscriber, Lid lid);
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
