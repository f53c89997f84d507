#include "sm/security/KeyCache.h"

#include <sodium.h>

namespace ibsm::security {

KeyCache::~KeyCache() {
  clear();
}

KeyCache::Keys KeyCache::keysFor(const KeyScheme& scheme, std::uint64_t portGuid) {
  if (!scheme.derivesKeys())
    return {.current = scheme.keyFor(portGuid), .previous = scheme.previousKeyFor(portGuid)};
  if (scheme.id() != schemeId_) {
    clear();
    schemeId_ = scheme.id();
  }
  if (const auto it = keys_.find(portGuid); it != keys_.end()) {
    ++counts_.served;
    return it->second;
  }
  ++counts_.computed;
  const Keys keys{.current = scheme.keyFor(portGuid), .previous = scheme.previousKeyFor(portGuid)};
  keys_.emplace(portGuid, keys);
  return keys;
}

void KeyCache::clear() {
  if (!keys_.empty()) ++counts_.dropped;
  // Nodes of an unordered_map never move, so each key is zeroed where it
  // lies before its node is freed.
  for (auto& [guid, keys] : keys_) sodium_memzero(&keys, sizeof keys);
  keys_.clear();
  schemeId_ = 0;
}

}  // namespace ibsm::security
