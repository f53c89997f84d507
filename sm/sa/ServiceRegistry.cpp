#include "sm/sa/ServiceRegistry.h"

#include <algorithm>

#include "sm/sa/Components.h"

namespace ibsm::sm::sa {
namespace {

bool sameName(const ServiceRecord& a, const ServiceRecord& b) {
  return a.serviceId == b.serviceId && a.serviceGid == b.serviceGid &&
         a.servicePKey == b.servicePKey;
}

ServiceRegistry::Clock::time_point expiry(std::uint32_t lease,
                                          ServiceRegistry::Clock::time_point now) {
  if (lease == ServiceRecord::kInfiniteLease) return ServiceRegistry::Clock::time_point::max();
  return now + std::chrono::seconds(lease);
}

}  // namespace

void ServiceRegistry::expire(Clock::time_point now) {
  std::erase_if(entries_, [&](const Entry& e) { return e.expires <= now; });
}

std::expected<ServiceRecord, std::uint16_t> ServiceRegistry::set(const ServiceRecord& record,
                                                                 Guid owner, Clock::time_point now,
                                                                 std::size_t maxPerOwner) {
  expire(now);
  const auto it =
      std::ranges::find_if(entries_, [&](const Entry& e) { return sameName(e.record, record); });
  if (it != entries_.end() && it->owner != owner) return std::unexpected(saStatus::kReqDenied);
  if (it == entries_.end() && entries_.size() >= max_) {
    return std::unexpected(saStatus::kNoResources);
  }
  if (it == entries_.end() &&
      static_cast<std::size_t>(std::ranges::count(entries_, owner, &Entry::owner)) >= maxPerOwner) {
    ++refusedOverCap_;
    return std::unexpected(saStatus::kNoResources);
  }
  Entry entry{record, encodeRecord(record), owner, expiry(record.serviceLease, now)};
  if (it != entries_.end()) {
    *it = std::move(entry);
  } else {
    entries_.push_back(std::move(entry));
  }
  return record;
}

std::vector<std::vector<std::uint8_t>> ServiceRegistry::find(std::span<const std::uint8_t> query,
                                                             std::uint64_t mask,
                                                             Clock::time_point now) {
  expire(now);
  std::vector<std::vector<std::uint8_t>> out;
  const auto components = componentsOf(saAttr::kServiceRecord);
  for (const Entry& e : entries_) {
    if (matches(e.encoded, query, mask, components)) out.push_back(e.encoded);
  }
  return out;
}

std::expected<std::vector<std::vector<std::uint8_t>>, std::uint16_t> ServiceRegistry::remove(
    std::span<const std::uint8_t> query, std::uint64_t mask, Guid owner, Clock::time_point now) {
  expire(now);
  const auto components = componentsOf(saAttr::kServiceRecord);
  const auto hit = [&](const Entry& e) { return matches(e.encoded, query, mask, components); };
  if (std::ranges::any_of(entries_, [&](const Entry& e) { return hit(e) && e.owner != owner; })) {
    return std::unexpected(saStatus::kReqDenied);
  }
  std::vector<std::vector<std::uint8_t>> removed;
  for (const Entry& e : entries_) {
    if (hit(e)) removed.push_back(e.encoded);
  }
  if (removed.empty()) return std::unexpected(saStatus::kNoRecords);
  std::erase_if(entries_, hit);
  return removed;
}

}  // namespace ibsm::sm::sa
