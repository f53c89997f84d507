// The ServiceRecords ports have registered (IBA 15.2.5.14): unlike the
// other records they are the SA's own state, written by Set and Delete, so
// they live in the responder across snapshots, not in a snapshot. A record
// is named by (ServiceID, ServiceGID, ServicePKey), belongs to the port
// that registered it (only that port may register it again or delete it)
// and lasts ServiceLease seconds from its last registration.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <span>
#include <vector>

#include "sm/sa/SaMad.h"
#include "sm/sa/SaRecords.h"

namespace ibsm::sm::sa {

class ServiceRegistry {
 public:
  using Clock = std::chrono::steady_clock;
  // Ports may register at will: past `maxRecords` a new registration is
  // NO_RESOURCES, so a client cannot grow the SM without bound.
  static constexpr std::size_t kDefaultMaxRecords = 16384;
  explicit ServiceRegistry(std::size_t maxRecords = kDefaultMaxRecords) : max_(maxRecords) {}

  // Registers `record` for `owner` (the requester's port GUID): a new one,
  // or a renewal of its own. kReqDenied when another port owns that name,
  // kNoResources when the registry is full or `owner` already owns
  // `maxPerOwner` records (a renewal is never refused for that).
  [[nodiscard]] std::expected<ServiceRecord, std::uint16_t> set(
      const ServiceRecord& record, Guid owner, Clock::time_point now,
      std::size_t maxPerOwner = kDefaultMaxRecords);
  // New registrations refused because their owner held maxPerOwner.
  std::uint64_t refusedOverCap() const { return refusedOverCap_; }
  // The live records matching `query` (an encoded ServiceRecord) under `mask`.
  std::vector<std::vector<std::uint8_t>> find(std::span<const std::uint8_t> query,
                                              std::uint64_t mask, Clock::time_point now);
  // Deletes the matching records, all owned by `owner`, and returns them;
  // kReqDenied (nothing deleted) when one is another port's, kNoRecords
  // when none matches.
  [[nodiscard]] std::expected<std::vector<std::vector<std::uint8_t>>, std::uint16_t> remove(
      std::span<const std::uint8_t> query, std::uint64_t mask, Guid owner, Clock::time_point now);

  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    ServiceRecord record;
    std::vector<std::uint8_t> encoded;
    Guid owner;
    Clock::time_point expires;
  };
  void expire(Clock::time_point now);

  std::size_t max_;
  std::vector<Entry> entries_;
  std::uint64_t refusedOverCap_{0};
};

}  // namespace ibsm::sm::sa
