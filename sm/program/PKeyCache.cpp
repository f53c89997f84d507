#include "PKeyCache.h"

namespace ibsm::sm {

std::vector<std::uint16_t> PKeyCache::admit(PKeyPortKey port, std::uint16_t blocks, bool reset) {
  if (reset) ignoresEnforcement_.erase(port);
  auto it = ports_.find(port);
  if (it != ports_.end() && !reset && it->second.size() == blocks) return {};
  // Taken afresh. A block forgotten after a failed Set is not read again
  // but written: the next Set costs what a Get would.
  ports_[port] = std::vector<std::optional<PKeyBlock>>(blocks);
  std::vector<std::uint16_t> reads(blocks);
  for (std::uint16_t b = 0; b < blocks; ++b) reads[b] = b;
  return reads;
}

std::optional<PKeyBlock> PKeyCache::block(PKeyPortKey port, std::uint16_t index) const {
  auto it = ports_.find(port);
  if (it == ports_.end() || index >= it->second.size()) return std::nullopt;
  return it->second[index];
}

void PKeyCache::learned(PKeyPortKey port, std::uint16_t index, const PKeyBlock& contents) {
  auto& known = ports_[port];
  if (index >= known.size()) known.resize(index + 1U);
  known[index] = contents;
}

void PKeyCache::forget(PKeyPortKey port, std::uint16_t index) {
  auto it = ports_.find(port);
  if (it != ports_.end() && index < it->second.size()) it->second[index].reset();
}

}  // namespace ibsm::sm
