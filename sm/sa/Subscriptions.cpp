#include "sm/sa/Subscriptions.h"

#include <algorithm>

#include "sm/sa/Components.h"

namespace ibsm::sm::sa {
namespace {

// The same subscription: everything but Subscribe and RespTimeValue.
bool same(const InformInfo& a, const InformInfo& b) {
  InformInfo x = a, y = b;
  x.subscribe = y.subscribe = true;
  x.respTimeValue = y.respTimeValue = 0;
  return x == y;
}

}  // namespace

std::expected<InformInfo, std::uint16_t> Subscriptions::set(const InformInfo& info,
                                                            const Gid& subscriber,
                                                            const GmpAddress& from) {
  const auto it = std::ranges::find_if(subscriptions_, [&](const Subscription& s) {
    return s.subscriber == subscriber && same(s.info, info);
  });
  if (!info.subscribe) {
    if (it == subscriptions_.end()) return std::unexpected(saStatus::kReqInvalid);
    subscriptions_.erase(it);
    return info;
  }
  if (it != subscriptions_.end()) {
    it->info = info;
    it->reportTo = from;
    return info;
  }
  if (subscriptions_.size() >= max_) return std::unexpected(saStatus::kNoResources);
  subscriptions_.push_back({subscriber, from, nextEnum_++, info});
  return info;
}

std::size_t Subscriptions::drop(const Gid& subscriber) {
  return std::erase_if(subscriptions_,
                       [&](const Subscription& s) { return s.subscriber == subscriber; });
}

std::vector<std::vector<std::uint8_t>> Subscriptions::records(std::span<const std::uint8_t> query,
                                                              std::uint64_t mask) const {
  const auto components = componentsOf(saAttr::kInformInfoRecord);
  std::vector<std::vector<std::uint8_t>> out;
  for (const Subscription& s : subscriptions_) {
    auto bytes = encodeRecord(InformInfoRecord{
        .subscriberGid = s.subscriber, .enumeration = s.enumeration, .informInfo = s.info});
    if (matches(bytes, query, mask, components)) out.push_back(std::move(bytes));
  }
  return out;
}

}  // namespace ibsm::sm::sa
