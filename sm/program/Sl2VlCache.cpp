#include "Sl2VlCache.h"

namespace ibsm::sm {

bool Sl2VlCache::admit(Sl2VlKey key) {
  return tables_.try_emplace(key).second;
}

void Sl2VlCache::reset(Guid node) {
  // Keys order by node first: the node's tables are one contiguous range.
  const auto first = tables_.lower_bound(Sl2VlKey{node, 0, 0});
  const auto last = tables_.upper_bound(Sl2VlKey{node, 0xFF, 0xFF});
  tables_.erase(first, last);
}

std::optional<SlToVlTable> Sl2VlCache::table(Sl2VlKey key) const {
  auto it = tables_.find(key);
  return it == tables_.end() ? std::nullopt : it->second;
}

void Sl2VlCache::learned(Sl2VlKey key, const SlToVlTable& contents) {
  tables_[key] = contents;
}

void Sl2VlCache::forget(Sl2VlKey key) {
  if (auto it = tables_.find(key); it != tables_.end()) it->second.reset();
}

}  // namespace ibsm::sm
