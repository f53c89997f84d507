#include "SwitchTableCache.h"

#include <ibsm/Routing.h>

namespace ibsm::sm {

LftBlock emptyLftBlock() {
  LftBlock b;
  b.ports.fill(kNoRoute);
  return b;
}

std::vector<std::uint16_t> SwitchTableCache::admit(Guid sw, Lid linearFdbTop) {
  if (auto it = switches_.find(sw); it != switches_.end()) {
    Entry& e = it->second;
    if (!e.top || *e.top == linearFdbTop) {
      e.top = linearFdbTop;
      return {};
    }
  }
  Entry fresh;
  fresh.top = linearFdbTop;
  std::vector<std::uint16_t> reads;
  if (linearFdbTop.value == 0) {
    fresh.restEmpty = true;
  } else {
    const auto last = static_cast<std::uint16_t>(linearFdbTop.value / kLftBlockSize);
    fresh.blocks.resize(last + 1U);
    for (std::uint16_t b = 0; b <= last; ++b) reads.push_back(b);
  }
  switches_[sw] = std::move(fresh);
  return reads;
}

std::optional<LftBlock> SwitchTableCache::block(Guid sw, std::uint16_t index) const {
  auto it = switches_.find(sw);
  if (it == switches_.end()) return std::nullopt;
  const Entry& e = it->second;
  if (index < e.blocks.size()) return e.blocks[index];
  if (e.restEmpty) return emptyLftBlock();
  return std::nullopt;
}

std::optional<LftBlock>& SwitchTableCache::slot(Guid sw, std::uint16_t index) {
  Entry& e = switches_[sw];
  if (index >= e.blocks.size()) {
    // Blocks between the old end and `index` keep what block() said of them.
    const std::optional<LftBlock> rest =
        e.restEmpty ? std::optional<LftBlock>(emptyLftBlock()) : std::nullopt;
    e.blocks.resize(index + 1U, rest);
  }
  return e.blocks[index];
}

void SwitchTableCache::learned(Guid sw, std::uint16_t index, const LftBlock& contents) {
  slot(sw, index) = contents;
}

void SwitchTableCache::forget(Guid sw, std::uint16_t index) {
  slot(sw, index).reset();
}

void SwitchTableCache::topWritten(Guid sw, Lid top) {
  switches_[sw].top = top;
}

void SwitchTableCache::topUncertain(Guid sw) {
  switches_[sw].top.reset();
}

}  // namespace ibsm::sm
