#include "routing/multicast/McSl.h"

#include <bit>

namespace ibsm::routing {

std::uint16_t slsCarriedEverywhere(std::span<const Sl2VlEntry> sl2vl) {
  std::uint16_t carried = kEverySl;
  for (const Sl2VlEntry& e : sl2vl) carried &= slsCarried(e);
  return carried;
}

std::uint8_t groupTreeSl(std::uint8_t requested, std::uint16_t carriedEverywhere) {
  const std::uint8_t sl = requested & 0xF;
  if ((carriedEverywhere >> sl) & 1U) return sl;
  if (carriedEverywhere == 0) return sl;
  return static_cast<std::uint8_t>(std::countr_zero(carriedEverywhere));
}

std::uint8_t groupTreeSl(std::uint8_t requested, std::uint16_t carriedEverywhere, bool treesOwnVl) {
  return treesOwnVl ? kTreeSl : groupTreeSl(requested, carriedEverywhere);
}

}  // namespace ibsm::routing
